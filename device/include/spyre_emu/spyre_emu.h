#pragma once
// spyre_emu: the emulated IBM Spyre device (umbrella header).
//
//   #include <spyre_emu/spyre_emu.h>
//   at::Tensor x = at::randn({4, 64}).to(spyre_emu::device());
//
// Link the `spyre_emu` library; loading it registers the PrivateUse1 backend.
#include "spyre_emu/config.h"
#include "spyre_emu/cost_model.h"
#include "spyre_emu/device.h"
#include "spyre_emu/dl16.h"
#include "spyre_emu/faults.h"
#include "spyre_emu/float16.h"
#include "spyre_emu/kernels.h"
#include "spyre_emu/memory.h"
#include "spyre_emu/runtime.h"
#include "spyre_emu/stats.h"
#include "spyre_emu/trace.h"
#include "spyre_emu/trace_summary.h"
#include "spyre_emu/version.h"
