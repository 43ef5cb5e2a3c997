#pragma once
// The serving kind's golden file and its judgement of each request.
//
// The golden file holds, per request, its tokens decoded alone on the CPU
// reference ("tokens.<id>" [n]) and their log-probabilities
// ("logprobs.<id>" [n, V]); n is max_new_tokens, or fewer when the request
// met its stop token.
//
//   ServingInputs in = *LoadServingInputs(suite, c, sc, options);
//   ServingRun run = RunServingTrace(model, sc, in.tokens, {});
//   std::string problem = JudgeServedRequest(sc, i, in, run, &result, &detail);
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "base/case_result.h"
#include "harness/case_kinds/case_kinds.h"
#include "serving_engine.h"
#include "serving_trace.h"

namespace suites {

std::string TokensName(const ServingRequest& r);    // "tokens.<id>"
std::string LogprobsName(const ServingRequest& r);  // "logprobs.<id>"

// What of the trace the golden outputs depend on, for the golden file's
// metadata ("serving_requests"): each request's id, max_new_tokens and stop
// token (its prompt is in the input digest).
std::string ServingGoldenRequests(const ServingCase& sc);

struct ServingInputs {
  std::vector<at::Tensor> tokens;    // per request [n] int64
  std::vector<at::Tensor> logprobs;  // per request [n, V]
  Weights weights;
};

// Loads the golden file and the weights; a judged pass also checks that the
// golden file was computed from these prompts, requests and weights. Each request's
// golden run must end on max_new_tokens or on its stop token.
harness::StatusOr<ServingInputs> LoadServingInputs(const harness::SuiteSpec& suite,
                                                   const harness::CaseSpec& c,
                                                   const ServingCase& sc,
                                                   const harness::ExecOptions& options);

// The yardstick of every request (DecodeYardstickFp32 of the request
// decoded alone, teacher-forced with its golden tokens) and the largest max
// |logprob diff| among them: each request's logprob limit is logprob_m times
// that largest one, as a decode case's is over its whole batch, so that a
// request of a few tokens is not held to the yardstick of those few alone.
struct ServingYardsticks {
  std::vector<at::Tensor> fp32;  // per request [1, n, V]
  double max_logprob_diff = 0;
};
ServingYardsticks ComputeServingYardsticks(const ServingCase& sc, const ServingInputs& in);

// The bfloat16 logit-flip rule (decode_metrics.h, LogitFlips) over a whole
// trace: a share of a request's few logits is too noisy to judge alone, so
// each request adds its logits to the trace's count and the trace is judged.
struct TraceLogitFlips {
  double logits = 0;           // logits counted
  double device_flips = 0;     // of them on another value than the golden's
  double yardstick_flips = 0;  // the yardstick's, likewise
  std::string worst_request;   // the request with the largest device share
  double worst_share = -1;
};

// Request i of `run` against the request decoded alone: "" when it
// passed; else one line naming the request and the trace step where it
// went wrong: dropped (fewer tokens served than its golden run), non-finite
// logits (a KV block read after it was freed shows up so), or the decode
// criteria of decode_verdict.h but the logit-flip rule, whose counts go to
// *flips. Adds the request's metrics (output: its id) to r and its details
// to *detail.
std::string JudgeServedRequest(const ServingCase& sc, size_t i, const ServingInputs& in,
                               const ServingYardsticks& yardsticks, const ServingRun& run,
                               harness::CaseResult* r, nlohmann::json* detail,
                               TraceLogitFlips* flips);

// The logit-flip rule over the trace (bfloat16 only; "" when it passes or
// does not apply), with its metric under the output "logits".
std::string JudgeTraceLogitFlips(const ServingCase& sc, const TraceLogitFlips& flips,
                                 harness::CaseResult* r);

}  // namespace suites
