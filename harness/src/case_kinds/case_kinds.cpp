// The case-kind registry and the one entry point the worker calls.
#include <cstdlib>
#include <exception>
#include <mutex>
#include <optional>
#include <set>

#include <c10/util/Exception.h>

#include "harness/case_kinds/case_kinds.h"

namespace harness {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<CaseKind>> kinds;
  std::set<std::string> fault_points;
  std::optional<std::string> switched_spec;  // SetFaultPointSpec's
};

Registry& TheRegistry() {
  static Registry r;
  return r;
}

CaseResult ErrorResult(const CaseSpec& c, const std::string& message) {
  return CaseResult::Error(message, c.suite, c.id);
}

}  // namespace

namespace case_kinds_internal {

Status NotParsed(const CaseSpec& c) {
  return InternalError("case '" + c.suite + "/" + c.id + "' was not parsed by its kind '" + c.kind +
                       "': a case reaches its kind's hooks from LoadSuite");
}

}  // namespace case_kinds_internal

void RegisterCaseKind(const std::string& name, CaseKindFactory factory) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.kinds[name] = factory();
}

void RegisterFaultPoint(const std::string& name) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.fault_points.insert(name);
}

bool IsFaultPoint(const std::string& name) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.fault_points.count(name) != 0;
}

std::string FaultPointSpec() {
  {
    Registry& r = TheRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.switched_spec) return *r.switched_spec;
  }
  const char* inject = std::getenv("SPYRE_REGRESS_INJECT");
  if (inject != nullptr && *inject != '\0') return inject;
  const char* emu = std::getenv("SPYRE_EMU_FAULTS");
  return emu != nullptr ? emu : "";
}

void SetFaultPointSpec(const std::string& spec) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.switched_spec = spec;
}

const CaseKind* FindCaseKind(const std::string& name) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.kinds.find(name);
  return it == r.kinds.end() ? nullptr : it->second.get();
}

std::string CaseKindNames() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string names;
  for (const auto& [name, unused] : r.kinds) names += (names.empty() ? "" : ", ") + name;
  return names;
}

CaseResult ExecuteCase(const SuiteSpec& suite, const CaseSpec& c, const ExecOptions& options) {
  const CaseKind* kind = FindCaseKind(c.kind);
  if (kind == nullptr) {
    return ErrorResult(c, "unknown case kind '" + c.kind + "' (known: " + CaseKindNames() + ")");
  }
  try {
    CaseResult r = kind->Execute(suite, c, options);
    r.suite = c.suite;
    r.case_id = c.id;
    return r;
  } catch (const c10::Error& e) {
    // libtorch's what() carries a backtrace; one line is what a report needs.
    std::string what = e.what_without_backtrace();
    what = what.substr(0, what.find('\n'));
    const bool op = c.body.contains("op") && c.body["op"].is_string();
    return ErrorResult(c, (op ? "op " + c.body["op"].get<std::string>() + ": " : std::string()) +
                              "libtorch: " + what);
  } catch (const std::exception& e) {
    return ErrorResult(c, std::string("exception: ") + e.what());
  }
}

}  // namespace harness
