#include "spyre_emu/version.h"

namespace spyre_emu {
const char* Version() { return SPYRE_EMU_VERSION_STRING; }
}  // namespace spyre_emu
