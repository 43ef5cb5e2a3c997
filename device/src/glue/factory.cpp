// Device storage: the allocator, empty / empty_strided, resize_ and set_.
//
// Every allocation goes through the emulator core, which accounts it with
// stick padding. The allocator registered for PrivateUse1 (used by libtorch
// when it grows a storage without knowing the shape) accounts its bytes
// rounded up to whole sticks; empty / empty_strided know the shape and
// account the padded size.
#include <ATen/ATen.h>
#include <c10/core/Allocator.h>
#include <c10/util/strides.h>
#include <torch/library.h>

#include <algorithm>
#include <cstring>

#include "glue/glue.h"
#include "spyre_emu/memory.h"
#include "spyre_regress/torch_compat.h"

namespace spyre_emu::glue {

namespace {

const c10::Device kDevice(c10::DeviceType::PrivateUse1, 0);

void FreeDeviceData(void* data) { DeviceFree(data); }

// `what` names the tensor in an out-of-memory message ("" when unknown).
at::DataPtr AllocateDeviceData(size_t host_bytes, uint64_t device_bytes,
                               const std::string& what = "") {
  void* data = nullptr;
  const Status status = DeviceAllocate(host_bytes, device_bytes, &data);
  if (!status.ok() && !what.empty())
    ThrowIfError(Status(status.code(), status.message() + " (for a " + what + " tensor)"));
  ThrowIfError(status);
  return at::DataPtr(data, data, &FreeDeviceData, kDevice);
}

uint64_t StickRoundUp(uint64_t bytes) {
  return (bytes + kStickBytes - 1) / kStickBytes * kStickBytes;
}

struct SpyreAllocator final : spyre_compat::DeviceAllocator {
  at::DataPtr Allocate(size_t n) const override { return AllocateDeviceData(n, StickRoundUp(n)); }
  void CopyBytes(void* dst, const void* src, size_t n) const override {
    if (n == 0) return;
    AccessScope access{dst, src};
    std::memcpy(dst, src, n);
  }
  c10::DeleterFnPtr raw_deleter() const override { return &FreeDeviceData; }
};

SpyreAllocator g_allocator;

// Device bytes of a new tensor: the padded size, or the storage's
// own size when the strides reach further (gaps) or overlap (expanded).
uint64_t AccountedBytes(at::IntArrayRef sizes, size_t storage_bytes, size_t elem_size) {
  const uint64_t padded =
      PaddedDeviceBytes(std::vector<int64_t>(sizes.begin(), sizes.end()), elem_size);
  return std::max<uint64_t>(padded, StickRoundUp(storage_bytes));
}

at::Tensor MakeTensor(at::IntArrayRef sizes, at::IntArrayRef strides, at::ScalarType dtype) {
  CheckDeviceDtype(dtype);
  const size_t elem = c10::elementSize(dtype);
  const size_t nbytes = at::detail::computeStorageNbytes(sizes, strides, elem);
  auto storage = c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), nbytes,
      AllocateDeviceData(nbytes, AccountedBytes(sizes, nbytes, elem),
                         c10::str(sizes, " ", DtypeName(dtype))),
      &g_allocator,
      /*resizable=*/true);
  at::Tensor t = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      c10::scalarTypeToTypeMeta(dtype));
  t.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides);
  return t;
}

// Makes the storage hold at least `bytes`, keeping its contents.
void EnsureStorageBytes(const at::Storage& storage, size_t bytes, uint64_t device_bytes) {
  if (storage.nbytes() >= bytes) return;
  at::DataPtr fresh = AllocateDeviceData(bytes, std::max(device_bytes, StickRoundUp(bytes)));
  if (storage.nbytes() > 0 && storage.data() != nullptr) {
    AccessScope scope{storage.data(), fresh.get()};
    std::memcpy(fresh.get(), storage.data(), storage.nbytes());
  }
  storage.unsafeGetStorageImpl()->set_data_ptr_noswap(std::move(fresh));
  storage.unsafeGetStorageImpl()->set_nbytes(bytes);
}

at::Tensor Empty(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                 c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                 c10::optional<bool> /*pin_memory*/,
                 c10::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!layout || *layout == at::kStrided,
              "spyre_emu: only strided tensors live on the device");
  TORCH_CHECK(!device || device->index() <= 0, "spyre_emu: there is one device, ", kDevice.str());
  const at::ScalarType type = dtype.value_or(at::get_default_dtype_as_scalartype());
  at::Tensor t = MakeTensor(size, c10::contiguous_strides(size), type);
  const auto format = memory_format.value_or(at::MemoryFormat::Contiguous);
  if (format != at::MemoryFormat::Contiguous)
    t.unsafeGetTensorImpl()->empty_tensor_restride(format);
  return t;
}

at::Tensor EmptyStrided(at::IntArrayRef size, at::IntArrayRef stride,
                        c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                        c10::optional<at::Device> device, c10::optional<bool> /*pin_memory*/) {
  TORCH_CHECK(!layout || *layout == at::kStrided,
              "spyre_emu: only strided tensors live on the device");
  TORCH_CHECK(!device || device->index() <= 0, "spyre_emu: there is one device, ", kDevice.str());
  return MakeTensor(size, stride, dtype.value_or(at::get_default_dtype_as_scalartype()));
}

const at::Tensor& Resize(const at::Tensor& self, at::IntArrayRef size,
                         c10::optional<at::MemoryFormat> memory_format) {
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  if (self.sizes() == size && !memory_format) return self;
  impl->set_sizes_contiguous(size);
  const size_t elem = self.element_size();
  const size_t needed = (impl->storage_offset() + impl->numel()) * elem;
  if (impl->numel() > 0) {
    EnsureStorageBytes(self.storage(), needed, AccountedBytes(size, needed, elem));
  }
  if (memory_format) impl->empty_tensor_restride(*memory_format);
  return self;
}

at::Tensor& SetStorageOffset(at::Tensor& self, at::Storage source, int64_t offset,
                             at::IntArrayRef size, at::IntArrayRef stride) {
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  impl->set_storage_keep_dtype(std::move(source));
  impl->set_storage_offset(offset);
  if (stride.empty()) {
    impl->set_sizes_contiguous(size);
  } else {
    impl->set_sizes_and_strides(size, stride);
  }
  if (self.numel() > 0) {
    const size_t needed =
        at::detail::computeStorageNbytes(size, self.strides(), self.element_size()) +
        offset * self.element_size();
    EnsureStorageBytes(self.storage(), needed, 0);
  }
  return self;
}

at::Tensor& SetStorage(at::Tensor& self, at::Storage source) {
  const int64_t n = static_cast<int64_t>(source.nbytes() / self.element_size());
  return SetStorageOffset(self, std::move(source), 0, {n}, {});
}

at::Tensor& SetTensor(at::Tensor& self, const at::Tensor& source) {
  if (self.is_same(source)) return self;
  return SetStorageOffset(self, source.storage(), source.storage_offset(), source.sizes(),
                          source.strides());
}

at::Tensor& SetEmpty(at::Tensor& self) {
  at::Storage empty(c10::make_intrusive<c10::StorageImpl>(c10::StorageImpl::use_byte_size_t(), 0,
                                                          AllocateDeviceData(0, 0), &g_allocator,
                                                          /*resizable=*/true));
  return SetStorageOffset(self, std::move(empty), 0, {0}, {});
}

}  // namespace

at::Tensor EmptyDevice(at::IntArrayRef sizes, at::ScalarType dtype) {
  return MakeTensor(sizes, c10::contiguous_strides(sizes), dtype);
}

at::Tensor EmptyDeviceStrided(at::IntArrayRef sizes, at::IntArrayRef strides,
                              at::ScalarType dtype) {
  return MakeTensor(sizes, strides, dtype);
}

REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", TORCH_FN(Empty));
  m.impl("empty_strided", TORCH_FN(EmptyStrided));
  m.impl("resize_", TORCH_FN(Resize));
  m.impl("set_.source_Storage_storage_offset", TORCH_FN(SetStorageOffset));
  m.impl("set_.source_Storage", TORCH_FN(SetStorage));
  m.impl("set_.source_Tensor", TORCH_FN(SetTensor));
  m.impl("set_", TORCH_FN(SetEmpty));
}

}  // namespace spyre_emu::glue
