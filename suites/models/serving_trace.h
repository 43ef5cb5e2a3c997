#pragma once
// The "serving" case body: a model and a scripted arrival trace.
//
//   {"id": "granite_tiny.serving", "kind": "serving",
//    "model": {"config": "granite-tiny", "dtype": "float16"},
//    "serving": {"token_budget": 64, "max_running": 8, "block_size": 16, "kv_blocks": 24,
//                "requests": [
//                  {"id": "a", "arrival": 0, "prompt": [17, 301, 42], "max_new_tokens": 8},
//                  {"id": "b", "arrival": 3, "prompt_len": 40, "max_new_tokens": 16, "stop": 5},
//                  {"id": "c", "arrival": 5, "prompt_text": "The best", "max_new_tokens": 20,
//                   "stop_text": "."}]}}
//
// "model" takes the decode kind's members but the prompts and steps (each
// request has its own). A request has an "id" (unique in the trace), an
// "arrival" step (default 0), exactly one of "prompt" (token ids),
// "prompt_len" (ids generated from the case seed) and "prompt_text" (a
// checkpoint's tokenizer), "max_new_tokens", and optionally a "stop"
// token or a one-token "stop_text". The limits default to token_budget 64,
// max_running 8, block_size 16, kv_blocks 64. A trace the scheduler could
// never serve (a prompt over the token budget, a request needing more
// blocks than the pool has) is an error when the suite loads.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model_case.h"
#include "serving_scheduler.h"
#include "suite_file/suite_file.h"

namespace suites {

// The trace as the scheduler takes it: its limits and each request's id,
// arrival and lengths.
struct ServingTrace {
  SchedulerLimits limits;
  std::vector<ServingRequest> requests;
};

// What a kind reads of a request: the members it allows (besides "id",
// "arrival" and "max_new_tokens", which every trace reads), its prompt
// (returning the prompt's length) and its stop token (none when `stop` is
// empty).
struct TraceRequestReader {
  // Every member a request may have, in the order errors list them.
  std::vector<std::string> members;
  std::function<harness::StatusOr<int64_t>(const nlohmann::json& request, const std::string& path,
                                           size_t index)>
      prompt;
  std::function<harness::Status(const nlohmann::json& request, const std::string& path,
                                ServingRequest* out)>
      stop;
};

// Parses a "serving" member found at JSON path `p`: the limits, the
// requests (a prompt and max_new_tokens within `positions`), and whether
// the scheduler can ever serve the trace (TraceProblem). Errors name the
// member's path and what to write.
harness::StatusOr<ServingTrace> ParseTrace(const nlohmann::json& serving, const std::string& p,
                                           int64_t positions, const TraceRequestReader& reader);

// A trace that is timed, not computed (the timing kind's serving traces):
// each request gives a "prompt_len" and runs to its max_new_tokens.
harness::StatusOr<ServingTrace> ParseTimedTrace(const nlohmann::json& serving, const std::string& p,
                                                int64_t positions);

struct ServingCase {
  // model.prompts holds every request's prompt one after another, [1, total]
  // (what the golden file's input digest covers).
  ModelCase model;
  SchedulerLimits limits;
  std::vector<ServingRequest> requests;
  std::vector<std::vector<int64_t>> prompts;  // per request
  int64_t max_len = 0;                        // the longest prompt + max_new_tokens
};

// Errors name the JSON pointer of the member at fault and what to write.
harness::StatusOr<ServingCase> ParseServingCase(const harness::SuiteSpec& suite,
                                                const harness::CaseSpec& c);

// The request's prompt as a [1, S] int64 CPU tensor.
at::Tensor PromptTensor(const ServingCase& sc, size_t request);

}  // namespace suites
