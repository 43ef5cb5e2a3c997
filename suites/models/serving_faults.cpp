// The serving fault points' entries of a fault spec.
#include "serving_faults.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace suites {
namespace {

std::string TrimSpaces(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) out.push_back(TrimSpaces(part));
  return out;
}

}  // namespace

ServingFaultSpec ParseServingFaults(const std::string& spec, int64_t requests) {
  ServingFaultSpec out;
  for (const std::string& entry : SplitOn(spec, ';')) {
    const size_t colon = entry.find(':');
    if (colon == std::string::npos) continue;
    const std::string op = TrimSpaces(entry.substr(0, colon));
    const bool slow_prefill = op == kServingSlowPrefillPoint;
    if (op != kServingDropPoint && op != kServingFreeEarlyPoint && !slow_prefill) continue;
    int64_t request = -1, step = -1;
    double slow = 1;
    for (const std::string& kind : SplitOn(entry.substr(colon + 1), ',')) {
      const size_t eq = kind.find('=');
      if (eq == std::string::npos) continue;
      const std::string name = TrimSpaces(kind.substr(0, eq));
      const std::string value = TrimSpaces(kind.substr(eq + 1));
      char* end = nullptr;
      if (name == "slow") {
        const double f = std::strtod(value.c_str(), &end);
        if (end != value.c_str() && *end == '\0' && std::isfinite(f)) slow = f;
        continue;
      }
      if (name != "request" && name != "step") continue;
      const long long v = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || v < 0) continue;
      (name == "request" ? request : step) = v;
    }
    if (slow_prefill && (request < 0 || step >= 0 || !(slow > 1))) {
      out.error = "fault point '" + op +
                  "' needs request=R (the request's index in the trace) and slow=F with F > 1, "
                  "and no step= (its step is the one that prefills R), e.g. " +
                  op + ":request=3,slow=3";
      return out;
    }
    if (!slow_prefill && (request < 0 || step < 0)) {
      out.error = "fault point '" + op +
                  "' needs request=R (the request's index in the trace) "
                  "and step=S, e.g. " +
                  op + ":request=0,step=2";
      return out;
    }
    if (request >= requests) {
      out.error = "fault point '" + entry + "' names request " + std::to_string(request) +
                  ", but this trace has " + std::to_string(requests) + " (0 to " +
                  std::to_string(requests - 1) +
                  "): aim request= at one of them, or run only the traces that have it "
                  "(--filter)";
      return out;
    }
    if (slow_prefill) {
      out.slow_prefill.request = request;
      out.slow_prefill.factor = slow;
    } else if (op == kServingDropPoint) {
      out.faults.drop_request = request;
      out.faults.drop_step = step;
    } else {
      out.faults.free_early_request = request;
      out.faults.free_early_step = step;
    }
  }
  return out;
}

std::string UnfiredServingFault(const SchedulerFaults& faults, const FaultsFired& fired,
                                const std::vector<RequestRecord>& records,
                                const std::vector<ServingRequest>& trace, int64_t steps) {
  auto who = [&](int64_t r) {
    return "request " + std::to_string(r) + " ('" + trace[static_cast<size_t>(r)].id + "')";
  };
  auto point = [](const char* op, int64_t r, int64_t s) {
    return "fault point '" + std::string(op) + ":request=" + std::to_string(r) +
           ",step=" + std::to_string(s) + "' did nothing: ";
  };
  const std::string of_steps = " of the trace's " + std::to_string(steps) + " steps";
  if (faults.drop_request >= 0 && !fired.drop) {
    const RequestRecord& rec = records[static_cast<size_t>(faults.drop_request)];
    return point(kServingDropPoint, faults.drop_request, faults.drop_step) +
           who(faults.drop_request) + " yielded its last token at step " +
           std::to_string(rec.finished_step) + of_steps + "; aim step= at 0 to " +
           std::to_string(rec.finished_step);
  }
  if (faults.free_early_request >= 0 && !fired.free_early) {
    const RequestRecord& rec = records[static_cast<size_t>(faults.free_early_request)];
    const std::string head = point(kServingFreeEarlyPoint, faults.free_early_request,
                                   faults.free_early_step) +
                             who(faults.free_early_request);
    if (rec.state == RequestState::kDropped) {
      return head + " was dropped (" + kServingDropPoint + ") before step " +
             std::to_string(faults.free_early_step) + "; aim one of the two elsewhere";
    }
    // Its blocks are taken at its prefill step; a step after that, up to
    // the one that yields its last token, finds it reading them.
    if (rec.finished_step <= rec.admitted_step) {
      return head + " yields its only token at its prefill (step " +
             std::to_string(rec.admitted_step) +
             "), so no step finds it holding blocks; aim request= at one that decodes";
    }
    return head + " held KV blocks from step " + std::to_string(rec.admitted_step + 1) + " to " +
           std::to_string(rec.finished_step) + of_steps + "; aim step= inside that span";
  }
  return "";
}

}  // namespace suites
