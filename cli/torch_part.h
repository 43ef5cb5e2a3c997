#pragma once
// The torch part of spyre-regress. The program users run (cli/*.cpp) links
// no libtorch: parsing, --help, --version and every verb that only reads or
// writes the store start without loading it. The verbs that work on tensors
// (`run` and its workers, `golden`, `list`, `env`) have their flags and
// output here and their work in a library loaded when one of them runs:
// lib/libspyre_cli_torch.so beside the executable (cli/torch/*.cpp), over
// libtorch, the engine's torch side and the case kinds.
//
//   SPYRE_ASSIGN_OR_RETURN(const TorchVerbs* torch, TorchPart("golden"));
//   return torch->golden_verify(options, global);
//
// Workers are started from the program users run (`spyre-regress
// __worker`, exec'd or forked from the run's zygote), which loads the torch
// part as `run` does.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>

#include "cli.h"
#include "run/bisect.h"
#include "run/run.h"

namespace harness::cli {

struct GoldenOptions {
  std::string suite;
  std::string filter;
  bool json = false;
};

struct ListOptions {
  std::string suite;
  bool cases = false;  // every suite's cases, not only --suite's
  bool json = false;
};

struct EnvRequest {
  bool json = false;
  int jobs = 1;
  std::map<std::string, std::string> tags;
};

struct WorkerOptions {
  int warmup = -1;
  int repeat = -1;
  int max_repeat = -1;  // > 0: at most this many samples per case (a timing round)
  int min_repeat = -1;  // > 0: samples per case up to this many while short (a confirmation)
  double min_sample_us = -1;
};

// Bumped whenever TorchVerbs or a type it passes changes: a torch part of
// another interface is refused with a message rather than called.
inline constexpr int kTorchPartInterface = 5;

// What the torch part does for each verb. The verbs return an exit code or
// an error Status, as VerbAction does; a libtorch exception comes back as
// a Status.
struct TorchVerbs {
  int interface = kTorchPartInterface;
  // The build it came from (base/build_info.h), compared with the
  // program's own.
  const char* version = nullptr;
  const char* revision = nullptr;
  // `run` up to its summary: starts the worker zygote (workers run `entry`,
  // the whole program), plans the run, executes it with a progress line on
  // stderr. The caller prints the summary and writes the reports.
  StatusOr<RunSummary> (*run)(const RunRequest& request, const GlobalOptions& global,
                              WorkerEntry entry) = nullptr;
  StatusOr<int> (*golden_generate)(const GoldenOptions& options, const GlobalOptions& global) = nullptr;
  StatusOr<int> (*golden_verify)(const GoldenOptions& options, const GlobalOptions& global) = nullptr;
  StatusOr<int> (*list)(const ListOptions& options, const GlobalOptions& global) = nullptr;
  StatusOr<int> (*env)(const EnvRequest& request, const GlobalOptions& global) = nullptr;
  StatusOr<int> (*worker)(const WorkerOptions& options, const GlobalOptions& global) = nullptr;
  // `bisect`: the experiment on the recorded run `request` re-creates
  // (RecordedRequest), with the zygote and progress as `run` has them.
  StatusOr<BisectOutcome> (*bisect)(const RunRequest& request, const BisectRequest& bisect,
                                    const GlobalOptions& global, WorkerEntry entry) = nullptr;
};

// The C symbol the torch part exports: a function returning its TorchVerbs.
inline constexpr const char* kTorchPartEntry = "spyre_regress_torch_verbs";

// The torch part, loaded on first use (the same library for the rest of
// the process). `verb` names the verb that needs it in the error: no
// library beside the executable, one that does not load (libtorch or one of
// its libraries missing), or one of another build.
StatusOr<const TorchVerbs*> TorchPart(const std::string& verb);

// The program's own path (/proc/self/exe); "" when it cannot be read.
std::string ExecutablePath();

// `request` (a `run`, or a `confirm` of a recorded run) executed by the
// torch part, with the store, suites and golden files of the global options
// and this program as its workers; `verb` names the verb in a load error.
StatusOr<RunSummary> RunInTorchPart(RunRequest request, const GlobalOptions& g, const char* verb);

// The request that re-creates recorded run `id`'s plan: its suites and the
// options it was run with (options_json), read from the store. Only a
// completed run can be re-created; `verb` names what is refused.
StatusOr<RunRequest> RecordedRequest(Store& store, int64_t id, const std::string& verb);

// The store, suites, golden files and worker program of `g` and this
// process in `request`.
Status FillRunPaths(const GlobalOptions& g, RunRequest* request);

// A run's human summary (`run`, and `confirm` of a recorded run): one line
// on the run, what was not judged, the baseline, the confirmation, the
// findings, then the contract's two closing lines ("N passed, M failed";
// "regressions: ...").
void PrintHumanSummary(std::ostream& out, const RunSummary& s, const std::string& db);

}  // namespace harness::cli
