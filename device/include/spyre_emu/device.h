#pragma once
// The emulated device as libtorch sees it (needs libtorch; link spyre_emu).
//
//   at::Tensor x = at::randn({4, 64}).to(spyre_emu::device());
//
// The device is PrivateUse1 ("privateuseone:0" in libtorch 1.13), one device,
// index 0. Storage: fp16 and bf16 tensors hold DL16 bit patterns, fp32 holds
// IEEE fp32, integer and bool tensors hold their values; fp64 and complex
// tensors are refused with an error, as on the real hardware.
#include <c10/core/Device.h>

namespace spyre_emu {

// The emulated device. Throws c10::Error when the SPYRE_EMU_* settings in the
// environment are malformed (the message names the variable).
c10::Device device();

}  // namespace spyre_emu
