#pragma once
// `run --inject` op names against the ops that reach the emulated device.
#include <string>

#include "base/status.h"

namespace harness::runner_internal {

// Returns `spec` (SPYRE_EMU_FAULTS syntax, already parsed successfully) with
// every op name one the device sees: an ATen operator with a device kernel,
// or one that reaches the device's CPU fallback (libtorch decomposes the
// composite ones, such as `softmax` and `layer_norm`, before dispatch, so a
// fault on them would never fire). A composite name with one unambiguous
// device op behind it (`softmax` -> `_softmax`, `layer_norm` ->
// `native_layer_norm`) is mapped; any other unknown name is a usage error
// naming the closest ops. A case kind's fault point (IsFaultPoint,
// harness/case_kinds/case_kinds.h) is kept as it is.
StatusOr<std::string> CheckInjectOps(const std::string& spec, const char* what);

}  // namespace harness::runner_internal
