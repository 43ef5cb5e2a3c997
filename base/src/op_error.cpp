#include "base/op_error.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/human_format.h"

namespace harness {
namespace op_error_internal {
namespace {

// JSON has no NaN or infinity: those travel as strings, as in case_result.cpp.
nlohmann::json Number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

bool ReadNumber(const nlohmann::json& j, double* out) {
  if (j.is_number()) {
    *out = j.get<double>();
    return true;
  }
  if (!j.is_string()) return false;
  const std::string s = j.get<std::string>();
  if (s == "nan") *out = std::numeric_limits<double>::quiet_NaN();
  else if (s == "inf") *out = std::numeric_limits<double>::infinity();
  else if (s == "-inf") *out = -std::numeric_limits<double>::infinity();
  else return false;
  return true;
}

// NaN is the worst value of all.
bool Worse(double a, double b) { return std::isnan(a) ? !std::isnan(b) : a > b; }

nlohmann::json ToJson(const OpError& e) {
  return {{"op", e.op},
          {"calls", e.calls},
          {"rel_l2", Number(e.rel_l2)},
          {"max_abs", Number(e.max_abs)},
          {"first_call", e.first_call},
          {"depth", e.depth},
          {"level", Number(e.level)},
          {"departed_calls", e.departed_calls},
          {"composite", e.composite}};
}

std::optional<OpError> FromJson(const nlohmann::json& j, bool departed) {
  if (!j.is_object()) return std::nullopt;
  OpError e;
  const char* call_key = departed ? "call" : "first_call";
  if (!j.contains("op") || !j["op"].is_string()) return std::nullopt;
  e.op = j["op"].get<std::string>();
  if (!j.contains("rel_l2") || !ReadNumber(j["rel_l2"], &e.rel_l2)) return std::nullopt;
  if (j.contains("max_abs") && !ReadNumber(j["max_abs"], &e.max_abs)) return std::nullopt;
  if (j.contains("level") && !ReadNumber(j["level"], &e.level)) return std::nullopt;
  if (!j.contains(call_key) || !j[call_key].is_number_integer()) return std::nullopt;
  e.first_call = j[call_key].get<int64_t>();
  if (j.contains("depth") && j["depth"].is_number_integer()) e.depth = j["depth"].get<int>();
  if (departed) {
    e.calls = 1;
    e.departed_calls = 1;
  } else {
    if (j.contains("calls") && j["calls"].is_number_integer()) e.calls = j["calls"].get<int64_t>();
    if (j.contains("departed_calls") && j["departed_calls"].is_number_integer())
      e.departed_calls = j["departed_calls"].get<int64_t>();
    if (j.contains("composite") && j["composite"].is_boolean())
      e.composite = j["composite"].get<bool>();
  }
  return e;
}

const nlohmann::json* Section(const CaseResult& r) {
  if (!r.extra.is_object()) return nullptr;
  auto it = r.extra.find("op_error");
  if (it == r.extra.end() || !it->is_object()) return nullptr;
  return &*it;
}

}  // namespace
}  // namespace op_error_internal


double DepartureLevel(double unit_roundoff) {
  return std::max(kDepartureUlps * unit_roundoff, kDepartureFloor);
}

nlohmann::json SummarizeOpCalls(const std::vector<OpCall>& calls) {
  // Call numbers: 1 + the rank of each call's start among all calls.
  std::vector<size_t> by_start(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) by_start[i] = i;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](size_t a, size_t b) { return calls[a].seq < calls[b].seq; });
  std::vector<int64_t> number(calls.size());
  for (size_t rank = 0; rank < by_start.size(); ++rank)
    number[by_start[rank]] = static_cast<int64_t>(rank) + 1;

  std::map<std::string, OpError> ops;
  std::map<std::string, int64_t> skipped;
  int64_t checked = 0;
  nlohmann::json departed;  // null unless a call departs
  for (size_t i = 0; i < calls.size(); ++i) {
    const OpCall& c = calls[i];
    if (!c.checked) {
      ++skipped[c.skipped.empty() ? "unknown" : c.skipped];
      continue;
    }
    ++checked;
    auto [it, fresh] = ops.try_emplace(c.op);
    OpError& e = it->second;
    if (fresh) {
      e.op = c.op;
      e.first_call = number[i];
      e.rel_l2 = c.rel_l2;
      e.max_abs = c.max_abs;
      e.depth = c.depth;
      e.level = c.level;
    } else {
      e.first_call = std::min(e.first_call, number[i]);
      if (op_error_internal::Worse(c.rel_l2, e.rel_l2)) {
        e.rel_l2 = c.rel_l2;
        e.depth = c.depth;
        e.level = c.level;
      }
      if (op_error_internal::Worse(c.max_abs, e.max_abs)) e.max_abs = c.max_abs;
    }
    ++e.calls;
    e.composite = e.composite || c.composite;
    if (!c.Departs()) continue;
    ++e.departed_calls;
    // Only calls with no checked call inside depart, so the first to end is
    // also the first to start.
    if (departed.is_null()) {
      departed = {{"op", c.op},
                  {"call", number[i]},
                  {"of", static_cast<int64_t>(calls.size())},
                  {"rel_l2", op_error_internal::Number(c.rel_l2)},
                  {"max_abs", op_error_internal::Number(c.max_abs)},
                  {"level", op_error_internal::Number(c.level)},
                  {"depth", c.depth}};
    }
  }
  std::vector<const OpError*> order;
  for (const auto& [name, e] : ops) order.push_back(&e);
  std::sort(order.begin(), order.end(),
            [](const OpError* a, const OpError* b) { return a->first_call < b->first_call; });
  nlohmann::json list = nlohmann::json::array();
  for (const OpError* e : order) list.push_back(op_error_internal::ToJson(*e));
  nlohmann::json reasons = nlohmann::json::object();
  for (const auto& [why, n] : skipped) reasons[why] = n;
  return {{"ops", list},
          {"departed", departed},
          {"calls", static_cast<int64_t>(calls.size())},
          {"checked_calls", checked},
          {"skipped_calls", static_cast<int64_t>(calls.size()) - checked},
          {"skipped", reasons}};
}

std::vector<OpError> ReadOpErrors(const CaseResult& r) {
  std::vector<OpError> out;
  const nlohmann::json* s = op_error_internal::Section(r);
  if (s == nullptr || !s->contains("ops") || !(*s)["ops"].is_array()) return out;
  for (const auto& j : (*s)["ops"]) {
    std::optional<OpError> e = op_error_internal::FromJson(j, false);
    if (!e) return {};
    out.push_back(*e);
  }
  return out;
}

std::optional<OpError> DepartedOp(const CaseResult& r) {
  const nlohmann::json* s = op_error_internal::Section(r);
  if (s == nullptr || !s->contains("departed")) return std::nullopt;
  return op_error_internal::FromJson((*s)["departed"], true);
}

int64_t OpErrorCallCount(const CaseResult& r) {
  const nlohmann::json* s = op_error_internal::Section(r);
  if (s == nullptr) return 0;
  const auto d = s->find("departed");
  if (d != s->end() && d->is_object() && d->contains("of") && (*d)["of"].is_number_integer())
    return (*d)["of"].get<int64_t>();
  const auto n = s->find("calls");
  return n != s->end() && n->is_number_integer() ? n->get<int64_t>() : 0;
}

std::string DepartureText(const OpError& departed, int64_t of_calls) {
  std::string text = departed.op + " (call " + std::to_string(departed.first_call);
  if (of_calls > 0) text += " of " + std::to_string(of_calls);
  return text + ", local rel_l2 " + HumanNumber(departed.rel_l2) + ")";
}

void NameDepartedOp(CaseResult* r) {
  if (r->status != CaseStatus::kFailed) return;
  const std::optional<OpError> d = DepartedOp(*r);
  if (!d) return;
  r->message += (r->message.empty() ? "" : "; ") + std::string("first departing op: ") +
                DepartureText(*d, OpErrorCallCount(*r));
}

}  // namespace harness
