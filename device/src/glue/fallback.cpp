// The counted boxed CPU fallback: every op without a device kernel.
//
// libtorch 1.13's CPU has no fp16 kernels for mm, softmax, layer_norm and
// more, so device fp16/bf16 arguments reach the CPU as fp32 (their DL16
// values decode exactly), and results come back rounded to DL16. The dtype a
// result returns as is decided by DtypePlan below.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <limits>

#include "glue/glue.h"
#include "glue/kernels/fallback_faults.h"
#include "spyre_emu/stats.h"
#include "spyre_emu/trace.h"

namespace spyre_emu::glue {

namespace {

// Which dtype an fp32 CPU result returns to the device as. The op would have
// produced fp16 (or bf16) had the CPU computed in the device dtype when all
// the device inputs were fp16 (or all bf16), no dimensioned fp32/fp64 tensor
// took part (0-dim tensors do not promote), and no dtype= argument was given.
struct DtypePlan {
  c10::optional<at::ScalarType> low;
  bool mixed_low = false;
  bool wide = false;
  bool explicit_dtype = false;

  void Note(const at::Tensor& t) {
    if (!t.defined()) return;
    const at::ScalarType s = t.scalar_type();
    if (IsDevice(t) && IsDl16(s)) {
      if (low && *low != s) mixed_low = true;
      low = s;
    } else if ((s == at::kFloat || s == at::kDouble) && t.dim() > 0) {
      wide = true;
    }
  }
  at::ScalarType ResultType(at::ScalarType produced) const {
    if (produced == at::kFloat && low && !mixed_low && !wide && !explicit_dtype) return *low;
    return produced;
  }
};

struct MovedArg {
  at::Tensor device;                      // the caller's device tensor
  at::Tensor host;                        // the copy the CPU op sees
  const c10::AliasInfo* alias = nullptr;  // schema alias of a written argument
};

at::Tensor ToHost(const at::Tensor& t) {
  if (IsDl16(t.scalar_type())) return ReadAsFloat(t);
  DeviceAccess access({t});
  return HostAlias(t).clone();
}

at::Tensor ToDevice(const at::Tensor& host, const DtypePlan& plan) {
  if (!host.defined()) return host;
  at::Tensor out = EmptyDevice(host.sizes(), plan.ResultType(host.scalar_type()));
  WriteFromHost(host, out);
  return out;
}

}  // namespace

void RunCpuFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const c10::FunctionSchema& schema = op.schema();
  const std::string name = OpName(op);
  TORCH_CHECK(!StrictEnabled(), "spyre_emu: SPYRE_EMU_STRICT=1 and ", schema.operator_name(),
              " has no device kernel, so it would run on the CPU fallback (op '", name, "')");
  CountCpuFallback(name);
  // SPYRE_EMU_FAULTS apply to fallback ops too: abort / segv / hang / oom act
  // here, error / nan / slow on the results (glue/kernels/fallback_faults.h).
  const device_kernels::FallbackFaults faults(name);
  const KernelTimer timer;
  TraceEvent event;
  event.kind = EventKind::kCpuFallback;
  event.op = name;
  event.fallback = true;

  DtypePlan plan;
  std::vector<MovedArg> moved;
  auto move = [&](const at::Tensor& t, const c10::AliasInfo* written) {
    plan.Note(t);
    if (!IsDevice(t)) return t;
    event.shapes.emplace_back(t.sizes().begin(), t.sizes().end());
    if (event.dtype.empty()) event.dtype = DtypeName(t.scalar_type());
    event.bytes += TensorBytes(t);
    MovedArg m{t, ToHost(t), written};
    moved.push_back(m);
    return m.host;
  };

  const auto& arguments = schema.arguments();
  const size_t first = stack->size() - arguments.size();
  for (size_t i = 0; i < arguments.size(); ++i) {
    c10::IValue& v = (*stack)[first + i];
    const c10::AliasInfo* alias = arguments[i].alias_info();
    const c10::AliasInfo* written = alias != nullptr && alias->isWrite() ? alias : nullptr;
    if (v.isTensor()) {
      v = move(v.toTensor(), written);
    } else if (v.isTensorList()) {
      c10::List<at::Tensor> list;
      for (const at::Tensor& t : v.toTensorVector()) list.push_back(move(t, written));
      v = list;
    } else if (v.isList()) {  // Tensor?[] (index, index_put_)
      c10::impl::GenericList list = v.toList().copy();
      for (size_t j = 0; j < list.size(); ++j) {
        const c10::IValue e = list.get(j);
        if (e.isTensor()) list.set(j, move(e.toTensor(), written));
      }
      v = list;
    } else if (arguments[i].name() == "dtype" && !v.isNone()) {
      plan.explicit_dtype = true;
    }
  }

  op.callBoxed(stack);  // every tensor argument is on the CPU now

  for (const MovedArg& m : moved) {
    if (m.alias == nullptr) continue;
    if (m.device.sizes() != m.host.sizes()) m.device.resize_(m.host.sizes());  // out= resized
    WriteFromHost(m.host, m.device);
  }

  const auto& returns = schema.returns();
  const size_t first_return = stack->size() - returns.size();
  for (size_t j = 0; j < returns.size(); ++j) {
    c10::IValue& v = (*stack)[first_return + j];
    const c10::AliasInfo* alias = returns[j].alias_info();
    if (alias != nullptr) {
      TORCH_CHECK(alias->isWrite(), "spyre_emu: ", schema.operator_name(),
                  " returns a view of its input but has no device kernel; register it in "
                  "device/src/glue/views.cpp");
      // In-place / out=: hand back the caller's device tensor, now updated.
      for (const MovedArg& m : moved) {
        if (m.alias != nullptr && *m.alias == *alias && v.isTensor() &&
            v.toTensor().is_same(m.host)) {
          v = m.device;
          break;
        }
      }
      continue;
    }
    if (v.isTensor()) {
      v = ToDevice(v.toTensor(), plan);
    } else if (v.isTensorList()) {
      c10::List<at::Tensor> list;
      for (const at::Tensor& t : v.toTensorVector()) list.push_back(ToDevice(t, plan));
      v = list;
    }
  }

  faults.Finish(*stack, returns.size());
  if (TraceActive()) {
    event.wall_ns = timer.ElapsedNs();
    RecordEvent(event);
  }
}

namespace {
void BoxedFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  RunCpuFallback(op, stack);
}
}  // namespace

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&BoxedFallback>());
}

}  // namespace spyre_emu::glue
