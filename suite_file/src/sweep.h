#pragma once
// Sweep expansion: one case object with a "sweep" member becomes one case per
// (shapes, dtype) pair, with a stable, readable id:
//   <id>.<shape>[-<shape>...].<dtype>   e.g.  add.33x65-1x65.f16
// (a 0-d shape is written "s"). "sweep": {"shapes": [[s0, s1, ...], ...]}
// gives one shape per input; "sweep": {"shape": [s, ...]} gives every input
// the same shape; "sweep": {"dtypes": [...]} sets the dtype of every input
// that does not name its own. Either list may be absent.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace harness {

// Expands `c` (found at `pointer`); a case without "sweep" comes back alone,
// with a case-level "dtype" applied to inputs that do not name their own.
StatusOr<std::vector<nlohmann::json>> ExpandSweep(const nlohmann::json& c,
                                                  const std::string& pointer);

}  // namespace harness
