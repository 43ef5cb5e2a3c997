// The shadow check (op_check.h): RecordFunction callbacks on this thread
// that re-run each device op call on the CPU and record its local error.
#include "harness/device/op_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>

#include "harness/compare/device_format.h"
#include "harness/device/device.h"
#include "base/op_error.h"

namespace harness {
namespace op_check_internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// What the schema alone says about an operator, looked up once per overload.
struct OpInfo {
  c10::optional<c10::OperatorHandle> handle;
  std::string name;  // "mm", "spyre::rms_norm"
  std::string skip;  // non-empty: never checked, for this reason
  bool to_copy = false;
  std::vector<bool> dtype_arg;          // takes a ScalarType
  std::vector<bool> device_arg;         // takes a Device
  std::vector<bool> half_to_float_arg;  // _softmax's flag: fp16 in, fp32 out
};

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

OpInfo Describe(const c10::OperatorName& full) {
  OpInfo info;
  const std::string& qualified = full.name;
  info.name = qualified.rfind("aten::", 0) == 0 ? qualified.substr(6) : qualified;
  info.handle = c10::Dispatcher::singleton().findOp(full);
  if (!info.handle || !info.handle->hasSchema()) {
    info.skip = "no schema";
    return info;
  }
  const c10::FunctionSchema& schema = info.handle->schema();
  for (const auto& a : schema.arguments()) {
    if (a.alias_info() != nullptr) info.skip = "view or in-place";
    const c10::TypePtr& t = a.type();
    c10::TypePtr inner = t;
    if (auto opt = t->cast<c10::OptionalType>()) inner = opt->getElementType();
    info.dtype_arg.push_back(inner->kind() == c10::TypeKind::ScalarTypeType ||
                             (a.name() == "dtype" && inner->kind() == c10::TypeKind::IntType));
    info.device_arg.push_back(inner->kind() == c10::TypeKind::DeviceObjType);
    info.half_to_float_arg.push_back(a.name() == "half_to_float");
  }
  for (const auto& r : schema.returns()) {
    if (r.alias_info() != nullptr) info.skip = "view or in-place";
  }
  if (!info.skip.empty()) return info;
  const std::string& n = info.name;
  static const std::unordered_set<std::string> kMovement = {
      "clone", "_copy_from", "_copy_from_and_resize", "copy", "lift", "lift_fresh",
      "lift_fresh_copy", "_unsafe_view", "detach_copy", "alias_copy", "view_copy"};
  if (n == "_to_copy") {
    info.to_copy = true;  // data movement unless it converts: decided per call
  } else if (kMovement.count(n) != 0) {
    info.skip = "data movement";
  } else if (Contains(n, "rand") || Contains(n, "normal") || Contains(n, "bernoulli") ||
             Contains(n, "dropout") || Contains(n, "multinomial") || Contains(n, "uniform") ||
             Contains(n, "poisson")) {
    info.skip = "random";
  } else if (Contains(n, "empty")) {
    info.skip = "factory";
  }
  return info;
}

struct State {
  c10::DeviceType device = c10::DeviceType::PrivateUse1;
  OpCheckLimits limits;
  bool busy = false;  // the check's own copies and CPU runs: not observed
  int depth = 0;
  int64_t next_seq = 0;
  int64_t copied = 0;  // calls whose inputs were copied (the cap)
  std::vector<OpCall> calls;
  std::unordered_map<std::string, OpInfo> infos;  // by "name.overload"
  std::vector<struct CallContext*> open;          // the calls under way, outermost first
};
thread_local State* t_state = nullptr;

// While the check copies and re-runs: the flag keeps its own op calls out
// of the record, and RecordFunction is off on this thread, so those calls
// do not pay for boxing their arguments either.
class Busy {
 public:
  Busy() : was_(t_state->busy) { t_state->busy = true; }
  ~Busy() { t_state->busy = was_; }
  Busy(const Busy&) = delete;
  Busy& operator=(const Busy&) = delete;

 private:
  bool was_;
  at::DisableRecordFunctionGuard off_;
};

struct CallContext final : at::ObserverContext {
  const OpInfo* info = nullptr;
  int64_t seq = 0;
  int depth = 0;
  bool device_inputs = false;  // false: no tensor input at all (a factory)
  bool inner_checked = false;  // a call inside it was checked
  std::string skip;
  std::vector<c10::IValue> inputs;  // host copies for the CPU run
};

template <typename F>
void ForEachTensor(const c10::IValue& v, F&& f) {
  if (v.isTensor()) {
    f(v.toTensor());
  } else if (v.isList()) {
    const c10::List<c10::IValue> list = v.toList();
    for (size_t i = 0; i < list.size(); ++i) {
      const c10::IValue e = list.get(i);
      if (e.isTensor()) f(e.toTensor());
    }
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) ForEachTensor(e, f);
  }
}

bool OnDevice(const at::Tensor& t) { return t.defined() && t.device().type() == t_state->device; }

// The CPU's copy of one tensor: a fresh copy (the device may write its
// memory later), fp16 and bf16 as fp32. A device tensor of those dtypes is
// widened on the device first: its values as the device holds them (DL16
// has two more fraction bits than bf16, which a copy as bf16 would drop),
// unless the device cannot convert it.
at::Tensor HostTensor(const at::Tensor& t) {
  if (!t.defined()) return t;
  const at::Tensor d = t.detach();
  const bool low = d.is_floating_point() && d.scalar_type() != at::kFloat &&
                   d.scalar_type() != at::kDouble;
  if (d.is_cpu()) return low ? d.to(at::kFloat) : (OnDevice(t) ? d.clone() : d);
  if (low) {
    try {
      return d.to(at::kFloat).cpu();
    } catch (const std::exception&) {
      return d.cpu().to(at::kFloat);
    }
  }
  return d.cpu();
}

c10::IValue HostValue(const c10::IValue& v, const OpInfo& info, size_t index) {
  if (v.isTensor()) return HostTensor(v.toTensor());
  if (v.isList()) {
    c10::List<c10::IValue> list = v.toList().copy();
    for (size_t i = 0; i < list.size(); ++i) {
      const c10::IValue e = list.get(i);
      if (e.isTensor()) list.set(i, HostTensor(e.toTensor()));
    }
    return list;
  }
  if (index < info.device_arg.size() && info.device_arg[index] && v.isDevice() &&
      v.toDevice().type() == t_state->device) {
    return c10::Device(c10::kCPU);
  }
  if (index < info.dtype_arg.size() && info.dtype_arg[index] && v.isInt()) {
    const auto dtype = static_cast<at::ScalarType>(v.toInt());
    if (dtype == at::kHalf || dtype == at::kBFloat16) return static_cast<int64_t>(at::kFloat);
  }
  if (index < info.half_to_float_arg.size() && info.half_to_float_arg[index] && v.isBool())
    return false;
  return v;
}

// _to_copy moves data unless it converts a device tensor to another dtype
// on the device.
bool MovesDataOnly(const OpInfo& info, c10::ArrayRef<const c10::IValue> inputs) {
  if (inputs.empty() || !inputs[0].isTensor()) return true;
  const at::Tensor& self = inputs[0].toTensor();
  const auto& args = info.handle->schema().arguments();
  for (size_t i = 1; i < inputs.size() && i < args.size(); ++i) {
    if (args[i].name() == "dtype" && inputs[i].isInt() &&
        static_cast<at::ScalarType>(inputs[i].toInt()) != self.scalar_type()) {
      for (size_t k = 1; k < inputs.size() && k < args.size(); ++k) {
        if (args[k].name() == "device" && inputs[k].isDevice() &&
            inputs[k].toDevice().type() != self.device().type())
          return true;
      }
      return false;
    }
  }
  return true;
}

const OpInfo& InfoFor(const c10::OperatorName& name) {
  const std::string key = name.name + "." + name.overload_name;
  auto it = t_state->infos.find(key);
  if (it == t_state->infos.end()) it = t_state->infos.emplace(key, Describe(name)).first;
  return it->second;
}

std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn) {
  if (t_state == nullptr || t_state->busy) return nullptr;
  const c10::optional<c10::OperatorName> name = fn.operator_name();
  if (!name) return nullptr;
  const c10::ArrayRef<const c10::IValue> inputs = fn.inputs();
  bool any_tensor = false, on_device = false;
  int64_t elements = 0;
  for (const auto& v : inputs) {
    ForEachTensor(v, [&](const at::Tensor& t) {
      if (!t.defined()) return;
      any_tensor = true;
      on_device = on_device || OnDevice(t);
      elements += t.numel();
    });
  }
  if (any_tensor && !on_device) return nullptr;  // a host op
  auto ctx = std::make_unique<CallContext>();
  ctx->seq = t_state->next_seq++;
  ctx->depth = t_state->depth++;
  ctx->device_inputs = on_device;
  t_state->open.push_back(ctx.get());
  try {
    Busy busy;
    ctx->info = &InfoFor(*name);
    const OpInfo& info = *ctx->info;
    if (!on_device) {
      ctx->skip = "factory";
    } else if (!info.skip.empty()) {
      ctx->skip = info.skip;
    } else if (info.to_copy && MovesDataOnly(info, inputs)) {
      ctx->skip = "data movement";
    } else if (elements > t_state->limits.max_elements) {
      ctx->skip = "too large";
    } else if (t_state->copied >= t_state->limits.max_checked_calls) {
      ctx->skip = "past the call cap";
    } else {
      ++t_state->copied;
      ctx->inputs.reserve(inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i)
        ctx->inputs.push_back(HostValue(inputs[i], info, i));
    }
  } catch (const std::exception&) {
    ctx->inputs.clear();
    ctx->skip = "inputs not readable";
  }
  return ctx;
}

struct Local {
  double rel_l2 = 0;
  double max_abs = 0;
};

// The largest magnitude a value of `dtype` keeps finite in the device's
// storage (DL16: 2^32 (1 + 510/512); beyond, its NaN/Inf code).
double FiniteBound(at::ScalarType dtype) {
  const bool dl16 = StoredAsDl16(dtype);
  if (dl16) return std::ldexp(1.0 + 510.0 / 512, 32);
  if (dtype == at::kHalf) return 65504.0;
  if (dtype == at::kBFloat16) return std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
  return std::numeric_limits<double>::max();
}

// The unit roundoff of the format the device holds `dtype` in.
double StorageUnitRoundoff(at::ScalarType dtype) {
  if (StoredAsDl16(dtype)) return std::ldexp(1.0, -10);
  switch (dtype) {
    case at::kHalf: return std::ldexp(1.0, -11);
    case at::kBFloat16: return std::ldexp(1.0, -8);
    case at::kFloat: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -53);
  }
}

// The device output (its values as the device holds them) against the
// CPU's, both in fp64. Where the reference is beyond what the device's
// format holds finite, the device's value must be non-finite (DL16 has one
// NaN/Inf code, so any non-finite value matches); any other mismatch of
// finiteness is an infinite error.
Local Compare(const at::Tensor& device_out, const at::Tensor& ref) {
  if (!ref.defined() || device_out.sizes() != ref.sizes()) return {kInf, kInf};
  if (device_out.numel() == 0) return {};
  // One pass over both in plain C++: a handful of ATen calls per output
  // would cost more than the op itself for the small tensors of a decode.
  const at::Tensor d = HostTensor(device_out).to(at::kDouble).contiguous();
  const at::Tensor r = ref.to(at::kDouble).contiguous();
  const double* dp = d.data_ptr<double>();
  const double* rp = r.data_ptr<double>();
  const double bound = FiniteBound(device_out.scalar_type());
  double diff2 = 0, ref2 = 0;
  Local l;
  for (int64_t i = 0, n = d.numel(); i < n; ++i) {
    const bool expect_finite = std::isfinite(rp[i]) && std::abs(rp[i]) <= bound;
    if (expect_finite != std::isfinite(dp[i])) return {kInf, kInf};
    if (!expect_finite) continue;
    const double e = dp[i] - rp[i];
    diff2 += e * e;
    ref2 += rp[i] * rp[i];
    l.max_abs = std::max(l.max_abs, std::abs(e));
  }
  l.rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? kInf : 0.0);
  return l;
}

void OnEnd(const at::RecordFunction& fn, at::ObserverContext* base) {
  if (base == nullptr || t_state == nullptr) return;
  auto* ctx = static_cast<CallContext*>(base);
  --t_state->depth;
  if (!t_state->open.empty() && t_state->open.back() == ctx) t_state->open.pop_back();
  OpCall call;
  call.seq = ctx->seq;
  call.depth = ctx->depth;
  call.op = ctx->info != nullptr ? ctx->info->name : std::string(fn.name());
  std::vector<at::Tensor> outs;
  for (const auto& v : fn.outputs()) ForEachTensor(v, [&](const at::Tensor& t) { outs.push_back(t); });
  if (!ctx->device_inputs) {
    bool device_out = false;
    for (const auto& t : outs) device_out = device_out || OnDevice(t);
    if (!device_out) return;  // a host factory
  }
  call.skipped = ctx->skip;
  int64_t elements = 0;
  bool floating = false;
  for (const auto& t : outs) {
    if (!t.defined()) continue;
    elements += t.numel();
    floating = floating || t.is_floating_point();
  }
  if (call.skipped.empty() && !floating) call.skipped = "no floating output";
  if (call.skipped.empty() && elements > t_state->limits.max_elements) call.skipped = "too large";
  if (call.skipped.empty()) {
    try {
      Busy busy;
      std::vector<c10::IValue> stack = std::move(ctx->inputs);
      ctx->info->handle->callBoxed(&stack);
      std::vector<at::Tensor> refs;
      for (const auto& v : stack) ForEachTensor(v, [&](const at::Tensor& t) { refs.push_back(t); });
      if (refs.size() != outs.size()) {
        call.skipped = "CPU outputs differ in number";
      } else {
        call.checked = true;
        double worst_ratio = -1;
        for (size_t i = 0; i < outs.size(); ++i) {
          if (!outs[i].defined() || !outs[i].is_floating_point()) continue;
          const Local l = Compare(outs[i], refs[i]);
          const double level = DepartureLevel(StorageUnitRoundoff(outs[i].scalar_type()));
          const double ratio = std::isnan(l.rel_l2) ? kInf : l.rel_l2 / level;
          if (ratio > worst_ratio) {
            worst_ratio = ratio;
            call.rel_l2 = l.rel_l2;
            call.level = level;
          }
          if (!(l.max_abs <= call.max_abs)) call.max_abs = l.max_abs;
        }
      }
    } catch (const std::exception&) {
      call.checked = false;
      call.skipped = "the CPU cannot run it (" + call.op + ")";
    }
  }
  call.composite = ctx->inner_checked;
  if ((call.checked || ctx->inner_checked) && !t_state->open.empty())
    t_state->open.back()->inner_checked = true;
  t_state->calls.push_back(std::move(call));
}

nlohmann::json RunChecked(const std::function<void()>& fn, const OpCheckLimits& limits) {
  State state;
  state.device = CurrentDevice().torch_device().type();
  state.limits = limits;
  if (t_state != nullptr) {  // already checking on this thread: run it plain
    fn();
    return nlohmann::json();
  }
  t_state = &state;
  const at::CallbackHandle handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback(&OnStart, &OnEnd)
          .needsInputs(true)
          .needsOutputs(true)
          .scopes({at::RecordScope::FUNCTION}));
  struct Remove {
    at::CallbackHandle h;
    ~Remove() {
      at::removeCallback(h);
      t_state = nullptr;
    }
  } remove{handle};
  fn();
  return SummarizeOpCalls(state.calls);
}

}  // namespace
}  // namespace op_check_internal

nlohmann::json CheckOpsOnDevice(const std::function<void()>& fn, const OpCheckLimits& limits) {
  return op_check_internal::RunChecked(fn, limits);
}

}  // namespace harness
