// Golden inputs of the serving kind and its judgement of each request.
#include "serving_judge.h"

#include <algorithm>

#include "decode_verdict.h"
#include "harness/golden/golden.h"

namespace suites {
namespace {

using harness::CaseResult;

// Where a request went wrong: the first of its tokens a failed criterion
// names (a hard flip, else a step over the logprob limit, else its first
// token).
int64_t FirstBadToken(const DecodeVerdict& v) {
  if (v.j.first_failure >= 0) return v.j.first_failure;
  if (v.lp_failed) {
    for (const auto& step : v.j.per_step) {
      if (step["max_logprob_diff"].get<double>() > v.lp_limit) return step["step"].get<int64_t>();
    }
  }
  return 0;
}

// The request as a decode of its prompt over its golden tokens.
ModelCase RequestModelCase(const ServingCase& sc, size_t i, int64_t tokens) {
  ModelCase mr = sc.model;
  mr.prompts = PromptTensor(sc, i);
  mr.steps = tokens;
  return mr;
}

}  // namespace

std::string TokensName(const ServingRequest& r) { return "tokens." + r.id; }
std::string LogprobsName(const ServingRequest& r) { return "logprobs." + r.id; }

std::string ServingGoldenRequests(const ServingCase& sc) {
  nlohmann::json out = nlohmann::json::array();
  for (const ServingRequest& r : sc.requests) {
    out.push_back({r.id, r.max_new_tokens, r.stop_token});
  }
  return out.dump();
}

harness::StatusOr<ServingInputs> LoadServingInputs(const harness::SuiteSpec& suite,
                                                   const harness::CaseSpec& c,
                                                   const ServingCase& sc,
                                                   const harness::ExecOptions& options) {
  const std::string path = harness::GoldenPath(options.golden_dir, suite.name, c.id);
  SPYRE_ASSIGN_OR_RETURN(auto golden, harness::LoadGolden(path, suite, c));
  SPYRE_ASSIGN_OR_RETURN(auto weights, LoadModelWeights(sc.model));
  const std::string regenerate =
      "; regenerate it with '" + harness::GoldenGenerateCommand(suite.name, suite.root, path) + "'";
  if (options.judged) {
    SPYRE_RETURN_IF_ERROR(
        CheckGoldenInputs(golden, sc.model, weights, path, suite.name, suite.root));
    const auto it = golden.metadata.find("serving_requests");
    if (it != golden.metadata.end() && it->second != ServingGoldenRequests(sc)) {
      return harness::InvalidInput(path +
                                   ": the requests' ids, max_new_tokens or stop tokens differ "
                                   "from those the golden outputs were computed from" +
                                   regenerate);
    }
  }
  ServingInputs in;
  in.weights = std::move(weights);
  for (const ServingRequest& r : sc.requests) {
    const at::Tensor* tokens = golden.Find(TokensName(r));
    const at::Tensor* logprobs = golden.Find(LogprobsName(r));
    if (tokens == nullptr || logprobs == nullptr) {
      return harness::InvalidInput(path + ": no tensors for request '" + r.id + "'" + regenerate);
    }
    const at::Tensor t = tokens->to(at::kLong);
    const int64_t n = t.size(0);
    // A golden run ends on max_new_tokens or on the stop token.
    const bool ended =
        n == r.max_new_tokens || (n >= 1 && n < r.max_new_tokens && r.stop_token >= 0 &&
                                  t[n - 1].item<int64_t>() == r.stop_token);
    if (!ended) {
      return harness::InvalidInput(path + ": request '" + r.id + "' has " + std::to_string(n) +
                                   " golden tokens, which neither reach its max_new_tokens nor "
                                   "end on its stop token" +
                                   regenerate);
    }
    in.tokens.push_back(t);
    in.logprobs.push_back(*logprobs);
  }
  return in;
}

ServingYardsticks ComputeServingYardsticks(const ServingCase& sc, const ServingInputs& in) {
  ServingYardsticks y;
  for (size_t i = 0; i < sc.requests.size(); ++i) {
    const int64_t n = in.tokens[i].size(0);
    const ModelCase mr = RequestModelCase(sc, i, n);
    const at::Tensor teacher = in.tokens[i].view({1, n});
    y.fp32.push_back(DecodeYardstickFp32(mr, in.weights, teacher));
    y.max_logprob_diff =
        std::max(y.max_logprob_diff,
                 YardstickMaxLogprobDiff(mr, y.fp32.back(), in.logprobs[i].unsqueeze(0), teacher));
  }
  return y;
}

std::string JudgeServedRequest(const ServingCase& sc, size_t i, const ServingInputs& in,
                               const ServingYardsticks& yardsticks, const ServingRun& run,
                               CaseResult* r, nlohmann::json* detail, TraceLogitFlips* flips) {
  const ServingRequest& req = sc.requests[i];
  const RequestRecord& rec = run.records[i];
  const int64_t want = in.tokens[i].size(0);
  const int64_t got = static_cast<int64_t>(rec.tokens.size());
  const std::string who = "request '" + req.id + "'";
  (*detail)["golden_tokens"] = want;
  (*detail)["served_tokens"] = got;
  if (rec.state == RequestState::kDropped || got != want) {
    AddMetric(r, req.id, "served_share", static_cast<double>(got) / static_cast<double>(want), 1,
              true);
    const std::string last = rec.token_steps.empty()
                                 ? "none of them"
                                 : "the last at step " + std::to_string(rec.token_steps.back());
    return who + " was dropped: " + std::to_string(got) + " of its " + std::to_string(want) +
           " tokens served, " + last;
  }
  const at::Tensor logits = run.logits[i];
  const at::Tensor finite = at::isfinite(logits).all(-1).squeeze(0);
  for (int64_t k = 0; k < got; ++k) {
    if (finite[k].item<bool>()) continue;
    AddMetric(r, req.id, "finite_share", finite.to(at::kDouble).mean().item<double>(), 1, true);
    return who + ": non-finite logits for its token " + std::to_string(k) + " at step " +
           std::to_string(rec.token_steps[k]) +
           " (a KV block read after it was freed, or a NaN "
           "from the device)";
  }
  const ModelCase mr = RequestModelCase(sc, i, want);
  const at::Tensor teacher = in.tokens[i].view({1, want});
  const DecodeVerdict v = JudgeDecodeAgainst(mr, logits, in.logprobs[i].unsqueeze(0), teacher,
                                             yardsticks.fp32[i], yardsticks.max_logprob_diff);
  const DecodeJudgement& j = v.j;
  AddMetric(r, req.id, "top1_agreement", DecodeTop1Agreement(j));
  AddMetric(r, req.id, "hard_flips", static_cast<double>(j.pairs - j.agreeing - j.near_ties), 0,
            j.first_failure >= 0);
  AddMetric(r, req.id, "max_logprob_diff", j.max_logprob_diff, v.lp_limit, v.lp_failed);
  AddMetric(r, req.id, "min_top_k_overlap", j.min_top_k_overlap, sc.model.min_top_k_overlap,
            v.topk_failed);
  if (v.judge_flips) {
    const double n = static_cast<double>(logits.numel());
    AddMetric(r, req.id, "logit_flip_share", v.flips.device_share);
    flips->logits += n;
    flips->device_flips += v.flips.device_share * n;
    flips->yardstick_flips += v.flips.yardstick_share * n;
    if (v.flips.device_share > flips->worst_share) {
      flips->worst_share = v.flips.device_share;
      flips->worst_request = req.id;
    }
  }
  (*detail)["first_divergence"] = j.first_divergence;
  (*detail)["near_ties"] = j.near_ties;
  (*detail)["max_logprob_diff"] = j.max_logprob_diff;
  (*detail)["max_logprob_diff_limit"] = v.lp_limit;
  DecodeVerdict per_request = v;
  per_request.flips_failed = false;  // judged over the trace
  const std::vector<std::string> problems = DecodeProblems(per_request, mr);
  if (problems.empty()) return "";
  const int64_t k = FirstBadToken(v);
  std::string out = who + " departs from the request decoded alone at its token " +
                    std::to_string(k) + ", step " + std::to_string(rec.token_steps[k]) +
                    " of the trace: ";
  for (size_t p = 0; p < problems.size(); ++p) out += (p ? "; " : "") + problems[p];
  return out;
}

std::string JudgeTraceLogitFlips(const ServingCase& sc, const TraceLogitFlips& flips,
                                 CaseResult* r) {
  if (flips.logits <= 0) return "";
  const double device = flips.device_flips / flips.logits;
  const double yardstick = flips.yardstick_flips / flips.logits;
  const double limit = std::max(kLogitFlipFloor, sc.model.logit_flip_m * yardstick);
  const bool failed = device > limit;
  AddMetric(r, "logits", "logit_flip_share", device, limit, failed);
  AddMetric(r, "logits", "logit_flip_yardstick", yardstick);
  if (!failed) return "";
  return Percent(device) +
         " of the trace's bfloat16 logits rounded to another value than the "
         "golden's, above the limit " +
         Percent(limit) + " = " + Short(sc.model.logit_flip_m) + " x yardstick " +
         Percent(yardstick) + " (most in request '" + flips.worst_request + "', " +
         Percent(flips.worst_share) + ")";
}

}  // namespace suites
