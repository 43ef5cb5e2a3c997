#pragma once
// Suites and cases as the runner sees them. A suite file (suites/<name>.json)
// is parsed once into a SuiteSpec; each case keeps its kind-specific body as
// JSON and, beside it, the typed case its kind parsed from that body when
// the suite was loaded (harness/case_kinds/case_kinds.h), which the kind's
// hooks read.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace harness {

class ParsedCase;  // harness/case_kinds/case_kinds.h

struct CaseSpec {
  std::string suite;              // suite name, e.g. "ops"
  std::string id;                 // stable, readable, unique within the suite
  std::string kind;               // case kind, e.g. "op", "decode", "prefill", "embed"
  std::vector<std::string> tags;  // e.g. "smoke", "nightly", "perf"
  bool latency = false;           // marked for a latency verdict (else the suite's mark)
  nlohmann::json body;            // the expanded, validated case (kind-specific)
  std::shared_ptr<const ParsedCase> parsed;  // the body as its kind parsed it (LoadSuite)
};

struct SuiteSpec {
  std::string name;      // "ops"
  std::string path;      // the file it came from
  std::string root;      // the suites directory; files a case names stay inside it
  std::string description;
  // A latency suite: its cases are timed (warm-up, repeats, rounds) and
  // their wall time judged; the others are parity only, run once (`run
  // --latency` overrides). A run with a timed case uses one worker.
  bool latency = false;
  int warmup = 1;        // defaults; `run --warmup/--repeat` override
  int repeat = 5;
  double min_sample_us = -1;  // -1: kDefaultMinSampleUs (harness/wall_sampler.h)
  double timeout_s = 120;  // per case
  std::vector<CaseSpec> cases;
};

// Limits of a suite file, each an error naming the file and the place:
// nesting of arrays and objects (the suites need about 8 levels), and cases
// after sweep expansion (checked before a sweep is expanded). The file's
// size is bounded by kMaxJsonFileBytes (base/input_file.h).
constexpr int kMaxSuiteDepth = 32;
constexpr size_t kMaxSuiteCases = 100000;

// Reads and checks suites/<name>.json under `suites_dir`: the top level
// against the schema, sweeps expanded, defaults merged, case ids. The case
// bodies are not parsed by their kinds (CaseSpec::parsed stays empty), so
// it needs no case kind and no libtorch: what the torch-free verbs read
// (`history`'s case names). Errors name the file, the JSON pointer and the
// problem.
StatusOr<SuiteSpec> ReadSuiteFile(const std::string& suites_dir, const std::string& name);

// ReadSuiteFile, then each case parsed and checked by its kind (the case's
// CaseSpec::parsed): what runs, previews and golden files need. Defined
// with the case kinds (harness/src/case_kinds/load_suite.cpp), on the torch side of the
// engine.
StatusOr<SuiteSpec> LoadSuite(const std::string& suites_dir, const std::string& name);

// Names of the suites in `suites_dir` (every <name>.json but schema.json), sorted.
std::vector<std::string> ListSuites(const std::string& suites_dir);

}  // namespace harness
