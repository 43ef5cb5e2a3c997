// glue.h: dtypes, host access to device memory, accounting and trace.
#include <ATen/ATen.h>

#include "glue/glue.h"
#include "spyre_emu/stats.h"
#include "spyre_emu/trace.h"
#include "spyre_regress/torch_compat.h"

namespace spyre_emu::glue {

bool IsDevice(const at::Tensor& tensor) {
  return tensor.defined() && tensor.device().type() == c10::DeviceType::PrivateUse1;
}

bool IsDl16(at::ScalarType dtype) { return dtype == at::kHalf || dtype == at::kBFloat16; }

void CheckDeviceDtype(at::ScalarType dtype) {
  TORCH_CHECK(dtype != at::kDouble,
              "spyre_emu: float64 tensors are not supported on the Spyre device (as on the real "
              "hardware); convert to float32, float16 or bfloat16 before moving to the device");
  TORCH_CHECK(!at::isComplexType(dtype) && !at::isQIntType(dtype),
              "spyre_emu: ", c10::toString(dtype),
              " tensors are not supported on the Spyre device");
}

const char* DtypeName(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return "fp16";
    case at::kBFloat16:
      return "bf16";
    case at::kFloat:
      return "fp32";
    case at::kDouble:
      return "fp64";
    case at::kLong:
      return "int64";
    case at::kInt:
      return "int32";
    case at::kShort:
      return "int16";
    case at::kChar:
      return "int8";
    case at::kByte:
      return "uint8";
    case at::kBool:
      return "bool";
    default:
      return c10::toString(dtype);
  }
}

void ThrowIfError(const Status& status) {
  if (status.ok()) return;
  if (status.code() == ErrorCode::kOutOfMemory) {
    C10_THROW_ERROR(OutOfMemoryError, status.message());
  }
  TORCH_CHECK(false, status.message());
}

DeviceAccess::DeviceAccess(std::initializer_list<at::Tensor> tensors) {
  for (const at::Tensor& t : tensors) Add(t);
}

void DeviceAccess::Add(const at::Tensor& tensor) {
  if (!tensor.defined() || !IsDevice(tensor) || !tensor.has_storage()) return;
  scope_.Add(spyre_compat::MutableData(tensor.storage()));
}

void* Data(const at::Tensor& tensor) {
  if (!tensor.has_storage()) return nullptr;
  void* base = spyre_compat::MutableData(tensor.storage());
  if (base == nullptr) return nullptr;
  return static_cast<char*>(base) +
         tensor.storage_offset() * static_cast<int64_t>(tensor.element_size());
}

at::Tensor HostAlias(const at::Tensor& device_tensor) {
  const at::ScalarType dtype =
      IsDl16(device_tensor.scalar_type()) ? at::kShort : device_tensor.scalar_type();
  const auto options = at::TensorOptions().dtype(dtype).device(at::kCPU);
  void* data = Data(device_tensor);
  if (data == nullptr) return at::empty(device_tensor.sizes(), options);
  return at::from_blob(data, device_tensor.sizes(), device_tensor.strides(), options);
}

uint64_t KernelTimer::ElapsedNs() const {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now() - start_)
                                   .count());
}

void RecordKernel(const std::string& op, at::ArrayRef<at::Tensor> inputs, const at::Tensor& out,
                  uint64_t modeled_ns, int cores_used, uint64_t bytes, const KernelTimer& timer) {
  CountDeviceKernel(op);
  if (!TraceActive()) return;
  TraceEvent event;
  event.kind = EventKind::kKernel;
  event.op = op;
  for (const at::Tensor& t : inputs) {
    if (t.defined()) event.shapes.emplace_back(t.sizes().begin(), t.sizes().end());
  }
  const at::Tensor& typed = out.defined() || inputs.empty() ? out : inputs[0];
  event.dtype = typed.defined() ? DtypeName(typed.scalar_type()) : "";
  event.modeled_ns = modeled_ns;
  event.wall_ns = timer.ElapsedNs();
  event.cores_used = cores_used;
  event.bytes = bytes;
  RecordEvent(event);
}

std::string OpName(const c10::OperatorHandle& op) {
  const std::string& full = op.schema().name();
  const size_t colons = full.find("::");
  return colons == std::string::npos ? full : full.substr(colons + 2);
}

c10::OperatorHandle FindOp(const char* name, const char* overload) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
}

}  // namespace spyre_emu::glue
