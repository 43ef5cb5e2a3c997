#include "detect/detect.h"
#include "detect/grouping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "compare_rules.h"
#include "base/stats.h"

namespace harness {

const char* FindingKindName(FindingKind k) {
  switch (k) {
    case FindingKind::kStatus: return "status";
    case FindingKind::kAccuracy: return "accuracy";
    case FindingKind::kLatency: return "latency";
    case FindingKind::kModeledLatency: return "modeled_latency";
    case FindingKind::kFallback: return "fallback";
    case FindingKind::kMemory: return "memory";
    case FindingKind::kGoldenDrift: return "golden_drift";
  }
  return "status";
}

bool IsAccuracyMetric(const std::string& output, const std::string& name) {
  // kv: a serving trace's KV blocks, counts judged as memory (CompareKvBlocks).
  static const std::set<std::string> kNotAccuracyOutputs = {"latency", "time", "figure", "kv"};
  static const std::set<std::string> kDescriptive = {"first_divergence_step", "near_ties"};
  // cpu_*: the CPU reference's own error against the float64 reference
  // (the yardstick), recorded to set the device's limit; a change there
  // is the CPU's (another BLAS), never the device getting worse.
  return kNotAccuracyOutputs.count(output) == 0 && kDescriptive.count(name) == 0 && name.rfind("cpu_", 0) != 0;
}

std::vector<double> WallRoundValues(const CaseResult& r) { return RoundValuesOf(r, r.wall_us); }

bool JudgeUnqueued(const CaseResult& base, const CaseResult& cand) {
  return base.HasQueueWait() && cand.HasQueueWait();
}

std::vector<double> LatencySamples(const CaseResult& r, bool unqueued) {
  return unqueued && r.HasQueueWait() ? r.UnqueuedUs() : r.wall_us;
}

std::vector<double> RoundValuesOf(const CaseResult& r, const std::vector<double>& samples) {
  const std::optional<std::vector<size_t>> sizes = RoundSizes(r.extra, samples.size());
  if (!sizes) return {};
  std::vector<double> values;
  size_t at = 0;
  for (size_t n : *sizes) {
    const auto begin = samples.begin() + static_cast<long>(at);
    values.push_back(Median(std::vector<double>(begin, begin + static_cast<long>(n))));
    at += n;
  }
  return values;
}

namespace {

std::vector<double> Numbers(const nlohmann::json& j) {
  std::vector<double> out;
  if (!j.is_array()) return out;
  for (const nlohmann::json& x : j) {
    if (x.is_number() && x.get<double>() > 0) out.push_back(x.get<double>());
  }
  return out;
}

std::map<std::string, std::vector<double>> OpNumbers(const nlohmann::json& j) {
  std::map<std::string, std::vector<double>> out;
  if (!j.is_object()) return out;
  for (const auto& [op, values] : j.items()) out[op] = Numbers(values);
  return out;
}

}  // namespace

std::optional<WallConfirmation> ReadWallConfirmation(const CaseResult& r) {
  auto it = r.extra.find("confirm");
  if (it == r.extra.end() || !it->is_object()) return std::nullopt;
  WallConfirmation c;
  c.baseline_run_id = it->value("baseline_run", int64_t{0});
  c.unqueued = it->value("metric", std::string("wall_us")) == "unqueued_us";
  c.paired = it->value("paired", false);
  c.samples = it->value("samples", 0);
  c.max_rounds = it->value("max_rounds", 0);
  c.values = Numbers(it->value("values", nlohmann::json()));
  c.baseline_values = Numbers(it->value("baseline_values", nlohmann::json()));
  c.op_wall = OpNumbers(it->value("op_wall_us", nlohmann::json()));
  c.baseline_op_wall = OpNumbers(it->value("baseline_op_wall_us", nlohmann::json()));
  if (c.values.empty()) return std::nullopt;
  return c;
}

ConfirmTest TestConfirmation(const std::vector<double>& base, const std::vector<double>& cand,
                             bool paired) {
  ConfirmTest out;
  if (paired) {
    const std::vector<double> d = PairLogRatios(base, cand);
    // Paired sides of different lengths are not pairs.
    out.usable = base.size() == cand.size() && d.size() >= 3;
    if (!out.usable) return out;
    const PairedShift t = PairedShiftTest(d);
    out.p = t.p_value;
    out.shift = t.estimate;
    return out;
  }
  const std::vector<double> a = detect_rules::LogsOf(base), b = detect_rules::LogsOf(cand);
  out.usable = a.size() >= 3 && b.size() >= 3;
  if (!out.usable) return out;
  out.p = MannWhitneyU(a, b).p_value;
  // The estimate does not depend on the interval's level.
  out.shift = HodgesLehmannShift(a, b, 0.05).estimate;
  return out;
}

double RelativeConfirmP(const WallConfirmation& c, const ThresholdValues& v) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  const bool paired = c.paired && c.baseline_values.size() == c.values.size();
  const ConfirmTest t = TestConfirmation(c.baseline_values, c.values, paired);
  if (!t.usable || std::fabs(t.shift) < std::log1p(v.wall_min_effect)) return kNever;
  const double gap = std::exp(Median(detect_rules::LogsOf(c.values))) -
                     std::exp(Median(detect_rules::LogsOf(c.baseline_values)));
  if (std::fabs(gap) < v.wall_min_abs_us) return kNever;
  return t.p / v.wall_confirm_alpha;
}

double SharedConfirmScale(std::vector<double> relative_p) {
  constexpr double kFamily = 10;
  const double n = static_cast<double>(relative_p.size());
  if (n <= kFamily) return 1;
  std::sort(relative_p.begin(), relative_p.end());
  double k = 0;
  for (size_t j = 1; j <= relative_p.size(); ++j) {
    if (relative_p[j - 1] <= std::max(kFamily, static_cast<double>(j)) / n) {
      k = static_cast<double>(j);
    }
  }
  return std::min(1.0, std::max(kFamily, k) / n);
}

nlohmann::json WallConfirmationJson(const WallConfirmation& c) {
  return {{"baseline_run", c.baseline_run_id},
          {"metric", c.unqueued ? "unqueued_us" : "wall_us"},
          {"values", c.values},
          {"baseline_values", c.baseline_values},
          {"op_wall_us", c.op_wall},
          {"baseline_op_wall_us", c.baseline_op_wall},
          {"paired", c.paired},
          {"samples", c.samples},
          {"max_rounds", c.max_rounds}};
}

namespace {

// A result `run` did not time (a parity-only case: runner/run.h).
bool ParityOnly(const CaseResult& r) {
  const auto it = r.extra.find("latency");
  return r.wall_us.empty() && it != r.extra.end() && it->is_string() &&
         it->get<std::string>().rfind("not judged", 0) == 0;
}

// A result whose timing rounds `prune` dropped (its oldest tier).
bool RoundsPruned(const CaseResult& r) {
  const auto it = r.extra.find("rounds");
  return r.wall_us.empty() && it != r.extra.end() && it->is_object() &&
         it->value("values_dropped", false);
}

}  // namespace

Comparison CompareRuns(const RunRecord& baseline, const RunRecord& candidate,
                       const Thresholds& thresholds) {
  Comparison c;
  c.baseline_run = baseline;
  c.baseline_run.cases.clear();
  c.candidate_run = candidate;
  c.candidate_run.cases.clear();
  c.env_diff = DiffEnvironments(baseline.env, candidate.env);
  std::map<std::pair<std::string, std::string>, const CaseResult*> base_cases;
  for (const CaseResult& r : baseline.cases) base_cases[{r.suite, r.case_id}] = &r;
  // Golden files are not in the fingerprint (read per case); each case
  // records its file's digest, and files that differ are a change of the
  // test's inputs as a changed suite file is.
  {
    size_t with_digest = 0, changed = 0;
    for (const CaseResult& cand : candidate.cases) {
      const auto it = base_cases.find({cand.suite, cand.case_id});
      if (it == base_cases.end()) continue;
      const std::string b = it->second->extra.value("golden_digest", ""), k = cand.extra.value("golden_digest", "");
      if (b.empty() || k.empty()) continue;
      ++with_digest;
      if (b != k) ++changed;
    }
    if (changed > 0) {
      c.env_diff.push_back({"golden", std::to_string(with_digest) + " golden file(s)",
                            std::to_string(changed) + " of them with other contents", true});
    }
  }
  size_t parity_only = 0, rounds_pruned = 0;
  // The cases confirmed beside this baseline's configuration share one level.
  std::vector<double> relative_p;
  for (const CaseResult& cand : candidate.cases) {
    if (base_cases.count({cand.suite, cand.case_id}) == 0) continue;
    const std::optional<WallConfirmation> conf = ReadWallConfirmation(cand);
    if (!conf || conf->baseline_run_id != baseline.run_id || conf->baseline_values.size() < 3) {
      continue;
    }
    relative_p.push_back(RelativeConfirmP(*conf, thresholds.For(cand.suite, cand.case_id)));
  }
  const size_t confirmed = relative_p.size();
  const double confirm_scale = SharedConfirmScale(std::move(relative_p));
  for (const CaseResult& cand : candidate.cases) {
    auto it = base_cases.find({cand.suite, cand.case_id});
    if (it == base_cases.end()) continue;
    const std::string key = cand.suite + "/" + cand.case_id;
    detect_rules::CaseHistory h;
    h.confirmed_in_run = confirmed;
    h.confirm_scale = confirm_scale;
    auto noise = baseline.wall_run_sigma.find(key);
    if (noise != baseline.wall_run_sigma.end()) h.run_sigma = noise->second;
    auto medians = baseline.wall_run_medians.find(key);
    if (medians != baseline.wall_run_medians.end()) h.medians = &medians->second;
    auto ops = baseline.op_run_wall.find(key);
    if (ops != baseline.op_run_wall.end()) h.op_wall = &ops->second;
    auto unq_noise = baseline.unqueued_run_sigma.find(key);
    if (unq_noise != baseline.unqueued_run_sigma.end()) h.unqueued_sigma = unq_noise->second;
    auto count = baseline.wall_run_count.find(key);
    if (count != baseline.wall_run_count.end()) h.run_count = count->second;
    auto unq_count = baseline.unqueued_run_count.find(key);
    if (unq_count != baseline.unqueued_run_count.end()) h.unqueued_count = unq_count->second;
    auto unq = baseline.unqueued_run_medians.find(key);
    if (unq != baseline.unqueued_run_medians.end()) h.unqueued_medians = &unq->second;
    detect_rules::CompareCase(*it->second, cand, thresholds.For(cand.suite, cand.case_id), h, &c);
    if (ParityOnly(cand) || ParityOnly(*it->second)) ++parity_only;
    if (RoundsPruned(cand) || RoundsPruned(*it->second)) ++rounds_pruned;
  }
  // Never a silent gap: cases whose wall time was not measured on a side
  // got no latency verdict, and the comparison says so.
  if (rounds_pruned > 0) {
    c.notes.push_back("wall time not judged for " + std::to_string(rounds_pruned) +
                      " case(s): their timing rounds were pruned (older than prune "
                      "--keep-rounds); their medians stay in history");
  }
  if (parity_only > 0) {
    c.notes.push_back("wall time not judged for " + std::to_string(parity_only) +
                      " case(s): parity only, run once in the candidate or the baseline "
                      "(not marked for latency; run --latency all times them)");
  }
  auto order = [](const Finding& a, const Finding& b) {
    return std::tie(a.suite, a.case_id, a.kind) < std::tie(b.suite, b.case_id, b.kind);
  };
  std::sort(c.regressions.begin(), c.regressions.end(), order);
  RankFindings(&c.regressions);  // grouped, the largest effect first
  std::sort(c.improvements.begin(), c.improvements.end(), order);
  return c;
}

namespace {

nlohmann::json Number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

nlohmann::json BlamedOpsJson(const std::vector<BlamedOp>& ops) {
  nlohmann::json out = nlohmann::json::array();
  for (const BlamedOp& b : ops) {
    out.push_back({{"op", b.op}, {"delta", Number(b.delta)}, {"unit", b.unit}});
  }
  return out;
}

nlohmann::json RunJson(const RunRecord& r) {
  return {{"run_id", r.run_id}, {"suite", r.suite}, {"label", r.label}, {"env", r.env}};
}

}  // namespace

nlohmann::json FindingToJson(const Finding& f) {
  return {{"suite", f.suite},
          {"case", f.case_id},
          {"kind", FindingKindName(f.kind)},
          {"metric", f.metric},
          {"baseline", Number(f.baseline)},
          {"candidate", Number(f.candidate)},
          {"ratio", Number(f.ratio)},
          {"unit", f.kind == FindingKind::kStatus ? "status rank" : MetricUnit(f.metric)},
          {"statistic", f.statistic},
          {"figures", FindingFigures(f)},
          {"summary", FindingSummary(f)},
          {"detail", f.detail},
          {"blamed_ops", BlamedOpsJson(f.blamed_ops)},
          {"env_cause", f.env_cause},
          {"cause", f.cause.empty() ? nlohmann::json()
                                    : nlohmann::json{{"verdict", f.cause_verdict}, {"text", f.cause}}}};
}

nlohmann::json ToJson(const Comparison& c) {
  nlohmann::json j;
  j["baseline"] = RunJson(c.baseline_run);
  j["candidate"] = RunJson(c.candidate_run);
  j["env_diff"] = nlohmann::json::array();
  for (const EnvChange& e : c.env_diff) {
    j["env_diff"].push_back({{"component", e.component}, {"baseline", e.baseline},
                             {"candidate", e.candidate}, {"upstream", e.upstream}});
  }
  j["regressions"] = nlohmann::json::array();
  for (const Finding& f : c.regressions) j["regressions"].push_back(FindingToJson(f));
  j["regressed_cases"] = RegressedCases(c.regressions);
  j["groups"] = nlohmann::json::array();
  for (const FindingGroup& g : GroupFindings(c.regressions)) {
    j["groups"].push_back({{"kind", FindingKindName(g.kind)},
                           {"op", g.op},
                           {"cases", g.cases},
                           {"findings", g.members},
                           {"low_ratio", Number(g.low)},
                           {"high_ratio", Number(g.high)},
                           {"headline", g.headline}});
  }
  j["improvements"] = nlohmann::json::array();
  for (const Finding& f : c.improvements) j["improvements"].push_back(FindingToJson(f));
  j["attribution"] = Attribution(c);
  j["notes"] = c.notes;
  j["power"] = nlohmann::json::array();
  for (const WallPower& w : c.power) {
    j["power"].push_back({{"suite", w.suite},
                          {"case", w.case_id},
                          {"detectable", Number(w.detectable)},
                          {"basis", w.basis},
                          {"values", w.values}});
  }
  return j;
}

}  // namespace harness
