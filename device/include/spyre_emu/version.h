#pragma once
namespace spyre_emu {
// The emulator's version, e.g. "0.1.0".
const char* Version();
}  // namespace spyre_emu
