// Copies between host and device, and the DL16 conversions they imply.
//
// Host -> device into fp16/bf16 storage encodes DL16: fp16 sources drop their
// 10th fraction bit (kFp16InputRounding), bf16 and fp32 sources round with
// the current setting, other dtypes go through fp32. Device -> host decodes
// DL16 exactly to fp32, then converts to the destination dtype (for fp16:
// nearest-even, overflowing to Inf; see docs/device.md).
// Contiguous fp16/bf16/fp32 copies convert straight between the host buffer
// and device memory; anything strided is staged through a contiguous buffer
// and scattered or gathered with CPU copies over a HostAlias.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "glue/glue.h"
#include "spyre_emu/dl16.h"
#include "spyre_emu/stats.h"
#include "spyre_emu/trace.h"

namespace spyre_emu::glue {

namespace {

// Encodes a contiguous CPU tensor (any dtype) into n DL16 codes at out.
void EncodeContiguous(const at::Tensor& src, uint16_t* out) {
  const size_t n = static_cast<size_t>(src.numel());
  switch (src.scalar_type()) {
    case at::kHalf:
      Dl16FromFp16(static_cast<const uint16_t*>(src.data_ptr()), out, n, kFp16InputRounding);
      return;
    case at::kBFloat16:
      Dl16FromBf16(static_cast<const uint16_t*>(src.data_ptr()), out, n, CurrentRounding());
      return;
    case at::kFloat:
      Dl16FromFp32(src.data_ptr<float>(), out, n, CurrentRounding());
      return;
    default: {
      const at::Tensor f = src.to(at::kFloat).contiguous();
      Dl16FromFp32(f.data_ptr<float>(), out, n, CurrentRounding());
    }
  }
}

// Decodes n DL16 codes into a contiguous CPU tensor of dtype fp16, bf16 or fp32.
bool DecodeContiguous(const uint16_t* src, const at::Tensor& dst) {
  const size_t n = static_cast<size_t>(dst.numel());
  switch (dst.scalar_type()) {
    case at::kHalf:
      Dl16ToFp16(src, static_cast<uint16_t*>(dst.data_ptr()), n);
      return true;
    case at::kBFloat16:
      Dl16ToBf16(src, static_cast<uint16_t*>(dst.data_ptr()), n);
      return true;
    case at::kFloat:
      Dl16ToFp32(src, dst.data_ptr<float>(), n);
      return true;
    default:
      return false;
  }
}

void DeviceToDevice(const at::Tensor& src, const at::Tensor& dst) {
  if (dst.numel() == 0) return;
  CheckDeviceDtype(dst.scalar_type());
  const bool same_storage_format = src.scalar_type() == dst.scalar_type() ||
                                   (IsDl16(src.scalar_type()) && IsDl16(dst.scalar_type()));
  if (same_storage_format) {
    // fp16 and bf16 are both DL16 on the device: the codes copy unchanged.
    DeviceAccess access({src, dst});
    at::Tensor from = HostAlias(src).expand(dst.sizes());
    if (src.storage().is_alias_of(dst.storage())) from = from.clone();
    HostAlias(dst).copy_(from);
    return;
  }
  // A dtype change: through the host, in fp32 for DL16 sources.
  at::Tensor staged;
  if (IsDl16(src.scalar_type())) {
    staged = ReadAsFloat(src);
  } else {
    DeviceAccess access({src});
    staged = HostAlias(src).clone();
  }
  WriteFromHost(staged, dst);
}

// Contiguous fp16/bf16/fp32 targets decode straight from device memory;
// anything else goes through a decoded fp32 copy and a CPU copy_.
void DeviceToHost(const at::Tensor& src, const at::Tensor& dst) {
  DeviceAccess access({src});
  const at::Tensor alias = HostAlias(src);
  if (!IsDl16(src.scalar_type())) {
    dst.copy_(alias);
    return;
  }
  if (alias.is_contiguous() && dst.is_contiguous() &&
      DecodeContiguous(static_cast<const uint16_t*>(alias.data_ptr()), dst)) {
    return;
  }
  dst.copy_(ReadAsFloat(src));
}

at::Tensor CopyFrom(const at::Tensor& self, const at::Tensor& dst, bool /*non_blocking*/) {
  const KernelTimer timer;
  TraceEvent event;
  const at::Tensor& on_device = IsDevice(dst) ? dst : self;
  if (IsDevice(self) && IsDevice(dst)) {
    DeviceToDevice(self, dst);
    event.kind = EventKind::kDeviceToDevice;
    event.bytes = TensorBytes(dst);
  } else if (IsDevice(dst)) {
    TORCH_CHECK(self.device().is_cpu(), "spyre_emu: cannot copy from ", self.device(),
                " to the device");
    WriteFromHost(self, dst);
    event.kind = EventKind::kHostToDevice;
    event.bytes = TensorBytes(dst);
    CountHostToDevice(event.bytes);
  } else {
    TORCH_CHECK(dst.device().is_cpu(), "spyre_emu: cannot copy from the device to ", dst.device());
    DeviceToHost(self.expand(dst.sizes()), dst);
    event.kind = EventKind::kDeviceToHost;
    event.bytes = TensorBytes(dst);
    CountDeviceToHost(event.bytes);
  }
  if (TraceActive()) {
    event.op = "copy";
    event.shapes.emplace_back(self.sizes().begin(), self.sizes().end());
    event.dtype = DtypeName(on_device.scalar_type());
    event.wall_ns = timer.ElapsedNs();
    RecordEvent(event);
  }
  return dst;
}

at::Tensor CopyFromAndResize(const at::Tensor& self, const at::Tensor& dst) {
  dst.resize_(self.sizes());
  return CopyFrom(self, dst, false);
}

}  // namespace

at::Tensor ReadAsFloat(const at::Tensor& device_tensor) {
  at::Tensor out = at::empty(device_tensor.sizes(), at::kFloat);
  if (out.numel() == 0) return out;
  DeviceAccess access({device_tensor});
  const at::Tensor alias = HostAlias(device_tensor);
  if (!IsDl16(device_tensor.scalar_type())) {
    out.copy_(alias);
    return out;
  }
  const at::Tensor bits = alias.contiguous();
  DecodeContiguous(static_cast<const uint16_t*>(bits.data_ptr()), out);
  return out;
}

void WriteFromHost(const at::Tensor& host_src, const at::Tensor& device_dst) {
  TORCH_CHECK(host_src.device().is_cpu(), "spyre_emu: WriteFromHost needs a CPU source, got ",
              host_src.device());
  if (device_dst.numel() == 0) return;
  CheckDeviceDtype(device_dst.scalar_type());
  const at::Tensor src = host_src.expand(device_dst.sizes());
  DeviceAccess access({device_dst});
  if (!IsDl16(device_dst.scalar_type())) {
    HostAlias(device_dst).copy_(src);
    return;
  }
  if (device_dst.is_contiguous() && src.is_contiguous()) {
    EncodeContiguous(src, DataAs<uint16_t>(device_dst));
    return;
  }
  at::Tensor staged = at::empty(device_dst.sizes(), at::kShort);
  EncodeContiguous(src.contiguous(), static_cast<uint16_t*>(staged.data_ptr()));
  HostAlias(device_dst).copy_(staged);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_copy_from", TORCH_FN(CopyFrom));
  m.impl("_copy_from_and_resize", TORCH_FN(CopyFromAndResize));
}

}  // namespace spyre_emu::glue
