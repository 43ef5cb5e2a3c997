// The PrivateUse1 glue: converts between libtorch and the emulator core.
#include <ATen/ATen.h>

#include "spyre_emu/spyre_emu.h"

namespace spyre_emu {
// Placeholder translation unit until the backend registration lands (issue 3).
}  // namespace spyre_emu
