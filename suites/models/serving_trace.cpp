// Parsing and checking of the serving case's trace.
#include "serving_trace.h"

#include <algorithm>
#include <set>

#include "harness/inputs/generator.h"

namespace suites {
namespace {

using harness::InvalidInput;
using harness::Status;
using harness::StatusOr;

bool IsCount(const nlohmann::json& v, int64_t lo) {
  return v.is_number_integer() && v.get<int64_t>() >= lo;
}

// An integer member >= lo, left as it is when absent and not required.
Status TraceCount(const nlohmann::json& m, const char* key, const std::string& p, int64_t lo,
                  bool required, int64_t* out) {
  if (!m.contains(key)) {
    if (required) {
      return InvalidInput(p + "/" + key + ": required, an integer >= " + std::to_string(lo));
    }
    return Status::Ok();
  }
  if (!IsCount(m[key], lo)) {
    return InvalidInput(p + "/" + key + ": expected an integer >= " + std::to_string(lo));
  }
  *out = m[key].get<int64_t>();
  return Status::Ok();
}

Status CheckMembers(const nlohmann::json& m, const std::string& p,
                    const std::vector<std::string>& allowed, const char* what) {
  for (const auto& item : m.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
      std::string names;
      for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
      return InvalidInput(p + "/" + item.key() + ": unknown member of " + what + "; use " + names);
    }
  }
  return Status::Ok();
}

StatusOr<std::vector<int64_t>> RequestPrompt(const nlohmann::json& r, const std::string& p,
                                             ServingCase* sc, size_t index) {
  const int given = static_cast<int>(r.contains("prompt")) +
                    static_cast<int>(r.contains("prompt_len")) +
                    static_cast<int>(r.contains("prompt_text"));
  if (given != 1) {
    return InvalidInput(p +
                        ": give exactly one of \"prompt\" (token ids), \"prompt_len\" "
                        "(generated ids) and \"prompt_text\"");
  }
  ModelCase& mc = sc->model;
  const int64_t vocab = mc.config.vocab;
  if (r.contains("prompt")) return TokenIdsFromJson(r["prompt"], vocab, p + "/prompt");
  if (r.contains("prompt_len")) {
    int64_t len = 0;
    SPYRE_RETURN_IF_ERROR(TraceCount(r, "prompt_len", p, 1, true, &len));
    if (len > mc.config.max_positions) {
      return InvalidInput(p + "/prompt_len: at most the model's " +
                          std::to_string(mc.config.max_positions) + " positions");
    }
    harness::InputSpec spec;
    spec.shape = {len};
    spec.dtype = at::kLong;
    spec.dist = harness::Distribution::kInt;
    spec.low = 0;
    spec.high = static_cast<double>(vocab - 1);
    const at::Tensor t = harness::GenerateInput(spec, mc.seed, static_cast<int>(index));
    return std::vector<int64_t>(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + len);
  }
  // "" is a prompt of <bos> alone.
  if (!r["prompt_text"].is_string()) return InvalidInput(p + "/prompt_text: expected a string");
  if (mc.checkpoint.empty()) {
    return InvalidInput(p +
                        "/prompt_text: text prompts need the model's \"checkpoint\" with a "
                        "tokenizer.json");
  }
  if (!mc.text) {
    SPYRE_ASSIGN_OR_RETURN_CTX(mc.tokenizer, LoadTokenizer(mc.checkpoint), p + "/prompt_text");
    mc.text = true;
  }
  std::vector<int64_t> out = mc.tokenizer.Encode(r["prompt_text"].get<std::string>());
  SPYRE_RETURN_IF_ERROR(CheckTokensInVocab(out, vocab, p + "/prompt_text"));
  return out;
}

Status RequestStop(const nlohmann::json& r, const std::string& p, ServingCase* sc,
                   ServingRequest* req) {
  ModelCase& mc = sc->model;
  if (r.contains("stop") && r.contains("stop_text")) {
    return InvalidInput(p + ": give \"stop\" or \"stop_text\", not both");
  }
  if (r.contains("stop")) {
    if (!r["stop"].is_number_integer() || r["stop"].get<int64_t>() < 0 ||
        r["stop"].get<int64_t>() >= mc.config.vocab) {
      return InvalidInput(p + "/stop: a token id in [0, " + std::to_string(mc.config.vocab) + ")");
    }
    req->stop_token = r["stop"].get<int64_t>();
  }
  if (r.contains("stop_text")) {
    if (mc.checkpoint.empty() || !r["stop_text"].is_string()) {
      return InvalidInput(p + "/stop_text: a string, for a model with a \"checkpoint\"");
    }
    if (!mc.text) {
      SPYRE_ASSIGN_OR_RETURN_CTX(mc.tokenizer, LoadTokenizer(mc.checkpoint), p + "/stop_text");
      mc.text = true;
    }
    // Encode puts <bos> first: one token of text is two ids.
    const std::vector<int64_t> ids = mc.tokenizer.Encode(r["stop_text"].get<std::string>());
    if (ids.size() != 2) {
      return InvalidInput(p + "/stop_text: '" + r["stop_text"].get<std::string>() + "' is " +
                          std::to_string(ids.size() - 1) + " tokens; a stop is exactly one");
    }
    req->stop_token = ids[1];
  }
  return Status::Ok();
}

// A request's "arrival" is a step: the engine walks every step up to it,
// so a far one would hold the trace for as many empty steps.
constexpr int64_t kMaxArrivalStep = 1000000;

Status ParseRequests(const nlohmann::json& s, const std::string& p, int64_t positions,
                     const TraceRequestReader& reader, std::vector<ServingRequest>* out) {
  if (!s.contains("requests") || !s["requests"].is_array() || s["requests"].empty()) {
    return InvalidInput(p + "/requests: expected a non-empty array of requests");
  }
  const nlohmann::json& list = s["requests"];
  if (list.size() > 1024) return InvalidInput(p + "/requests: at most 1024 requests");
  std::set<std::string> ids;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string rp = p + "/requests/" + std::to_string(i);
    const nlohmann::json& r = list[i];
    if (!r.is_object()) return InvalidInput(rp + ": expected an object");
    SPYRE_RETURN_IF_ERROR(CheckMembers(r, rp, reader.members, "a request"));
    ServingRequest req;
    if (!r.contains("id") || !r["id"].is_string() || r["id"].get<std::string>().empty()) {
      return InvalidInput(rp + "/id: required, a non-empty string");
    }
    req.id = r["id"].get<std::string>();
    if (!ids.insert(req.id).second) {
      return InvalidInput(rp + "/id: '" + req.id + "' is already the id of an earlier request");
    }
    SPYRE_RETURN_IF_ERROR(TraceCount(r, "arrival", rp, 0, false, &req.arrival_step));
    if (req.arrival_step > kMaxArrivalStep) {
      return InvalidInput(rp + "/arrival: at most step " + std::to_string(kMaxArrivalStep));
    }
    SPYRE_RETURN_IF_ERROR(TraceCount(r, "max_new_tokens", rp, 1, true, &req.max_new_tokens));
    SPYRE_ASSIGN_OR_RETURN(req.prompt_len, reader.prompt(r, rp, i));
    if (req.prompt_len + req.max_new_tokens > positions) {
      return InvalidInput(rp + ": prompt (" + std::to_string(req.prompt_len) +
                          " tokens) + max_new_tokens (" + std::to_string(req.max_new_tokens) +
                          ") exceed the model's " + std::to_string(positions) + " positions");
    }
    if (reader.stop) {
      SPYRE_RETURN_IF_ERROR(reader.stop(r, rp, &req));
    }
    out->push_back(req);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ServingTrace> ParseTrace(const nlohmann::json& s, const std::string& p, int64_t positions,
                                  const TraceRequestReader& reader) {
  SPYRE_RETURN_IF_ERROR(CheckMembers(
      s, p, {"token_budget", "max_running", "block_size", "kv_blocks", "requests"}, "\"serving\""));
  ServingTrace trace;
  SchedulerLimits& l = trace.limits;
  SPYRE_RETURN_IF_ERROR(TraceCount(s, "token_budget", p, 1, false, &l.token_budget));
  SPYRE_RETURN_IF_ERROR(TraceCount(s, "max_running", p, 1, false, &l.max_running));
  SPYRE_RETURN_IF_ERROR(TraceCount(s, "block_size", p, 1, false, &l.block_size));
  SPYRE_RETURN_IF_ERROR(TraceCount(s, "kv_blocks", p, 1, false, &l.kv_blocks));
  if (l.token_budget > 65536 || l.max_running > 4096 || l.block_size > 4096 ||
      l.kv_blocks > 65536) {
    return InvalidInput(p +
                        ": token_budget and kv_blocks are at most 65536, max_running and "
                        "block_size at most 4096");
  }
  SPYRE_RETURN_IF_ERROR(ParseRequests(s, p, positions, reader, &trace.requests));
  const std::string problem = TraceProblem(trace.requests, trace.limits);
  if (!problem.empty()) return InvalidInput(p + ": " + problem);
  return trace;
}

StatusOr<ServingTrace> ParseTimedTrace(const nlohmann::json& s, const std::string& p,
                                       int64_t positions) {
  TraceRequestReader reader;
  reader.members = {"id", "arrival", "prompt_len", "max_new_tokens"};
  reader.prompt = [](const nlohmann::json& r, const std::string& rp, size_t) -> StatusOr<int64_t> {
    int64_t len = 0;
    SPYRE_RETURN_IF_ERROR(TraceCount(r, "prompt_len", rp, 1, true, &len));
    return len;
  };
  return ParseTrace(s, p, positions, reader);
}

StatusOr<ServingCase> ParseServingCase(const harness::SuiteSpec& suite,
                                       const harness::CaseSpec& c) {
  ServingCase sc;
  SPYRE_ASSIGN_OR_RETURN(sc.model, ParseModelCase(suite, c, ModelTask::kServing));
  const std::string p = c.body.value("pointer", std::string()) + "/serving";
  if (!c.body.contains("serving") || !c.body["serving"].is_object()) {
    return InvalidInput(p + ": a serving case needs a \"serving\" object with its \"requests\"");
  }
  TraceRequestReader reader;
  reader.members = {"id",          "arrival",        "prompt", "prompt_len",
                    "prompt_text", "max_new_tokens", "stop",   "stop_text"};
  reader.prompt = [&sc](const nlohmann::json& r, const std::string& rp,
                        size_t i) -> StatusOr<int64_t> {
    SPYRE_ASSIGN_OR_RETURN(auto prompt, RequestPrompt(r, rp, &sc, i));
    sc.prompts.push_back(std::move(prompt));
    return static_cast<int64_t>(sc.prompts.back().size());
  };
  reader.stop = [&sc](const nlohmann::json& r, const std::string& rp, ServingRequest* req) {
    return RequestStop(r, rp, &sc, req);
  };
  const int64_t positions = sc.model.config.max_positions - sc.model.config.position_offset;
  SPYRE_ASSIGN_OR_RETURN(ServingTrace trace, ParseTrace(c.body["serving"], p, positions, reader));
  sc.limits = trace.limits;
  sc.requests = std::move(trace.requests);
  for (const ServingRequest& r : sc.requests) {
    sc.max_len = std::max(sc.max_len, r.prompt_len + r.max_new_tokens);
  }
  std::vector<int64_t> all;
  for (const auto& prompt : sc.prompts) all.insert(all.end(), prompt.begin(), prompt.end());
  sc.model.prompts = at::tensor(all, at::kLong).view({1, static_cast<int64_t>(all.size())});
  return sc;
}

at::Tensor PromptTensor(const ServingCase& sc, size_t request) {
  const std::vector<int64_t>& p = sc.prompts[request];
  return at::tensor(p, at::kLong).view({1, static_cast<int64_t>(p.size())});
}

}  // namespace suites
