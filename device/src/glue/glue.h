#pragma once
// Internal API of the PrivateUse1 glue, for writing device kernels
// (device/src/glue/kernels/) on top of the emulator core. Stable: change it
// only together with its callers.
//
// Storage on the device (spyre_emu/device.h): fp16 and bf16 tensors hold DL16
// bit patterns; fp32, integer and bool tensors hold their own values.
//
// A kernel in three moves, with the fence (SPYRE_EMU_FENCE=1) in mind:
//
//   at::Tensor SpyreMm(const at::Tensor& a, const at::Tensor& b) {
//     glue::KernelTimer timer;                          // wall clock starts
//     at::Tensor out = glue::EmptyDevice({a.size(0), b.size(1)}, a.scalar_type());
//     {
//       glue::DeviceAccess access({a, b, out});         // lifts the fence on these
//       const uint16_t* pa = glue::DataAs<uint16_t>(a); // DL16 bits (a is fp16)
//       ...                                             // raw-buffer kernel
//     }                                                 // fence back on
//     glue::RecordKernel("mm", {a, b}, out, modeled_ns, cores_used, bytes, timer);
//     return out;
//   }
//
// or, without raw pointers:
//
//     at::Tensor fa = glue::ReadAsFloat(a);             // decoded fp32 CPU copy
//     at::Tensor fout = at::mm(fa, glue::ReadAsFloat(b));
//     glue::WriteFromHost(fout, out);                   // rounds to DL16 (setting)
//
// Everything here throws c10::Error on failure (out of memory, unsupported
// dtype), with a message that names the problem.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "spyre_emu/memory.h"
#include "spyre_emu/runtime.h"
#include "spyre_emu/status.h"

namespace spyre_emu::glue {

// ---- Types ----

// True when the tensor lives on the emulated device (PrivateUse1).
bool IsDevice(const at::Tensor& tensor);
// True for fp16 and bf16: the dtypes whose device storage is DL16.
bool IsDl16(at::ScalarType dtype);
// Throws unless the device can hold dtype (fp64 and complex cannot).
void CheckDeviceDtype(at::ScalarType dtype);
// "fp16", "bf16", "fp32", "int64", "bool"...: the names trace events use.
const char* DtypeName(at::ScalarType dtype);
// Throws a c10::Error carrying status.message() unless status is ok.
void ThrowIfError(const Status& status);
// The bytes of the tensor's elements (numel x element size).
inline uint64_t TensorBytes(const at::Tensor& t) {
  return static_cast<uint64_t>(t.numel()) * t.element_size();
}

// ---- Memory ----

// A contiguous device tensor (uninitialised), accounted with stick padding.
// Throws on out of memory (message: request, live bytes, capacity).
at::Tensor EmptyDevice(at::IntArrayRef sizes, at::ScalarType dtype);
// Same, with explicit strides (the storage covers what the strides reach).
at::Tensor EmptyDeviceStrided(at::IntArrayRef sizes, at::IntArrayRef strides, at::ScalarType dtype);

// Opens the device memory behind the given tensors for host access for its
// lifetime (the fence; a cheap no-op without it). Non-device and undefined
// tensors are ignored. Only touch device memory inside such a scope; never
// keep pointers past it.
class DeviceAccess {
 public:
  DeviceAccess() = default;
  explicit DeviceAccess(std::initializer_list<at::Tensor> tensors);
  void Add(const at::Tensor& tensor);

 private:
  AccessScope scope_;
};

// Host address of the tensor's first element (storage base + storage offset),
// nullptr for an empty tensor. Index it with the tensor's own strides. For
// fp16/bf16 device tensors the elements are DL16 bit patterns (uint16_t).
void* Data(const at::Tensor& tensor);
template <class T>
T* DataAs(const at::Tensor& tensor) {
  return static_cast<T*>(Data(tensor));
}

// A CPU tensor viewing the device tensor's memory (same sizes, strides and
// offset): fp16/bf16 appear as kShort holding DL16 bit patterns, other
// dtypes as themselves. Valid only inside a DeviceAccess naming the tensor
// and while the device tensor lives. Handy for strided gathers and scatters
// with ordinary CPU ops.
at::Tensor HostAlias(const at::Tensor& device_tensor);

// ---- Values ----

// A contiguous fp32 CPU tensor with the device tensor's values (DL16 decoded
// exactly; integers converted). Opens the fence itself. Not counted as a
// user copy.
at::Tensor ReadAsFloat(const at::Tensor& device_tensor);
// Writes a CPU tensor (any dtype, broadcastable to dst) into a device tensor
// of any strides, converting to dst's dtype: fp32/fp16/bf16 sources into an
// fp16/bf16 destination are rounded to DL16 with the current rounding
// setting (an fp16 source drops its 10th fraction bit: kFp16InputRounding).
// Opens the fence itself. Not counted as a user copy.
void WriteFromHost(const at::Tensor& host_src, const at::Tensor& device_dst);

// ---- Accounting and trace ----

// Starts the wall clock of one kernel call.
class KernelTimer {
 public:
  KernelTimer() : start_(std::chrono::steady_clock::now()) {}
  uint64_t ElapsedNs() const;

 private:
  std::chrono::steady_clock::time_point start_;
};

// Counts one device-kernel call of op ("mm": no namespace, no overload) in
// stats() and, when a TraceScope is open, records a kKernel event with the
// inputs' shapes, the output's dtype (the first input's when out is
// undefined), modeled_ns, the wall time since timer, cores_used and bytes.
void RecordKernel(const std::string& op, at::ArrayRef<at::Tensor> inputs, const at::Tensor& out,
                  uint64_t modeled_ns, int cores_used, uint64_t bytes, const KernelTimer& timer);

// ---- CPU fallback ----

// "mm" for aten::mm.out: the name stats, trace and SPYRE_EMU_FAULTS use.
std::string OpName(const c10::OperatorHandle& op);
c10::OperatorHandle FindOp(const char* name, const char* overload = "");

// The counted boxed CPU fallback, the same that serves every op without a
// device kernel: device arguments are copied to the CPU (fp16/bf16 upcast to
// fp32), the op runs on the CPU, results come back to the device (rounded to
// DL16 where the op would have produced fp16/bf16), and mutated arguments
// (in-place, out=) are written back into their device tensors. Counted per op
// in stats() and traced as a kCpuFallback event; with SPYRE_EMU_STRICT=1 it
// throws an error naming the op instead.
void RunCpuFallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// What a boxed call left on the stack, as the unboxed return type: one
// entry per return, so an op with several returns (max.dim's values and
// indices) leaves several entries, not one tuple.
template <class Return>
struct BoxedReturn {
  static Return From(const torch::jit::Stack& stack) { return stack.back().to<Return>(); }
};
template <class... Ts>
struct BoxedReturn<std::tuple<Ts...>> {
  static std::tuple<Ts...> From(const torch::jit::Stack& stack) {
    return At(stack, stack.size() - sizeof...(Ts), std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static std::tuple<Ts...> At(const torch::jit::Stack& stack, size_t first,
                              std::index_sequence<I...>) {
    return std::tuple<Ts...>(stack[first + I].template to<Ts>()...);
  }
};

// The same from an unboxed kernel (e.g. when a fault disables it):
//   return glue::CallCpuFallback<at::Tensor>("aten::mm", "", a, b);
// Return is the op's return type (at::Tensor for Tensor and Tensor&;
// std::tuple<at::Tensor, at::Tensor> for two).
template <class Return, class... Args>
Return CallCpuFallback(const char* name, const char* overload, const Args&... args) {
  const c10::OperatorHandle op = FindOp(name, overload);
  torch::jit::Stack stack;
  torch::jit::push(stack, args...);
  RunCpuFallback(op, &stack);
  TORCH_CHECK(stack.size() == op.schema().returns().size(),
              "the CPU fallback of " + OpName(op) + " left " + std::to_string(stack.size()) +
                  " values for " + std::to_string(op.schema().returns().size()) + " returns");
  return BoxedReturn<Return>::From(stack);
}

}  // namespace spyre_emu::glue
