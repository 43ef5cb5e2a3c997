#include "runner/inject_names.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "base/suggest.h"
#include "harness/case_kinds/case_kinds.h"

namespace harness::runner_internal {
namespace {

// How each ATen operator name (overloads folded) reaches the device.
struct AtenOps {
  std::set<std::string> device;     // has a device kernel or reaches the CPU fallback
  std::set<std::string> composite;  // decomposed before dispatch on every overload
  std::set<std::string> kernels;    // with a device kernel (suggested first)
};

AtenOps CollectOps() {
  AtenOps out;
  std::map<std::string, bool> reaches;  // name -> some overload reaches the device
  for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
    if (name.name.rfind("aten::", 0) != 0) continue;
    const std::string op = name.name.substr(6);
    auto handle = c10::Dispatcher::singleton().findOp(name);
    if (!handle) continue;
    const bool device =
        handle->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1) ||
        (!handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd) &&
         !handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeExplicitAutograd));
    reaches[op] = reaches[op] || device;
    if (handle->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1) &&
        op.find("copy") == std::string::npos && op.find("empty") == std::string::npos &&
        op.find("set_") == std::string::npos) {
      out.kernels.insert(op);
    }
  }
  for (const auto& [op, device] : reaches) (device ? out.device : out.composite).insert(op);
  return out;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string Closest(const std::string& op, const std::set<std::string>& known) {
  // The matmul family: what `linear` and `matmul` become on the device; a
  // misspelt one ("matmull") means the family, not the nearest kernel by
  // letters ("mul").
  for (const char* family : {"linear", "matmul", "einsum", "dot"}) {
    if (op == family) return "mm, addmm, bmm or baddbmm";
    if (op.size() > 3 && EditDistance(op, family) <= 2) {
      return std::string("mm, addmm, bmm or baddbmm (what ") + family + " becomes on the device)";
    }
  }
  std::vector<std::pair<size_t, std::string>> ranked;
  for (const std::string& k : known) {
    const bool contains = k.find(op) != std::string::npos || op.find(k) != std::string::npos;
    ranked.emplace_back(contains && k.size() > 2 ? 0 : EditDistance(op, k), k);
  }
  std::sort(ranked.begin(), ranked.end());
  std::string out;
  for (size_t i = 0; i < ranked.size() && i < 3; ++i) out += (i ? ", " : "") + ranked[i].second;
  return out;
}

}  // namespace

StatusOr<std::string> CheckInjectOps(const std::string& spec, const char* what) {
  static const AtenOps ops = CollectOps();
  std::stringstream in(spec);
  std::string entry, out;
  while (std::getline(in, entry, ';')) {
    if (Trim(entry).empty()) {
      out += entry + ";";
      continue;
    }
    const size_t colon = entry.find(':');
    const std::string op = Trim(entry.substr(0, colon));
    if (IsFaultPoint(op)) {  // a case kind's, not the device's
      out += entry + ";";
      continue;
    }
    std::string mapped = op;
    if (ops.device.count(op) == 0) {
      std::vector<std::string> behind;
      for (const char* prefix : {"_", "native_"}) {
        if (ops.device.count(prefix + op) != 0) behind.push_back(std::string(prefix) + op);
      }
      if (ops.composite.count(op) != 0 && behind.size() == 1) {
        mapped = behind.front();
      } else if (ops.composite.count(op) != 0) {
        return UsageError(
            std::string(what) + ": op '" + op +
            "' never reaches the device (libtorch decomposes it before dispatch); inject into "
            "the ops it becomes, e.g. " +
            Closest(op, ops.kernels));
      } else {
        return UsageError(std::string(what) + ": '" + op +
                          "' is not an ATen op the device runs; did you mean " +
                          Closest(op, ops.kernels) + "?");
      }
    }
    out += mapped + entry.substr(colon) + ";";
  }
  if (!out.empty() && (spec.empty() || spec.back() != ';')) out.pop_back();
  return out;
}

}  // namespace harness::runner_internal
