#pragma once
// The emulator's process-wide settings (torch-free).
//
// Read from the environment (config.h) once, on first use. A malformed
// environment keeps the defaults and records ConfigError(); the device glue
// reports that message at the first device use, so a bad SPYRE_EMU_* value is
// never silently ignored.
//
// SetConfig replaces the settings at run time (tests, and the CLI's --profile /
// --inject): rounding, cores, strict and faults apply to the next operation;
// capacity to the next allocation; fence to allocations made afterwards
// (existing allocations keep the mode they were made with).
#include <cstdint>
#include <string>

#include "spyre_emu/config.h"

namespace spyre_emu {

Config CurrentConfig();  // a copy, safe to keep
Rounding CurrentRounding();
Profile CurrentProfile();
// Changes with every SetConfig: what a cache of something derived from the
// settings (the parsed fault plan) compares, instead of the settings
// themselves, so a kernel call takes no lock and copies no string.
uint64_t ConfigGeneration();
int CurrentCores();
uint64_t CurrentCapacity();  // device bytes (SPYRE_EMU_MEMORY)
bool FenceEnabled();
bool StrictEnabled();
// Empty when the environment parsed; else one line naming the variable.
std::string ConfigError();

void SetConfig(const Config& config);

}  // namespace spyre_emu
