#pragma once
// Running one case: the case kind registry (a case kind is a
// command, parsed once from JSON, dispatched through a registry table).
//
// A case kind validates a case body when the suite is loaded (so a bad suite
// file fails before anything runs) and executes it in a worker process:
// builds inputs, runs warm-up + repeats on the emulated device, compares with
// the golden outputs and fills a CaseResult. libtorch exceptions may escape
// Execute; the worker boundary turns them into status `error`.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "harness/case_result.h"
#include "harness/golden/safetensors.h"
#include "harness/suite_file/suite_file.h"

namespace harness {

struct ExecOptions {
  std::string suites_dir;
  std::string golden_dir;
  int warmup = -1;  // -1: the suite's default
  int repeat = -1;
  // A wall sample times a batch of calls lasting at least this long
  // (harness/wall_sampler.h); -1: kDefaultMinSampleUs, 0: one call.
  double min_sample_us = -1;
  // false: a parity-only case (`run` without a latency verdict for it):
  // the device runs once, no warm-up, no wall samples.
  bool timed = true;
};

class CaseKind {
 public:
  virtual ~CaseKind() = default;
  // Checks a case body; errors name the JSON pointer inside the case.
  virtual Status Validate(const SuiteSpec& suite, const CaseSpec& c) const = 0;
  // Runs the case and returns its result (never throws for expected failures).
  virtual CaseResult Execute(const SuiteSpec& suite, const CaseSpec& c,
                             const ExecOptions& options) const = 0;
  // Computes the case's golden outputs on the CPU in reference precision,
  // with their metadata (what `golden generate` writes and `golden verify`
  // recomputes). Kinds without golden files keep this default, an error.
  virtual StatusOr<SafetensorsFile> ComputeGolden(const SuiteSpec& suite, const CaseSpec& c,
                                                  const ExecOptions& options) const;
  // True when the case names an imported golden file (produced elsewhere),
  // which `golden generate` never overwrites.
  virtual bool UsesImportedGolden(const CaseSpec& c) const;
  // The resolved path of that imported file ("" when there is none). The
  // run's preflight and `golden verify` check it with CheckGolden, as they
  // check a generated one.
  virtual std::string ImportedGoldenPath(const SuiteSpec& suite, const CaseSpec& c) const;
  // False for kinds that compare with no golden outputs (e.g. "timing",
  // which checks modeled figures against published ones); `golden generate`
  // and `verify` pass over them.
  virtual bool HasGolden(const CaseSpec& c) const;
  // Checks what a case's golden file (at `path`) holds, from its header
  // (names, dtypes, shapes, metadata), before a run starts, so that a wrong
  // file is exit 2 rather than a recorded case error; what only the values
  // can tell is still found when the case runs. The default accepts any file.
  virtual Status CheckGolden(const SuiteSpec& suite, const CaseSpec& c,
                             const SafetensorsHeader& golden, const std::string& path) const;
  // Checks the files a case reads other than its golden file (a model's
  // checkpoint, an op's input files) before a run starts, for every selected
  // case, golden or not: a file that cannot serve the case is exit 2 rather
  // than a recorded case error. Must stay cheap (headers, not data): it runs
  // for every case of every run. The default has no files to check.
  virtual Status CheckFiles(const SuiteSpec& suite, const CaseSpec& c) const;
};

// Registry of case kinds by name ("op", "decode", ...).
using CaseKindFactory = std::function<std::unique_ptr<CaseKind>()>;
void RegisterCaseKind(const std::string& name, CaseKindFactory factory);
const CaseKind* FindCaseKind(const std::string& name);  // nullptr when unknown
std::string CaseKindNames();                            // "decode, op, ..." for error messages

// Registers a kind from a static object in the kind's own file:
//   SPYRE_REGISTER_CASE_KIND("op", OpCaseKind);
struct CaseKindRegistrar {
  CaseKindRegistrar(const std::string& name, CaseKindFactory factory) {
    RegisterCaseKind(name, std::move(factory));
  }
};
#define SPYRE_REGISTER_CASE_KIND(name, Type)                            \
  static ::harness::CaseKindRegistrar spyre_case_kind_registrar_##Type( \
      name, [] { return std::unique_ptr<::harness::CaseKind>(new Type()); })

// Looks up the case's kind and executes it; an unknown kind or an exception
// becomes status `error` with the message.
CaseResult ExecuteCase(const SuiteSpec& suite, const CaseSpec& c, const ExecOptions& options);

}  // namespace harness
