#pragma once
// Attribution by experiment (`spyre-regress bisect`): when two runs differ in
// several components at once, the flagged cases are run again under
// configurations that take each component from the baseline's value to the
// candidate's separately, and the same judge as `run` says which change
// reproduces each finding. This header is the torch-free half: which
// components this machine can set to either run's value and how, which
// configurations to run, and the verdict and its sentence once the
// configurations have been judged. The runner's half (runner/bisect.h) runs
// them.
//
// A configuration is a set of swapped components (a bit mask over the
// swappable ones): 0 is the baseline's configuration, all bits the
// candidate's. With up to three swappable components every subset is run
// (a full factorial design: interactions show); with more, the baseline's,
// each component alone, each left out, and the candidate's.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/detect.h"
#include "base/status.h"
#include "store/store.h"

namespace harness {

// One component that differs between the two runs.
struct SwapComponent {
  std::string component;            // "blas", "profile", "threads", "libtorch", ...
  std::string baseline, candidate;  // as the environment diff describes them
  bool swappable = false;
  std::string how;      // swappable: how each side is set ("SPYRE_EMU_PROFILE")
  std::string why_not;  // not swappable: why not, and what would swap it
  // The worker settings that give each side's value (swappable only); a
  // "threads" component sets the workers' libtorch threads instead.
  std::map<std::string, std::string> baseline_env, candidate_env;
  int baseline_threads = 0, candidate_threads = 0;
};

// Files standing in for what a run recorded, when the recorded path no
// longer holds it (a rebuilt backend library, a BLAS of another root): each
// is checked against the recorded identity before it is used (the device by
// SHA-256; the BLAS by the name and version a worker loading it reports).
struct SwapFiles {
  std::string baseline_blas, candidate_blas;
  std::string baseline_device_lib, candidate_device_lib;
};

// The components that differ between `baseline` and `candidate` (two
// recorded fingerprints), each with how this machine (`here`, its own
// fingerprint) sets either side's value, or why it cannot. How many workers
// ran at once is a run option, not a component, and is left out.
std::vector<SwapComponent> PlanSwaps(const nlohmann::json& baseline, const nlohmann::json& candidate,
                                     const nlohmann::json& here, const SwapFiles& files = {});

// The configurations to run for `k` swappable components (bit masks, the
// baseline's first, the candidate's last); k = 0 gives {0, 0}'s stand-in:
// the one configuration run twice as two independent sets, {0, 1} with
// mask 1 meaning "the same again".
std::vector<uint32_t> ConfigurationMasks(int k);

// "blas + profile", "baseline", "candidate": a configuration's name.
std::string ConfigurationName(uint32_t mask, const std::vector<SwapComponent>& swappable);

// The worker settings and thread count of a configuration: every swappable
// component at the candidate's value where its bit is set, at the
// baseline's otherwise. `threads` is left as given when no component sets it.
void ConfigurationSettings(uint32_t mask, const std::vector<SwapComponent>& swappable,
                           std::map<std::string, std::string>* env, int* threads);

// How one configuration fared against the baseline's configuration for one
// finding: whether the judge found the same kind of change in the same
// direction, and the change it measured (a ratio, or a status).
struct StepEffect {
  bool reproduced = false;
  double ratio = 1;     // candidate configuration over baseline configuration
  std::string status;   // status findings: the status under this configuration
  std::string Text() const;  // "+41.0%", "failed"
};

enum class CauseVerdict { kCaused, kTogether, kEach, kNotSeparable, kNotReproduced, kUndecided };
const char* CauseVerdictName(CauseVerdict v);  // "caused", "together", "each", "not_separable", ...

struct Cause {
  CauseVerdict verdict = CauseVerdict::kUndecided;
  std::vector<std::string> components;  // the cause, or what it appeared with
  std::string text;                     // the sentence shown with the finding
  nlohmann::json evidence = nlohmann::json::object();  // per configuration: reproduced, effect
};

// What the experiment says about one finding. `steps`: per configuration
// mask (ConfigurationMasks) its effect against mask 0; `unswapped`: the
// components that differ and could not be swapped (named in the wording);
// `unswapped_reproduced`: for a finding the full swap does not reproduce,
// whether the baseline's configuration run here shows the finding against
// the recorded baseline (the cause then lies with the unswapped
// components); nullopt when that cannot be judged (wall time across runs).
// `rounds_short`: the experiment stopped before a wall-time verdict was
// possible (budget): the finding is undecided, never "not reproduced".
Cause Attribute(const std::vector<SwapComponent>& swappable,
                      const std::vector<std::string>& unswapped,
                      const std::map<uint32_t, StepEffect>& steps,
                      std::optional<bool> unswapped_reproduced, bool rounds_short);

// Sets each regression's `cause` and `cause_verdict` from the recorded
// attributions of the comparison's two runs (matched by suite, case, kind
// and metric; the newest bisect wins).
void AttachAttributions(const std::vector<AttributionRow>& rows, Comparison* c);

}  // namespace harness
