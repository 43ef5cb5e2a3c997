// The serving loop: plan, compute the step over the paged cache, commit.
#include "serving_engine.h"

#include <chrono>

#include "paged_kv_cache.h"

namespace suites {
namespace {

using ServingClock = std::chrono::steady_clock;

// The token request `r` feeds or yields as its k-th generated token:
// the teacher's when there is one, else the argmax of its logits.
int64_t ServedToken(const std::vector<at::Tensor>& teachers, size_t r, int64_t k,
                    const at::Tensor& logits_row) {
  if (r < teachers.size() && teachers[r].defined() && k < teachers[r].size(0)) {
    return teachers[r][k].item<int64_t>();
  }
  return logits_row.argmax().item<int64_t>();
}

// Whether `plan` prefills the request the slow-prefill fault names.
bool PrefillsSlowedRequest(const StepPlan& plan, const SlowPrefill& slow) {
  if (slow.request < 0 || !(slow.factor > 1)) return false;
  for (const ScheduledWork& w : plan.work) {
    if (w.kind == WorkKind::kPrefill && w.request == slow.request) return true;
  }
  return false;
}

// Waits until `factor` times the time since `begin` has passed, as a host
// waiting on a slow device kernel does.
void StretchSince(ServingClock::time_point begin, double factor) {
  const auto until = begin + (ServingClock::now() - begin) * factor;
  while (ServingClock::now() < until) {
  }
}

void ScaleProfile(double factor, DeviceProfile* p) {
  p->modeled_us *= factor;
  for (harness::OpSummary& op : p->ops) {
    op.modeled_us *= factor;
    op.wall_us *= factor;
  }
}

}  // namespace

ServingRun RunServingTrace(DecoderModel& model, const ServingCase& sc,
                           const std::vector<at::Tensor>& teachers,
                           const ServingRunOptions& options) {
  ServingScheduler scheduler(sc.requests, sc.limits, options.faults);
  PagedKvCache cache(sc.model.config, sc.limits.kv_blocks, sc.limits.block_size, DeviceUnderTest(),
                     sc.model.dtype);
  ServingRun run;
  std::vector<std::vector<at::Tensor>> rows(sc.requests.size());
  const auto t0 = ServingClock::now();
  while (!scheduler.Done()) {
    const StepPlan& plan = scheduler.Plan();
    std::vector<int64_t> next;
    auto step = [&] {
      cache.Poison(plan.freed_blocks);
      if (plan.work.empty()) return;
      std::vector<int64_t> ids;
      std::vector<PagedSegment> segments;
      for (const ScheduledWork& w : plan.work) {
        const RequestRecord& rec = scheduler.record(w.request);
        if (w.kind == WorkKind::kPrefill) {
          const auto& prompt = sc.prompts[w.request];
          ids.insert(ids.end(), prompt.begin(), prompt.end());
        } else {
          ids.push_back(rec.tokens.back());
        }
        segments.push_back({w.position, w.tokens, &rec.blocks});
      }
      const at::Tensor tokens =
          at::tensor(ids, at::kLong).view({1, static_cast<int64_t>(ids.size())});
      const at::Tensor logits =
          model.StepPaged(tokens, segments, &cache).to(at::kCPU).to(at::kFloat);
      for (size_t i = 0; i < plan.work.size(); ++i) {
        const auto r = static_cast<size_t>(plan.work[i].request);
        const auto k = static_cast<int64_t>(scheduler.record(r).tokens.size());
        rows[r].push_back(logits[static_cast<int64_t>(i)]);
        next.push_back(ServedToken(teachers, r, k, logits[static_cast<int64_t>(i)]));
      }
    };
    const bool slowed = PrefillsSlowedRequest(plan, options.slow_prefill);
    const auto step_begin = ServingClock::now();
    if (options.profile_steps) {
      run.step_profiles.push_back(ProfileOnDevice(step));
      if (slowed) ScaleProfile(options.slow_prefill.factor, &run.step_profiles.back());
    } else {
      step();
    }
    if (slowed) StretchSince(step_begin, options.slow_prefill.factor);
    run.blocks_in_use.push_back(plan.blocks_in_use);
    scheduler.Commit(next);
    run.step_end_us.push_back(
        std::chrono::duration<double, std::micro>(ServingClock::now() - t0).count());
  }
  run.wall_us = run.step_end_us.empty() ? 0 : run.step_end_us.back();
  run.peak_blocks = scheduler.peak_blocks();
  run.fired = scheduler.faults_fired();
  for (size_t r = 0; r < sc.requests.size(); ++r) {
    run.records.push_back(scheduler.record(static_cast<int64_t>(r)));
    run.logits.push_back(rows[r].empty() ? at::empty({1, 0, sc.model.config.vocab})
                                         : at::stack(rows[r]).unsqueeze(0));
  }
  return run;
}

at::Tensor DecodeRequestAlone(DecoderModel& model, const at::Tensor& prompt,
                              const ServingRequest& request) {
  std::vector<at::Tensor> outs;
  outs.push_back(model.Prefill(prompt).select(1, -1));
  int64_t token = outs.back().argmax(-1).item<int64_t>();
  while (static_cast<int64_t>(outs.size()) < request.max_new_tokens &&
         token != request.stop_token) {
    outs.push_back(model.Step(at::tensor({token}, at::kLong).view({1, 1})));
    token = outs.back().argmax(-1).item<int64_t>();
  }
  return at::stack(outs, 1);
}

}  // namespace suites
