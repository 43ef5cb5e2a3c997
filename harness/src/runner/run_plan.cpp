// PlanRun: everything checkable before a worker starts.
#include <algorithm>
#include <map>

#include "base/case_filter.h"
#include "harness/device/device.h"
#include "detect/thresholds.h"
#include "harness/golden/golden.h"
#include "harness/runner/run.h"
#include "base/suggest.h"
#include "harness/case_kinds/case_kinds.h"
#include "runner/inject_names.h"

namespace harness {
namespace {

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t;"), e = s.find_last_not_of(" \t;");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// The device under test is loaded here, so a library that cannot be loaded
// stops the run before anything is recorded. --inject is checked by the
// device's own parser (through the device ABI), so the run refuses exactly
// what a worker would refuse; fault op names must be ops the device sees
// (runner/inject_names.h), and the plan carries the spec with user-level
// names mapped, applied in this process so the fingerprint records it.
Status CheckDeviceSettings(RunRequest& r) {
  if (!r.profile.empty() && r.profile != "inductor" && r.profile != "sendnn") {
    return UsageError("--profile '" + r.profile + "' is not a profile: use inductor or sendnn");
  }
  SPYRE_ASSIGN_OR_RETURN(const DeviceUnderTest* loaded, LoadDeviceUnderTest());
  const DeviceUnderTest& device = *loaded;
  if (!r.inject.empty()) {
    Status parsed = device.InjectFaults(r.inject);
    if (!parsed.ok()) return UsageError("--inject: " + parsed.message());
  }
  if (std::string error = device.SettingsError(); !error.empty()) return UsageError(error);
  const bool from_flag = !r.inject.empty();
  const nlohmann::json settings = device.Settings();
  const std::string spec =
      from_flag ? r.inject : settings.value("faults", nlohmann::json("")).get<std::string>();
  if (Trim(spec).empty()) return Status::Ok();
  SPYRE_ASSIGN_OR_RETURN(
      const std::string mapped,
      runner_internal::CheckInjectOps(spec, from_flag ? "--inject" : "SPYRE_EMU_FAULTS"));
  if (mapped != spec) r.inject = mapped;
  if (!r.inject.empty()) {
    Status applied = device.InjectFaults(r.inject);
    if (!applied.ok()) return UsageError("--inject: " + applied.message());
  }
  return Status::Ok();
}

// Every file a selected case reads must serve it before a worker starts: a
// missing, corrupt, misplaced or wrong file is a configuration error (fix it
// or regenerate it), not a case error recorded in the store. First the
// case's own files (CaseKind::CheckFiles: a checkpoint's weights, input
// files), since a golden file cannot be regenerated from broken ones; then
// the golden file: there, readable, written for that case and holding what
// its kind expects (CaseKind::CheckGolden: dtypes, and for op cases the
// number and shapes of the outputs), imported or generated.
Status CheckCaseFiles(const RunPlan& plan) {
  std::map<std::pair<std::string, std::string>, std::pair<const SuiteSpec*, const CaseSpec*>> cases;
  for (const SuiteSpec& s : plan.suites) {
    for (const CaseSpec& c : s.cases) cases[{s.name, c.id}] = {&s, &c};
  }
  for (const WorkItem& item : plan.items) {
    const auto [suite, c] = cases.at({item.suite, item.case_id});
    const CaseKind* kind = FindCaseKind(c->kind);
    if (kind == nullptr) continue;  // the worker reports an unknown kind
    SPYRE_RETURN_IF_ERROR(kind->CheckFiles(*suite, *c));
    if (!kind->HasGolden(*c)) continue;
    // An imported file (produced elsewhere) gets the same checks, except
    // the suite and case it was written for: another tool's metadata.
    const bool imported = kind->UsesImportedGolden(*c);
    const std::string path = imported ? kind->ImportedGoldenPath(*suite, *c)
                                      : GoldenPath(plan.request.golden_dir, suite->name, c->id);
    SPYRE_ASSIGN_OR_RETURN(const SafetensorsHeader golden, LoadGoldenHeader(path, *suite, *c));
    for (const auto& [key, want] : {std::pair{"suite", suite->name}, std::pair{"case", c->id}}) {
      if (imported) break;
      auto it = golden.metadata.find(key);
      if (it != golden.metadata.end() && it->second != want) {
        return InvalidInput(path + ": written for " + key + " '" + it->second + "', not '" + want +
                            "'; regenerate it with '" + GoldenGenerateCommand(suite->name, suite->root, path) +
                            "'");
      }
    }
    SPYRE_RETURN_IF_ERROR(kind->CheckGolden(*suite, *c, golden, path));
  }
  return Status::Ok();
}

// A timed case must collect what the judge needs (wall_min_samples per
// process, or wall_min_rounds processes): a suite file marked for latency
// with fewer repeats is refused, since every default run of it would time
// its cases for nothing; fewer repeats asked for on the command line
// (--repeat, or --latency all over a suite not made for timing) are a
// warning (the user chose them).
Status CheckEnoughSamples(const SuiteSpec& suite, const CaseSpec& c, const RunRequest& r,
                          const Thresholds& thresholds, RunPlan* plan) {
  const ThresholdValues v = thresholds.For(suite.name, c.id);
  if (r.rounds_min > 0 && r.rounds_min < v.wall_min_rounds && r.rounds >= v.wall_min_rounds) {
    const std::string w = "--rounds " + std::to_string(r.rounds_min) + "-" +
                          std::to_string(r.rounds) + ": a case that settles before " +
                          std::to_string(v.wall_min_rounds) +
                          " rounds is not judged on its rounds (the judge needs that many a side); "
                          "use --rounds " + std::to_string(v.wall_min_rounds) + "-" +
                          std::to_string(r.rounds);
    if (std::find(plan->warnings.begin(), plan->warnings.end(), w) == plan->warnings.end()) {
      plan->warnings.push_back(w);
    }
  }
  const int repeat = r.repeat > 0 ? r.repeat : suite.repeat;
  const int min_rounds = r.rounds_min > 0 ? r.rounds_min : r.rounds;
  if (repeat >= v.wall_min_samples || min_rounds >= v.wall_min_rounds) return Status::Ok();
  const std::string need = std::to_string(v.wall_min_samples);
  if (r.repeat <= 0 && (suite.latency || c.latency)) {
    return InvalidInput(
        (suite.path.empty() ? suite.name : suite.path) + ": /defaults/repeat: " +
        std::to_string(repeat) + " samples per case, but its wall time is judged (" +
        (suite.latency ? "a latency suite" : "case " + c.id + " is marked latency") +
        ") and the judge needs " + need + "; set repeat to at least " + need);
  }
  const std::string w = (r.repeat > 0 ? "--repeat " : "repeat ") + std::to_string(repeat) +
                        " gives " + suite.name + " fewer samples than the " + need +
                        " the wall-time judge needs: its timed cases get no latency verdict "
                        "(use --repeat " + need + " or more, or --rounds " +
                        std::to_string(v.wall_min_rounds) + ")";
  if (std::find(plan->warnings.begin(), plan->warnings.end(), w) == plan->warnings.end()) {
    plan->warnings.push_back(w);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<RunPlan> PlanRun(const RunRequest& request) {
  RunPlan plan;
  plan.request = request;
  if (request.suites.empty()) return UsageError("run: no suite given: use --suite NAME[,NAME...]");
  if (request.jobs < 1) return UsageError("--jobs must be at least 1");
  if (request.warmup < -1 || request.repeat == 0 || request.repeat < -1) {
    return UsageError("--warmup must be >= 0 and --repeat >= 1");
  }
  SPYRE_RETURN_IF_ERROR(CheckDeviceSettings(plan.request));
  // Detection reads the thresholds only after the run; a missing or malformed
  // file must fail before anything is recorded.
  SPYRE_ASSIGN_OR_RETURN(const Thresholds thresholds, Thresholds::Configured());
  SPYRE_ASSIGN_OR_RETURN(const CaseFilter filter, CaseFilter::Compile(request.filter));
  size_t matched = 0;
  for (const std::string& name : request.suites) {
    for (const SuiteSpec& s : plan.suites) {
      if (s.name == name) return UsageError("--suite names '" + name + "' twice: give it once");
    }
    SPYRE_ASSIGN_OR_RETURN(SuiteSpec suite, LoadSuite(request.suites_dir, name));
    for (const CaseSpec& c : suite.cases) {
      if (!filter.Matches(suite.name, c.id)) continue;
      ++matched;
      if (!InShard(suite.name, c.id, request.shard)) continue;
      const bool timed = (request.latency == LatencyMode::kAll ||
                          (request.latency == LatencyMode::kMarked && (suite.latency || c.latency))) &&
                         c.parsed != nullptr && c.parsed->kind->TimesHost(c);
      if (timed) SPYRE_RETURN_IF_ERROR(CheckEnoughSamples(suite, c, request, thresholds, &plan));
      plan.items.push_back({suite.name, c.id,
                            request.timeout_s > 0 ? request.timeout_s : suite.timeout_s, timed});
      plan.timed += timed ? 1 : 0;
    }
    plan.suites.push_back(std::move(suite));
  }
  if (matched == 0) {
    std::vector<std::string> ids;
    for (const SuiteSpec& s : plan.suites) {
      for (const CaseSpec& c : s.cases) ids.push_back(c.id);
    }
    return NoCaseMatched(request.suites, request.filter, ids);
  }
  if (plan.items.empty()) {
    // Every chosen case hashed to other shards: a run of nothing would pass.
    return UsageError("shard " + std::to_string(request.shard.index) + "/" +
                      std::to_string(request.shard.count) + " holds none of the " +
                      std::to_string(matched) + " chosen case(s) (cases are split by a hash of "
                      "their ids): use fewer shards, or a --filter that keeps more cases");
  }
  SPYRE_RETURN_IF_ERROR(CheckCaseFiles(plan));
  plan.latency = plan.timed > 0;
  plan.jobs = plan.latency ? 1 : request.jobs;
  plan.suite_key = Join(request.suites, ",");
  return plan;
}

}  // namespace harness
