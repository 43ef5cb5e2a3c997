#include "runner/confirm.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "detect/detect.h"
#include "detect/history.h"
#include "base/stats.h"
#include "runner/zygote.h"

namespace harness::runner_internal {
namespace {

using CaseKey = std::pair<std::string, std::string>;

// One value per process and per op, from the results of one worker.
struct ProcessValues {
  std::vector<double> values;
  int samples = 0;  // the fewest samples of one process
  bool unqueued = true;  // every value is a median of wall time less run-queue wait
  std::map<std::string, std::vector<double>> op_wall;
};

// Seconds with `decimals` digits after the point, as printf's %.Nf writes them.
std::string Seconds(double s, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, s);
  return text;
}

bool Timed(const CaseResult& r) {
  return (r.status == CaseStatus::kPassed || r.status == CaseStatus::kFailed) &&
         !r.wall_us.empty();
}

void AddProcessValue(const CaseResult& r, ProcessValues* side) {
  // Wall time less the run-queue wait where the worker read it: a fresh
  // process on a loaded host waits for a CPU for a varying share of its
  // samples, which says nothing about the case (docs/detection.md).
  side->unqueued = side->unqueued && r.HasQueueWait();
  const int n = static_cast<int>(r.wall_us.size());
  side->samples = side->values.empty() ? n : std::min(side->samples, n);
  side->values.push_back(r.HasQueueWait() ? Median(r.UnqueuedUs()) : Median(r.wall_us));
}

// `base_sides` non-null: the items are paired (WorkItem::paired), and each
// result carries the baseline's timing from the same process; a pair is
// kept whole or not at all, so that value i of both sides (and of each op
// both sides timed) comes from process i.
Status TimeOneRound(const std::vector<WorkItem>& items, const SupervisorOptions& options,
                std::map<CaseKey, ProcessValues>* sides, std::map<CaseKey, ProcessValues>* base_sides,
                ConfirmOutcome* out) {
  RecordFn keep = [&](const CaseResult& r) -> Status {
    if (!Timed(r)) return Status::Ok();
    ProcessValues& side = (*sides)[{r.suite, r.case_id}];
    if (base_sides == nullptr) {
      AddProcessValue(r, &side);
      for (const OpSummary& o : r.ops) side.op_wall[o.op].push_back(o.wall_us);
      return Status::Ok();
    }
    const auto paired = r.extra.find("paired_baseline");
    if (paired == r.extra.end()) return Status::Ok();
    StatusOr<CaseResult> b = CaseResultFromJson(*paired);
    if (!b.ok() || !Timed(*b)) return Status::Ok();
    ProcessValues& base = (*base_sides)[{r.suite, r.case_id}];
    AddProcessValue(r, &side);
    AddProcessValue(*b, &base);
    std::map<std::string, double> base_ops;
    for (const OpSummary& o : b->ops) base_ops[o.op] = o.wall_us;
    for (const OpSummary& o : r.ops) {
      auto it = base_ops.find(o.op);
      if (it == base_ops.end()) continue;
      side.op_wall[o.op].push_back(o.wall_us);
      base.op_wall[o.op].push_back(it->second);
    }
    return Status::Ok();
  };
  SPYRE_ASSIGN_OR_RETURN(auto outcome, RunCases(items, options, keep, nullptr));
  out->workers_started += outcome.workers_started;
  out->workers_preloaded += outcome.workers_preloaded;
  if (outcome.interrupted) {
    out->interrupted = true;
    out->signal_number = outcome.signal_number;
  }
  return Status::Ok();
}

// The two fault specs when injected faults are all that tells the baseline's
// environment from the candidate's (how many workers ran at once aside).
std::optional<WorkItem::Paired> PairedFaults(const nlohmann::json& base_env,
                                             const nlohmann::json& cand_env) {
  for (const EnvChange& e : DiffEnvironments(base_env, cand_env)) {
    if (e.component != "faults" && e.component != "jobs") return std::nullopt;
  }
  const auto spec = [](const nlohmann::json& env) -> std::optional<std::string> {
    const auto it = env.find("faults");
    if (it == env.end()) return std::nullopt;
    return it->is_string() ? it->get<std::string>() : it->dump();
  };
  const auto b = spec(base_env), c = spec(cand_env);
  if (!b || !c) return std::nullopt;
  return WorkItem::Paired{*b, *c, false};
}

std::vector<double> Logs(const std::vector<double>& v) {
  std::vector<double> out;
  for (double x : v) {
    if (x > 0 && std::isfinite(x)) out.push_back(std::log(x));
  }
  return out;
}

// Round values that do not rule out a change of half wall_min_effect
// either way: the Hodges-Lehmann shift's 90% interval reaches that far (a
// case that looks changed, Mann-Whitney p < 0.1 with a shift of at least
// the minimum, always does). Half, because rounds of two nights are also
// apart by how far the machine moved between them, which can put a real
// change of more than the minimum inside it. On a quiet host ten rounds a side pin a
// case within a few per cent and only the cases near or past the line are
// re-timed; on a loaded one rounds move a case by 10-20% and every case is
// (most stop after four pairs, plainly unchanged): a screen as tight as the
// verdict would let a 5-10% shift through unseen.
bool RoundsSuspect(const std::vector<double>& base_rounds, const std::vector<double>& cand_rounds,
                   const ThresholdValues& v) {
  const std::vector<double> a = Logs(base_rounds), b = Logs(cand_rounds);
  if (a.size() < 3 || b.size() < 3) return false;
  const ShiftEstimate s = HodgesLehmannShift(a, b, 0.1);
  const double line = std::log1p(v.wall_min_effect) / 2;
  return s.upper >= line || s.lower <= -line;
}

}  // namespace

bool SidesCompletelyApart(const std::vector<double>& base_values,
                          const std::vector<double>& cand_values, bool paired) {
  if (base_values.empty() || cand_values.empty()) return false;
  if (paired) {
    // Every process saw the same side slower.
    if (base_values.size() != cand_values.size()) return false;
    int slower = 0;
    for (size_t i = 0; i < base_values.size(); ++i) {
      slower += cand_values[i] > base_values[i] ? 1 : cand_values[i] < base_values[i] ? -1 : 0;
    }
    return static_cast<size_t>(std::abs(slower)) == base_values.size();
  }
  const auto [base_lo, base_hi] = std::minmax_element(base_values.begin(), base_values.end());
  const auto [cand_lo, cand_hi] = std::minmax_element(cand_values.begin(), cand_values.end());
  return *base_hi < *cand_lo || *cand_hi < *base_lo;
}

double ConfirmBudget(double budget_s, double first_round_s, int rounds) {
  constexpr double kMargin = 1.15, kMaxFactor = 4;
  const double needed = first_round_s * rounds * kMargin;
  return std::min(std::max(budget_s, needed), budget_s * kMaxFactor);
}

namespace {

// The pairs' log ratios put the change inside wall_min_effect either way:
// their mean's 90% interval (Student t) lies within it. At least four pairs.
bool PairsBoundedInside(const std::vector<double>& base_values,
                        const std::vector<double>& cand_values, const ThresholdValues& v) {
  constexpr size_t kMinPairs = 4;
  constexpr double kOneSided = 0.95;
  const std::vector<double> d = PairLogRatios(base_values, cand_values);
  if (d.size() < kMinPairs || base_values.size() != cand_values.size()) return false;
  const double n = static_cast<double>(d.size());
  const double half = StudentTQuantile(kOneSided, n - 1) * std::sqrt(Variance(d) / n);
  return std::fabs(Mean(d)) + half < std::log1p(v.wall_min_effect);
}

}  // namespace

// Futile: after kFutilityRounds pairs the two sets overlap so much (p >= 0.5)
// and the estimate is so far inside the minimum effect that no reachable
// number of processes would confirm the case; most unchanged suspects stop
// there. Paired processes: a clear change (p below the level, an estimate
// of at least the minimum effect) stops there too, since the t-test of the
// pairs' log ratios can reach the level from four pairs, where a rank test
// between two sets needs seven a side. And a paired case whose change is
// bounded inside the minimum effect (the pairs' 90% interval, Student t,
// lies within it either way) stops there as plainly unchanged: a change of
// the minimum would show such an interval one time in twenty at most, and a
// change large enough to be found (its detectable size, docs/detection.md)
// far less often. Below min_rounds every other case goes on. From there a case stops
// when the evidence is clear (p < wall_confirm_alpha) or its estimated change
// is smaller than wall_min_effect (no finding could come of it); a case whose
// estimate is a finding's size but whose sets still overlap goes on, however
// high its p-value: on a loaded host seven processes a side of a case slowed
// by 40% can overlap at p = 0.2 and separate at eleven.
ConfirmStep NextConfirmStep(const std::vector<double>& base_values,
                            const std::vector<double>& cand_values, int round, int min_rounds,
                            const ThresholdValues& v, bool paired) {
  constexpr int kFutilityRounds = 4;
  constexpr double kFutilityP = 0.5;
  const ConfirmTest t = TestConfirmation(base_values, cand_values, paired);
  if (!t.usable) return round < min_rounds ? ConfirmStep::kMore : ConfirmStep::kDecided;
  const double p = t.p, shift = t.shift;
  if (round >= kFutilityRounds && p >= kFutilityP &&
      std::fabs(shift) < std::log1p(v.wall_min_effect)) {
    return ConfirmStep::kFutile;
  }
  const bool clear = p < v.wall_confirm_alpha && std::fabs(shift) >= std::log1p(v.wall_min_effect);
  if (paired && round >= kFutilityRounds && clear) return ConfirmStep::kDecided;
  if (paired && round >= kFutilityRounds && PairsBoundedInside(base_values, cand_values, v)) {
    return ConfirmStep::kFutile;
  }
  if (round < min_rounds) return ConfirmStep::kMore;
  if (p < v.wall_confirm_alpha) return ConfirmStep::kDecided;
  return std::fabs(shift) >= std::log1p(v.wall_min_effect) ? ConfirmStep::kMore
                                                           : ConfirmStep::kDecided;
}

namespace {

using ConfirmClock = std::chrono::steady_clock;
using ConfirmWorkerSettings = std::optional<std::map<std::string, std::string>>;

double ConfirmSecondsSince(ConfirmClock::time_point start) {
  return std::chrono::duration<double>(ConfirmClock::now() - start).count();
}

void ConfirmLogLine(const std::string& line, std::FILE* log) {
  if (log != nullptr) {
    std::fputs(line.c_str(), log);
    std::fflush(log);
  }
}

// The cases to re-time, in plan order, and the timed cases of the main pass
// they were picked from.
struct ConfirmSuspects {
  std::vector<WorkItem> items;
  std::vector<WorkItem> timed;
};

// `confirm_rounds`: the baseline's configuration can be timed beside this
// one, so cases whose rounds do not rule out a change are re-timed too.
// `every_case` (with it): every timed case is, suspect or not.
ConfirmSuspects PickConfirmSuspects(const std::vector<WorkItem>& plan_items,
                                    const std::map<CaseKey, const CaseResult*>& base_cases,
                                    const std::map<CaseKey, CaseResult*>& cand_cases,
                                    const Thresholds& thresholds, bool confirm_rounds,
                                    bool every_case) {
  every_case = every_case && confirm_rounds;
  ConfirmSuspects suspects;
  for (WorkItem item : plan_items) {
    auto cand = cand_cases.find({item.suite, item.case_id});
    auto b = base_cases.find({item.suite, item.case_id});
    if (cand == cand_cases.end() || b == base_cases.end()) continue;
    const ThresholdValues v = thresholds.For(item.suite, item.case_id);
    // Both sides already timed in enough rounds: the judge has its evidence,
    // unless the baseline's configuration can be timed beside this one.
    const std::vector<double> cand_rounds = WallRoundValues(*cand->second),
                              base_rounds = WallRoundValues(*b->second);
    if (static_cast<int>(cand_rounds.size()) >= v.wall_min_rounds &&
        static_cast<int>(base_rounds.size()) >= v.wall_min_rounds) {
      if (confirm_rounds && (every_case || RoundsSuspect(base_rounds, cand_rounds, v))) {
        item.judged = false;
        suspects.items.push_back(item);
      }
      continue;
    }
    if (static_cast<int>(cand->second->wall_us.size()) < v.wall_min_samples ||
        static_cast<int>(b->second->wall_us.size()) < v.wall_min_samples) {
      continue;  // not timed (parity only) or too few samples for any verdict
    }
    item.judged = false;  // re-timed only: the verdicts stand
    suspects.timed.push_back(item);
    if (every_case || WallSuspect(*b->second, *cand->second, v) ||
        ModeledMoved(*b->second, *cand->second, v)) {
      suspects.items.push_back(item);
    }
  }
  return suspects;
}

// When the main pass calls most timed cases suspects, its one process per
// side cannot tell the changed ones from the rest (on a loaded host a case
// slowed by a third went unflagged beside unchanged ones that were): every
// timed case is confirmed, and the plainly unchanged stop after four pairs.
bool ConfirmFlaggedTooManyToScreen(const ConfirmSuspects& s) {
  return s.items.size() < s.timed.size() && 2 * s.items.size() > s.timed.size();
}

std::string ConfirmScreenNote(const ConfirmSuspects& s) {
  return " (the main pass flagged " + std::to_string(s.items.size()) + " of " +
         std::to_string(s.timed.size()) + " timed cases, too many to screen by: all are re-timed)";
}

// How the rounds time the suspects: against the case's history, interleaved
// with the baseline's configuration, or paired with it in every process.
struct ConfirmDesign {
  ConfirmWorkerSettings settings;  // the baseline's worker settings; none: against history
  std::optional<WorkItem::Paired> paired;
  SupervisorOptions timing, baseline_timing;
  int min_rounds = 0, max_rounds = 0;

  bool Interleaved() const { return settings.has_value(); }
};

ConfirmDesign DesignConfirmation(const ConfirmSettings& confirm, const SupervisorOptions& options,
                                 const ConfirmWorkerSettings& settings,
                                 const nlohmann::json& base_env, const nlohmann::json& env) {
  ConfirmDesign d;
  d.settings = settings;
  // Faults are all that differs: both configurations are timed in every
  // process, one after the other (the device switches faults in place).
  d.paired = settings ? PairedFaults(base_env, env) : std::nullopt;
  d.timing = options;
  // Both sides in the same process, or in processes side by side in turn:
  // what a busy core does to one does it to the other, so they may share
  // the machine with each other. Against history, one at a time, as the
  // history was timed.
  d.timing.jobs = settings ? std::max(1, confirm.jobs) : 1;
  // More samples a side than the main pass takes, while they are short: a
  // process's value is their median, and the median of a few samples moves
  // with every preemption a loaded host deals out.
  if (confirm.repeat > 0) {
    d.timing.worker_argv.insert(d.timing.worker_argv.end(),
                                {"--min-repeat", std::to_string(confirm.repeat)});
  }
  d.baseline_timing = d.timing;
  if (settings) {
    for (const auto& [k, val] : *settings) {
      d.baseline_timing.worker_env[k] = val;
      // The baseline's workers load another BLAS or set it up otherwise:
      // they are exec'd, and so are the candidate's beside them.
      if (LoadTimeVariable(k)) d.timing.exec_workers = d.baseline_timing.exec_workers = true;
    }
  }
  d.min_rounds = confirm.rounds;
  d.max_rounds = std::max(confirm.rounds, confirm.max_rounds);
  return d;
}

std::string ConfirmPlanLine(const ConfirmDesign& d, const ConfirmSettings& confirm, int suspects,
                            const std::string& screen, int64_t baseline_run_id) {
  std::string plan_line = "confirming " + std::to_string(suspects) + " wall-time suspect(s)" +
                          screen + " in fresh processes, ";
  if (d.paired) {
    plan_line += "each timing baseline run " + std::to_string(baseline_run_id) +
                 "'s configuration and this run's in turn";
  } else if (d.settings) {
    plan_line +=
        "interleaved with baseline run " + std::to_string(baseline_run_id) + "'s configuration";
  } else {
    plan_line += "against their between-run history (the baseline's environment cannot be "
                 "re-created here)";
  }
  plan_line += ": " + std::to_string(d.min_rounds) + "-" + std::to_string(d.max_rounds) + " rounds";
  if (confirm.repeat > 0) {
    plan_line += " of up to " + std::to_string(confirm.repeat) + " samples a side";
  }
  plan_line += ", budget " + Seconds(confirm.budget_s, 0) + " s\n";
  return plan_line;
}

// What the rounds leave: one value per process and side for each case, and
// how the budget went.
struct ConfirmTimings {
  std::map<CaseKey, ProcessValues> cand_sides, base_sides;
  double budget = 0;
  bool over_budget = false;  // the budget ended the rounds or narrowed them
  bool past_budget = false;  // cases still completely apart went on past it
};

// The rounds of fresh processes: each times the pending cases on both
// sides, then the sequential rule (NextConfirmStep) drops the decided ones.
class ConfirmRounds {
 public:
  ConfirmRounds(const std::vector<WorkItem>& items, const ConfirmDesign& design,
                const Thresholds& thresholds, double budget_s, ConfirmClock::time_point start,
                std::FILE* log, ConfirmOutcome* out)
      : items_(items),
        design_(design),
        thresholds_(thresholds),
        budget_s_(budget_s),
        start_(start),
        log_(log),
        out_(out),
        pending_(items) {
    timings_.budget = budget_s;
  }

  // Returns early, with out->interrupted set, when a worker was interrupted.
  Status Run() {
    const auto rounds_start = ConfirmClock::now();
    for (int round = 1; round <= design_.max_rounds && !pending_.empty(); ++round) {
      const double elapsed = ConfirmSecondsSince(start_);
      if (round == 2) RaiseBudgetToFirstRoundsPace(ConfirmSecondsSince(rounds_start));
      if (round > 1 && elapsed > timings_.budget) {
        timings_.over_budget = true;
        if (!design_.Interleaved() || !KeepOnlyCasesStillApart(round)) break;
      }
      SPYRE_RETURN_IF_ERROR(TimeRound(round));
      if (out_->interrupted) return Status::Ok();
      out_->rounds = round;
      if (!design_.Interleaved()) {
        // Against history: a fixed number of processes.
        if (round >= design_.min_rounds) pending_.clear();
        continue;
      }
      DropDecidedCases(round);
    }
    return Status::Ok();
  }

  ConfirmTimings& Timings() { return timings_; }

 private:
  // Undecided interleaved cases may go on to max_rounds pairs; a budget that
  // ends long before that (a loaded host, a long case) turns real changes
  // into notes at p just above the level. Against history, min_rounds.
  int WantedRounds() const {
    return design_.Interleaved() ? design_.max_rounds : design_.min_rounds;
  }

  void RaiseBudgetToFirstRoundsPace(double first_round) {
    timings_.budget = ConfirmBudget(budget_s_, first_round, WantedRounds());
    if (timings_.budget > budget_s_ && log_ != nullptr) {
      std::fprintf(log_,
                   "confirmation budget raised to %.0f s: one round took %.1f s and undecided "
                   "cases may need %d\n",
                   timings_.budget, first_round, WantedRounds());
      std::fflush(log_);
    }
  }

  // With the budget spent, interleaved cases still undecided but completely
  // apart go on (up to max_rounds): below min_rounds, or below the eight a
  // side that a Mann-Whitney test needs to reach a shared level, the rounds
  // spent on them would be lost (SidesCompletelyApart). The others stop
  // here. Returns whether any case goes on.
  bool KeepOnlyCasesStillApart(int round) {
    std::vector<WorkItem> apart;
    for (const WorkItem& item : pending_) {
      const CaseKey key{item.suite, item.case_id};
      if (SidesCompletelyApart(timings_.base_sides[key].values, timings_.cand_sides[key].values,
                               out_->paired)) {
        apart.push_back(item);
      }
    }
    if (apart.empty()) return false;
    if (!timings_.past_budget && log_ != nullptr) {
      std::fprintf(log_,
                   "confirmation budget spent after %d round(s): %zu undecided case(s) still "
                   "completely apart go on, up to %d\n",
                   round - 1, apart.size(), design_.max_rounds);
      std::fflush(log_);
    }
    timings_.past_budget = true;
    pending_ = std::move(apart);
    return true;
  }

  // A B B A: neither side always runs first.
  Status TimeRound(int round) {
    const bool candidate_first = round % 2 == 1;
    if (design_.paired) {
      for (WorkItem& item : pending_) item.paired->baseline_first = !candidate_first;
      return TimeOneRound(pending_, design_.timing, &timings_.cand_sides, &timings_.base_sides,
                          out_);
    }
    for (int half = 0; half < (design_.Interleaved() ? 2 : 1); ++half) {
      const bool candidate = (half == 0) == candidate_first || !design_.Interleaved();
      SPYRE_RETURN_IF_ERROR(
          TimeOneRound(pending_, candidate ? design_.timing : design_.baseline_timing,
                       candidate ? &timings_.cand_sides : &timings_.base_sides, nullptr, out_));
      if (out_->interrupted) return Status::Ok();
    }
    return Status::Ok();
  }

  // The confirmed cases are judged at a level they share, which rises
  // with the number of them that changed (SharedConfirmScale): the
  // sequential rule aims at it as it stands after this round.
  double SharedLevelScale() {
    std::vector<double> relative_p;
    for (const WorkItem& item : items_) {
      const CaseKey key{item.suite, item.case_id};
      WallConfirmation c;
      c.paired = out_->paired;
      c.values = timings_.cand_sides[key].values;
      c.baseline_values = timings_.base_sides[key].values;
      relative_p.push_back(RelativeConfirmP(c, thresholds_.For(item.suite, item.case_id)));
    }
    return SharedConfirmScale(std::move(relative_p));
  }

  void DropDecidedCases(int round) {
    const double scale = SharedLevelScale();
    std::vector<WorkItem> next;
    for (const WorkItem& item : pending_) {
      const CaseKey key{item.suite, item.case_id};
      ThresholdValues v = thresholds_.For(item.suite, item.case_id);
      v.wall_confirm_alpha *= scale;
      const ConfirmStep step =
          NextConfirmStep(timings_.base_sides[key].values, timings_.cand_sides[key].values, round,
                          design_.min_rounds, v, out_->paired);
      if (step == ConfirmStep::kMore) next.push_back(item);
      if (step == ConfirmStep::kFutile) ++out_->futile;
    }
    pending_ = std::move(next);
  }

  const std::vector<WorkItem>& items_;
  const ConfirmDesign& design_;
  const Thresholds& thresholds_;
  const double budget_s_;
  const ConfirmClock::time_point start_;
  std::FILE* const log_;
  ConfirmOutcome* const out_;
  std::vector<WorkItem> pending_;
  ConfirmTimings timings_;
};

WallConfirmation ConfirmValuesOf(const CaseKey& key, int64_t baseline_run_id,
                                 const ConfirmDesign& d, ConfirmTimings& t) {
  WallConfirmation c;
  c.baseline_run_id = baseline_run_id;
  c.paired = d.paired.has_value();
  c.max_rounds = d.Interleaved() ? d.max_rounds : d.min_rounds;
  c.values = t.cand_sides[key].values;
  c.op_wall = t.cand_sides[key].op_wall;
  c.unqueued = t.cand_sides[key].unqueued && (!d.settings || t.base_sides[key].unqueued);
  c.samples = d.settings ? std::min(t.cand_sides[key].samples, t.base_sides[key].samples)
                         : t.cand_sides[key].samples;
  if (d.settings) {
    c.baseline_values = t.base_sides[key].values;
    c.baseline_op_wall = t.base_sides[key].op_wall;
  }
  return c;
}

// Each re-timed case's values go into its result's extra["confirm"], here
// and in the store.
Status StoreConfirmations(const std::vector<WorkItem>& items, int64_t baseline_run_id,
                          const ConfirmDesign& d, ConfirmTimings& t,
                          const std::map<CaseKey, CaseResult*>& cand_cases, Store& store,
                          int64_t run_id) {
  for (const WorkItem& item : items) {
    const CaseKey key{item.suite, item.case_id};
    const WallConfirmation c = ConfirmValuesOf(key, baseline_run_id, d, t);
    if (c.values.empty()) continue;
    CaseResult* cand = cand_cases.at(key);
    cand->extra["confirm"] = WallConfirmationJson(c);
    SPYRE_RETURN_IF_ERROR(store.SetResultExtra(run_id, item.suite, item.case_id, cand->extra));
  }
  return Status::Ok();
}

std::string ConfirmSummaryLine(const ConfirmOutcome& out, const ConfirmDesign& d,
                               const ConfirmTimings& t) {
  std::string line = "confirmation: " + std::to_string(out.suspects) +
                     " wall-time suspect(s) re-timed in up to " + std::to_string(out.rounds) +
                     " fresh process(es) ";
  line += d.paired
              ? "each, every process timing the baseline's configuration and this run's in turn"
          : d.settings ? "per side, interleaved with the baseline's configuration"
                       : "each";
  if (out.futile > 0) {
    line += " (" + std::to_string(out.futile) + " stopped early, plainly unchanged)";
  }
  line += ", " + Seconds(out.elapsed_s, 1) + " s of a " + Seconds(t.budget, 0) + " s budget";
  if (t.past_budget) {
    line += " (budget spent: only undecided cases still completely apart went on)";
  } else if (t.over_budget) {
    line += " (budget spent: fewer rounds)";
  }
  return line;
}

}  // namespace

StatusOr<ConfirmOutcome> ConfirmWallSuspects(const RunPlan& plan, const SupervisorOptions& options,
                                             Store& store, int64_t run_id,
                                             const nlohmann::json& env,
                                             std::vector<CaseResult>* results, std::FILE* log) {
  ConfirmOutcome out;
  const RunRequest& r = plan.request;
  if (r.confirm.rounds <= 0) return out;
  const auto start = ConfirmClock::now();
  SPYRE_ASSIGN_OR_RETURN(auto choice, ChooseBaseline(store, r.baseline, run_id));
  if (!choice.run_id) return out;
  SPYRE_ASSIGN_OR_RETURN(auto thresholds, Thresholds::Configured());
  SPYRE_ASSIGN_OR_RETURN(auto base, LoadRunRecord(store, *choice.run_id));
  std::map<CaseKey, const CaseResult*> base_cases;
  for (const CaseResult& c : base.cases) base_cases[{c.suite, c.case_id}] = &c;

  // A configuration that this binary can re-create beside this one
  // (the same, or another BLAS, profile or faults): a comparison of two
  // runs' rounds is bounded by how far whole runs move between nights,
  // while the two configurations timed interleaved see the same machine.
  // Cases whose rounds do not rule out a change are re-timed too.
  const auto settings = BaselineWorkerSettings(base.env, env);

  std::map<CaseKey, CaseResult*> cand_cases;
  for (CaseResult& c : *results) cand_cases[{c.suite, c.case_id}] = &c;
  ConfirmSuspects suspects =
      PickConfirmSuspects(plan.items, base_cases, cand_cases, thresholds, settings.has_value(),
                          r.confirm.every_case);
  std::string screen;
  if (r.confirm.every_case && settings.has_value()) {
    screen = " (every timed case: --confirm-all)";
  } else if (ConfirmFlaggedTooManyToScreen(suspects)) {
    screen = ConfirmScreenNote(suspects);
    suspects.items = suspects.timed;
  }
  std::vector<WorkItem>& items = suspects.items;
  out.suspects = static_cast<int>(items.size());
  if (items.empty()) return out;

  const ConfirmDesign design = DesignConfirmation(r.confirm, options, settings, base.env, env);
  out.interleaved = design.Interleaved();
  out.paired = design.paired.has_value();
  if (design.paired) {
    for (WorkItem& item : items) item.paired = design.paired;
  }
  ConfirmLogLine(ConfirmPlanLine(design, r.confirm, out.suspects, screen, *choice.run_id), log);

  ConfirmRounds rounds(items, design, thresholds, r.confirm.budget_s, start, log, &out);
  SPYRE_RETURN_IF_ERROR(rounds.Run());
  if (out.interrupted) return out;
  SPYRE_RETURN_IF_ERROR(StoreConfirmations(items, *choice.run_id, design, rounds.Timings(),
                                           cand_cases, store, run_id));
  out.elapsed_s = ConfirmSecondsSince(start);
  out.summary = ConfirmSummaryLine(out, design, rounds.Timings());
  return out;
}

}  // namespace harness::runner_internal
