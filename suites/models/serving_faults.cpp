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
    if (request >= requests) continue;
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

}  // namespace suites
