// The "serving" case kind: a scripted arrival trace served with continuous
// batching over a paged KV cache on the device (serving_engine.h), each
// request judged against the CPU reference decoding it alone (teacher
// forced with its golden tokens, as decode is), and timed per request and
// per trace: time to first token, inter-token latency, tokens/s, wall and
// modeled, with the KV blocks the trace held.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/host_probe.h"
#include "decode_verdict.h"
#include "harness/case_kinds/case_kinds.h"
#include "harness/golden/golden.h"
#include "serving_engine.h"
#include "serving_faults.h"
#include "serving_judge.h"
#include "serving_metrics.h"
#include "serving_trace.h"

namespace suites {
namespace {

using harness::CaseResult;
using harness::CaseStatus;

nlohmann::json RequestExtra(const ServingRequest& req, const RequestRecord& rec,
                            const RequestTimes& wall, const RequestTimes& modeled) {
  const char* finish = rec.state == RequestState::kDropped      ? "dropped"
                       : rec.reason == FinishReason::kStopToken ? "stop_token"
                       : rec.reason == FinishReason::kMaxTokens ? "max_tokens"
                                                                : "unfinished";
  return {{"id", req.id},
          {"arrival", req.arrival_step},
          {"prompt_len", req.prompt_len},
          {"max_new_tokens", req.max_new_tokens},
          {"stop", req.stop_token},
          {"admitted_step", rec.admitted_step},
          {"finished_step", rec.finished_step},
          {"finish", finish},
          {"ttft_us", wall.ttft_us},
          {"itl_us", wall.itl_us},
          {"modeled_ttft_us", modeled.ttft_us},
          {"modeled_itl_us", modeled.itl_us}};
}

// The fault points `run --inject` and SPYRE_EMU_FAULTS may name
// (serving_faults.h); --inject replaces SPYRE_EMU_FAULTS, as it does for
// the device, and a paired timing switches them with the device's.
const harness::FaultPointRegistrar kServingDropRegistrar(kServingDropPoint);
const harness::FaultPointRegistrar kServingFreeEarlyRegistrar(kServingFreeEarlyPoint);
const harness::FaultPointRegistrar kServingSlowPrefillRegistrar(kServingSlowPrefillPoint);

ServingFaultSpec ServingFaultsFromEnvironment(const ServingCase& sc) {
  return ParseServingFaults(harness::FaultPointSpec(), static_cast<int64_t>(sc.requests.size()));
}

class ServingCaseKind : public harness::CaseKindOf<ServingCase> {
 public:
  harness::StatusOr<ServingCase> Parse(const harness::SuiteSpec& suite,
                                       const harness::CaseSpec& c) const override {
    return ParseServingCase(suite, c);
  }

  harness::Status CheckFiles(const harness::SuiteSpec&, const harness::CaseSpec&,
                             const ServingCase& sc) const override {
    return CheckModelFiles(sc.model);
  }

  // Per request: tokens.<id> [n] integral, n in [1, max_new_tokens], and
  // logprobs.<id> [n, V] floating.
  harness::Status CheckGolden(const harness::SuiteSpec& suite, const harness::CaseSpec&,
                              const ServingCase& sc, const harness::SafetensorsHeader& golden,
                              const std::string& path) const override {
    const std::string regenerate = "; regenerate it with '" +
                                   harness::GoldenGenerateCommand(suite.name, suite.root, path) +
                                   "'";
    for (const ServingRequest& r : sc.requests) {
      const harness::SafetensorsEntry* t = golden.Find(TokensName(r));
      const harness::SafetensorsEntry* lp = golden.Find(LogprobsName(r));
      if (t == nullptr || lp == nullptr) {
        return harness::InvalidInput(path + ": has no tensors '" + TokensName(r) + "' and '" +
                                     LogprobsName(r) + "' for request '" + r.id + "'" + regenerate);
      }
      const bool tokens_ok = !at::isFloatingType(t->dtype) && t->shape.size() == 1 &&
                             t->shape[0] >= 1 && t->shape[0] <= r.max_new_tokens;
      const bool logprobs_ok =
          at::isFloatingType(lp->dtype) && tokens_ok &&
          lp->shape == std::vector<int64_t>{t->shape[0], sc.model.config.vocab};
      if (!tokens_ok || !logprobs_ok) {
        return harness::InvalidInput(
            path + ": request '" + r.id + "' needs integral '" + TokensName(r) +
            "' [n], n from 1 to " + std::to_string(r.max_new_tokens) + ", and floating '" +
            LogprobsName(r) + "' [n, " + std::to_string(sc.model.config.vocab) + "]" + regenerate);
      }
    }
    return harness::Status::Ok();
  }

  // Each request decoded alone on the CPU in float64, greedy, until its
  // stop token or max_new_tokens.
  harness::StatusOr<harness::SafetensorsFile> ComputeGolden(
      const harness::SuiteSpec& suite, const harness::CaseSpec& c, const ServingCase& sc,
      const harness::ExecOptions&) const override {
    SPYRE_ASSIGN_OR_RETURN(auto weights, LoadModelWeights(sc.model));
    DecoderModel cpu(sc.model.config, weights, at::kCPU, kModelReferenceDtype, LayerImpl::kPortable,
                     sc.max_len);
    harness::SafetensorsFile f;
    for (size_t i = 0; i < sc.requests.size(); ++i) {
      const at::Tensor logits = DecodeRequestAlone(cpu, PromptTensor(sc, i), sc.requests[i]);
      f.tensors.emplace_back(TokensName(sc.requests[i]), logits.argmax(-1).squeeze(0));
      f.tensors.emplace_back(LogprobsName(sc.requests[i]),
                             at::log_softmax(logits, -1).squeeze(0).to(at::kFloat));
    }
    f.metadata = ModelGoldenMetadata(suite, c, sc.model, weights);
    f.metadata["serving"] = c.body["serving"].dump();
    f.metadata["serving_requests"] = ServingGoldenRequests(sc);
    return f;
  }

  CaseResult Execute(const harness::SuiteSpec& suite, const harness::CaseSpec& c,
                     const ServingCase& sc, const harness::ExecOptions& options) const override {
    auto inputs = LoadServingInputs(suite, c, sc, options);
    if (!inputs.ok()) return CaseResult::Error(inputs.status().message());
    const ServingFaultSpec faults = ServingFaultsFromEnvironment(sc);
    if (!faults.error.empty()) return CaseResult::Error(faults.error);
    ServingRunOptions run_options;
    run_options.faults = faults.faults;
    run_options.slow_prefill = faults.slow_prefill;
    DecoderModel model(sc.model.config, inputs->weights, DeviceUnderTest(), sc.model.dtype,
                       sc.model.impl, sc.max_len);
    for (int i = 0; i < WarmupCount(suite, options); ++i) {
      RunServingTrace(model, sc, inputs->tokens, run_options);
    }
    CaseResult r;
    r.status = CaseStatus::kPassed;
    harness::HostProbe probe;
    std::vector<ServingRun> timed;
    for (int i = 0; i < RepeatCount(suite, options); ++i) {
      probe.Sample();
      timed.push_back(RunServingTrace(model, sc, inputs->tokens, run_options));
      r.wall_us.push_back(timed.back().wall_us);
    }
    probe.Record(&r);
    ServingRunOptions profiled_options = run_options;
    profiled_options.profile_steps = true;
    const ServingRun profiled = RunServingTrace(model, sc, inputs->tokens, profiled_options);
    const std::string unfired =
        UnfiredServingFault(run_options.faults, profiled.fired, profiled.records, sc.requests,
                            static_cast<int64_t>(profiled.step_end_us.size()));
    if (!unfired.empty()) return CaseResult::Error(unfired);
    DeviceProfile total;
    for (const DeviceProfile& p : profiled.step_profiles) total = MergeProfiles(total, p);
    FillProfile(total, &r);
    if (!options.judged) return r;

    const ServingRun& judged = timed.back();
    const ServingLatency latency = MeasureLatency(sc, timed, profiled);
    nlohmann::json requests = nlohmann::json::array();
    std::vector<std::string> problems;
    int64_t failed = 0;
    TraceLogitFlips flips;
    const ServingYardsticks yardsticks = ComputeServingYardsticks(sc, *inputs);
    for (size_t i = 0; i < sc.requests.size(); ++i) {
      nlohmann::json detail =
          RequestExtra(sc.requests[i], judged.records[i], latency.wall[i], latency.modeled[i]);
      const std::string problem =
          JudgeServedRequest(sc, i, *inputs, yardsticks, judged, &r, &detail, &flips);
      detail["passed"] = problem.empty();
      if (!problem.empty()) {
        ++failed;
        problems.push_back(problem);
      }
      requests.push_back(detail);
    }
    AddMetric(&r, "requests", "failed_requests", static_cast<double>(failed), 0, failed > 0);
    AddMetric(&r, "logprobs", "logprob_yardstick", yardsticks.max_logprob_diff);
    const std::string flip_problem = JudgeTraceLogitFlips(sc, flips, &r);
    if (!flip_problem.empty()) problems.insert(problems.begin(), flip_problem);
    AddServingLatencyMetrics(sc, latency, &r);
    AddKvMetrics(sc, judged, &r);
    if (!problems.empty()) {
      r.status = CaseStatus::kFailed;
      r.message = std::to_string(failed) + " of " + std::to_string(sc.requests.size()) +
                  " requests failed; " + problems.front();
      if (failed == 0) r.message = problems.front();
      for (size_t p = 1; p < problems.size() && p < 4; ++p) r.message += "; " + problems[p];
    }
    r.extra.update({{"model", sc.model.config.name},
                    {"impl", LayerImplName(sc.model.impl)},
                    {"dtype", c10::toString(sc.model.dtype)},
                    {"requests", requests},
                    {"steps", judged.step_end_us.size()},
                    {"kv_blocks_peak", judged.peak_blocks},
                    {"kv_blocks_in_use", judged.blocks_in_use},
                    {"tokens_per_s", latency.tokens_per_s},
                    {"modeled_tokens_per_s", latency.modeled_tokens_per_s},
                    {"device", DeviceUnderTest().str()}});
    return r;
  }
};

SPYRE_REGISTER_CASE_KIND("serving", ServingCaseKind);

}  // namespace
}  // namespace suites
