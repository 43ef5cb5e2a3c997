#include "compare_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "harness/host_probe.h"
#include "harness/stats.h"

namespace harness::detect_rules {
namespace {

// Worse-to-better order of statuses; skipped is not comparable.
int Severity(CaseStatus s) {
  switch (s) {
    case CaseStatus::kPassed: return 0;
    case CaseStatus::kFailed: return 1;
    case CaseStatus::kError: return 2;
    case CaseStatus::kTimeout: return 3;
    case CaseStatus::kCrashed: return 4;
    case CaseStatus::kSkipped: return -1;
  }
  return -1;
}

bool HasOutputs(const CaseResult& r) {
  return r.status == CaseStatus::kPassed || r.status == CaseStatus::kFailed;
}

std::string Fmt(const char* format, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), format, a, b, c);
  return buf;
}

double Ratio(double cand, double base) {
  return base != 0 && std::isfinite(base) ? cand / base : std::nan("");
}

Finding Make(const CaseResult& cand, FindingKind kind, const std::string& metric, double base_value,
             double cand_value, std::string detail) {
  Finding f;
  f.suite = cand.suite;
  f.case_id = cand.case_id;
  f.kind = kind;
  f.metric = metric;
  f.baseline = base_value;
  f.candidate = cand_value;
  f.ratio = Ratio(cand_value, base_value);
  f.detail = std::move(detail);
  return f;
}

struct AccuracyPoint {
  std::string metric;
  std::string name;
  double base;
  double cand;
};

std::vector<AccuracyPoint> AccuracyPoints(const CaseResult& base, const CaseResult& cand) {
  std::vector<AccuracyPoint> points;
  std::map<std::string, const Metric*> by_key;
  for (const Metric& m : base.metrics) by_key[m.output + "/" + m.name] = &m;
  for (const Metric& m : cand.metrics) {
    if (!IsAccuracyMetric(m.output, m.name)) continue;
    auto it = by_key.find(m.output + "/" + m.name);
    if (it == by_key.end()) continue;
    std::string metric = m.output.empty() ? m.name : m.output + "/" + m.name;
    points.push_back({metric, m.name, it->second->value, m.value});
  }
  if (!points.empty()) return points;
  // No per-output metrics: use the worst-over-outputs summary values.
  for (auto [name, b, c] : {std::tuple{"max_abs_err", base.max_abs_err, cand.max_abs_err},
                            {"max_rel_err", base.max_rel_err, cand.max_rel_err},
                            {"rel_l2", base.rel_l2, cand.rel_l2},
                            {"max_ulp", base.max_ulp, cand.max_ulp},
                            {"cosine", base.cosine, cand.cosine}}) {
    points.push_back({name, name, b, c});
  }
  return points;
}

// > 0: worse by that relative amount; < 0: better; 0: within the margins.
double AccuracyChange(const AccuracyPoint& p, const ThresholdValues& v) {
  bool nb = std::isnan(p.base), nc = std::isnan(p.cand);
  if (nb && nc) return 0;
  if (nc) return INFINITY;  // a metric that turned NaN is a worse result
  if (nb) return -INFINITY;
  // Express both as errors (smaller is better).
  double b = HigherIsBetter(p.name) ? 1 - p.base : p.base;
  double c = HigherIsBetter(p.name) ? 1 - p.cand : p.cand;
  double abs_margin = p.name == "max_ulp" ? v.ulp_margin : v.accuracy_abs_margin;
  double diff = c - b;
  if (std::fabs(diff) < abs_margin || std::fabs(diff) <= v.accuracy_rel_margin * std::fabs(b)) return 0;
  return b != 0 ? diff / std::fabs(b) : std::copysign(INFINITY, diff);
}

void CompareAccuracy(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v,
                     Comparison* out) {
  const AccuracyPoint* worst = nullptr;
  const AccuracyPoint* best = nullptr;
  double worst_change = 0, best_change = 0;
  int worse_count = 0;
  std::vector<AccuracyPoint> points = AccuracyPoints(base, cand);
  for (const AccuracyPoint& p : points) {
    double change = AccuracyChange(p, v);
    if (change > 0) ++worse_count;
    if (change > worst_change) { worst_change = change; worst = &p; }
    if (change < best_change) { best_change = change; best = &p; }
  }
  // One finding per case and direction: the metric that moved most speaks for the rest.
  if (worst != nullptr) {
    std::string detail = worst->metric + " worsened from " + Fmt("%.4g to %.4g", worst->base, worst->cand);
    if (worse_count > 1) detail += Fmt(" (%g metrics worse)", worse_count);
    if (cand.status == CaseStatus::kPassed) detail += ", still inside tolerance";
    out->regressions.push_back(Make(cand, FindingKind::kAccuracy, worst->metric, worst->base, worst->cand, detail));
  } else if (best != nullptr) {
    out->improvements.push_back(Make(cand, FindingKind::kAccuracy, best->metric, best->base, best->cand,
                                     best->metric + " improved from " + Fmt("%.4g to %.4g", best->base, best->cand)));
  }
}

void CompareModeled(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v,
                    Comparison* out) {
  if (!(base.modeled_us > 0) || !std::isfinite(cand.modeled_us)) return;
  double change = cand.modeled_us / base.modeled_us - 1;
  if (std::fabs(change) <= v.modeled_latency) return;
  Finding f = Make(cand, FindingKind::kModeledLatency, "modeled_us", base.modeled_us, cand.modeled_us,
                   Fmt("modeled device time %+.2f%% (%.3f -> %.3f us)", 100 * change, base.modeled_us,
                       cand.modeled_us));
  if (change > 0) {
    f.blamed_ops = BlameOps(base, cand, /*modeled=*/true, 3);
    if (!f.blamed_ops.empty()) f.detail += "; grew most: " + f.blamed_ops.front();
    out->regressions.push_back(f);
  } else {
    out->improvements.push_back(f);
  }
}

std::vector<double> Logs(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v) if (x > 0 && std::isfinite(x)) out.push_back(std::log(x));
  return out;
}

// The part of the history's run-to-run spread (of log run medians) that the
// rounds do not already explain: a median of n round values with spread s
// varies by about sqrt(pi/2) s / sqrt(n) from run to run by itself, and the
// test on the rounds has accounted for that. What remains is drift between
// nights (another host, another neighbour) that no single run can sample.
double ExcessSpread(double run_sigma, const std::vector<double>& a, const std::vector<double>& b) {
  const double s = 0.5 * (RobustSigma(a) + RobustSigma(b));
  const double n = 0.5 * static_cast<double>(a.size() + b.size());
  const double explained = M_PI / 2 * s * s / n;
  return std::sqrt(std::max(0.0, run_sigma * run_sigma - explained));
}

void CompareWall(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v, double run_sigma,
                 Comparison* out) {
  // Both runs timed in enough rounds: one value per worker process, so the
  // samples carry the process-to-process variance (runner/timing_rounds.h).
  const std::vector<double> base_rounds = WallRoundValues(base),
                            cand_rounds = WallRoundValues(cand);
  const bool rounds = static_cast<int>(base_rounds.size()) >= v.wall_min_rounds &&
                      static_cast<int>(cand_rounds.size()) >= v.wall_min_rounds;
  std::vector<double> a = Logs(rounds ? base_rounds : base.wall_us);
  std::vector<double> b = Logs(rounds ? cand_rounds : cand.wall_us);
  if (a.empty() || b.empty()) return;
  // A slower host slows the case and the probe alike (harness/host_probe.h):
  // judge the candidate's samples as if they ran at the baseline's speed.
  const double pb = HostProbeUs(base), pc = HostProbeUs(cand);
  const double host = std::isfinite(pb) && std::isfinite(pc) ? std::log(pc / pb) : 0;
  for (double& x : b) x -= host;
  const std::string host_note =
      std::fabs(host) >= 0.005 ? Fmt(", corrected for host speed (probe %+.1f%%)", 100 * std::expm1(host)) : "";
  double mb = std::exp(Median(a)), mc = std::exp(Median(b));
  if (static_cast<int>(a.size()) < v.wall_min_samples || static_cast<int>(b.size()) < v.wall_min_samples) {
    if (std::fabs(mc / mb - 1) > v.wall_min_effect) {
      out->notes.push_back(cand.suite + "/" + cand.case_id + ": wall time " + Fmt("%+.1f%%", 100 * (mc / mb - 1)) +
                           " but not enough samples for a verdict" +
                           Fmt(" (%g and %g, need %g)", double(a.size()), double(b.size()), v.wall_min_samples));
    }
    return;
  }
  // Microsecond kernels timed inside one process: scheduler and timer jitter
  // on a shared host is larger than any shift worth reporting. Round values
  // carry that jitter in their spread, and the test sees it.
  if (!rounds && std::fabs(mc - mb) < v.wall_min_abs_us) return;
  MannWhitneyResult mw = MannWhitneyU(a, b);
  if (mw.p_value >= v.wall_alpha) return;
  // The shift must plausibly reach the minimum effect: the confidence bound
  // on the far side of the estimate crosses it.
  ShiftEstimate shift = HodgesLehmannShift(a, b, v.wall_alpha);
  double threshold = std::log1p(v.wall_min_effect);
  bool slower = shift.estimate > 0 && shift.upper >= threshold;
  bool faster = shift.estimate < 0 && shift.lower <= -threshold;
  if (!slower && !faster) return;
  // Samples from one process: separate runs differ by more than they show,
  // so the shift must stand out of the run-to-run spread as well, learned
  // from history or, without enough history, the configured prior. Round
  // values have sampled the processes: only the excess spread applies.
  const bool learned = std::isfinite(run_sigma);
  const double sigma = rounds ? (learned ? ExcessSpread(run_sigma, a, b) : 0)
                              : (learned ? run_sigma : v.wall_noise_prior);
  if (sigma > 0 && std::fabs(shift.estimate) <= v.wall_noise_k * sigma) {
    out->notes.push_back(
        cand.suite + "/" + cand.case_id + ": wall time " +
        Fmt("%+.1f%% is within %g x ", 100 * std::expm1(shift.estimate), v.wall_noise_k) +
        (rounds    ? "its run-to-run spread beyond the rounds'"
         : learned ? "its run-to-run spread"
                   : "the assumed run-to-run spread (wall_noise_prior)") +
        Fmt(" (%.1f%%)", 100 * sigma) + host_note);
    return;
  }
  Finding f = Make(cand, FindingKind::kLatency, "wall_us_median", mb,
                   std::exp(Median(Logs(rounds ? cand_rounds : cand.wall_us))),
                   Fmt("wall time %+.1f%% (Hodges-Lehmann), Mann-Whitney p = %.2g",
                       100 * std::expm1(shift.estimate), mw.p_value) +
                       host_note);
  if (slower) {
    f.blamed_ops = BlameOps(base, cand, /*modeled=*/false, 3);
    if (!f.blamed_ops.empty()) f.detail += "; grew most: " + f.blamed_ops.front();
    out->regressions.push_back(f);
  } else {
    out->improvements.push_back(f);
  }
}

void CompareCounts(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v,
                   Comparison* out) {
  double extra = static_cast<double>(cand.fallback_ops - base.fallback_ops);
  if (extra > v.fallback) {
    Finding f = Make(cand, FindingKind::kFallback, "fallback_ops", double(base.fallback_ops),
                     double(cand.fallback_ops), Fmt("%g more CPU-fallback calls", extra));
    std::map<std::string, int64_t> before;
    for (const OpSummary& o : base.ops) before[o.op] = o.fallbacks;
    for (const OpSummary& o : cand.ops) {
      if (o.fallbacks > before[o.op]) f.blamed_ops.push_back(o.op);
    }
    if (!f.blamed_ops.empty()) f.detail += "; now falling back: " + f.blamed_ops.front();
    out->regressions.push_back(f);
  } else if (extra < 0) {
    out->improvements.push_back(Make(cand, FindingKind::kFallback, "fallback_ops", double(base.fallback_ops),
                                     double(cand.fallback_ops), Fmt("%g fewer CPU-fallback calls", -extra)));
  }
  double pb = double(base.peak_device_bytes), pc = double(cand.peak_device_bytes);
  if (pb > 0 && pc > pb * (1 + v.memory)) {
    out->regressions.push_back(Make(cand, FindingKind::kMemory, "peak_device_bytes", pb, pc,
                                    Fmt("peak device memory %+.2f%% (%.0f -> %.0f bytes)", 100 * (pc / pb - 1), pb, pc)));
  } else if (pb > 0 && pc < pb) {
    out->improvements.push_back(Make(cand, FindingKind::kMemory, "peak_device_bytes", pb, pc,
                                     Fmt("peak device memory %+.2f%%", 100 * (pc / pb - 1))));
  }
}

// Returns true when the golden outputs differ, so accuracy is not comparable.
bool CompareGolden(const CaseResult& base, const CaseResult& cand, Comparison* out) {
  std::string gb = base.extra.value("golden_digest", ""), gc = cand.extra.value("golden_digest", "");
  if (gb.empty() || gc.empty() || gb == gc) return false;
  Finding f = Make(cand, FindingKind::kGoldenDrift, "golden_digest", 0, 0,
                   "golden outputs changed between the runs (" + gb.substr(0, 12) + " -> " + gc.substr(0, 12) +
                   "); accuracy is not comparable");
  f.ratio = std::nan("");
  out->regressions.push_back(f);
  return true;
}

}  // namespace

std::vector<std::string> BlameOps(const CaseResult& base, const CaseResult& cand, bool modeled, size_t limit) {
  std::map<std::string, double> before;
  for (const OpSummary& o : base.ops) before[o.op] = modeled ? o.modeled_us : o.wall_us;
  std::vector<std::pair<double, std::string>> growth;
  for (const OpSummary& o : cand.ops) {
    double d = (modeled ? o.modeled_us : o.wall_us) - before[o.op];
    if (d > 0) growth.emplace_back(d, o.op);
  }
  std::sort(growth.rbegin(), growth.rend());
  std::vector<std::string> out;
  for (size_t i = 0; i < growth.size() && i < limit; ++i) {
    out.push_back(growth[i].second + Fmt(" (+%.3f us)", growth[i].first));
  }
  return out;
}

void CompareCase(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v, double run_sigma,
                 Comparison* out) {
  int sb = Severity(base.status), sc = Severity(cand.status);
  if (sb >= 0 && sc >= 0 && sb != sc) {
    std::string detail = std::string(CaseStatusName(base.status)) + " -> " + CaseStatusName(cand.status);
    if (!cand.message.empty()) detail += ": " + cand.message;
    Finding f = Make(cand, FindingKind::kStatus, "status", sb, sc, detail);
    f.ratio = std::nan("");
    (sc > sb ? out->regressions : out->improvements).push_back(f);
  }
  if (!HasOutputs(base) || !HasOutputs(cand)) return;
  if (!CompareGolden(base, cand, out)) CompareAccuracy(base, cand, v, out);
  CompareModeled(base, cand, v, out);
  CompareWall(base, cand, v, run_sigma, out);
  CompareCounts(base, cand, v, out);
}

}  // namespace harness::detect_rules
