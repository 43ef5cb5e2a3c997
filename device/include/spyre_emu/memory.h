#pragma once
// The emulated device memory (torch-free).
//
// Accounting follows the hardware's 128-byte sticks: a
// tensor occupies product(dims[:-1]) * round_up(dims[-1], 128 / elem_size) *
// elem_size device bytes. [5,100,150] fp16 -> 192,000; [512,256] fp16 ->
// 262,144. A 0-d tensor takes one stick; a tensor with a zero dim takes none.
// The host buffer behind an allocation holds only the tensor's own bytes
// (libtorch's strides index it); the padding is accounted, never stored.
//
// Capacity is SPYRE_EMU_MEMORY (runtime.h). Live and peak bytes are in stats().
//
// Fence (SPYRE_EMU_FENCE=1): allocations are mmap'ed PROT_NONE; only an open
// AccessScope naming them makes them readable and writable, so host code that
// reads device memory outside the runtime's copies and kernels crashes
// (SIGSEGV) instead of passing silently. With no fenced allocation live,
// AccessScope costs one atomic load per pointer.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "spyre_emu/padding.h"
#include "spyre_emu/status.h"

namespace spyre_emu {

// Allocates host_bytes of emulated device memory accounted as device_bytes.
// *out is nullptr when host_bytes is 0. Fails with kOutOfMemory when live +
// device_bytes would pass the capacity; the message names the request, the
// live bytes and the capacity.
Status DeviceAllocate(size_t host_bytes, uint64_t device_bytes, void** out);
// Frees an allocation made by DeviceAllocate; nullptr is a no-op.
void DeviceFree(void* data);
// True when ptr lies inside a live device allocation.
bool IsDevicePointer(const void* ptr);

// Opens the allocations containing the added pointers for host access until
// destruction (a no-op for allocations made without the fence). Scopes nest
// and may overlap across threads: an allocation is fenced again when its
// last scope closes. Pointers outside device memory are ignored.
class AccessScope {
 public:
  AccessScope() = default;
  AccessScope(std::initializer_list<const void*> ptrs) {
    for (const void* p : ptrs) Add(p);
  }
  ~AccessScope();
  AccessScope(const AccessScope&) = delete;
  AccessScope& operator=(const AccessScope&) = delete;

  void Add(const void* ptr);

 private:
  std::vector<void*> opened_;  // allocation bases this scope unfenced
};

}  // namespace spyre_emu
