#pragma once
// Paths named inside suite files stay inside their root (team brief):
// absolute paths, ".." components and symlinks that lead outside are refused.
#include <string>

#include "base/status.h"

namespace harness {

// Resolves `relative` against `root`. The file need not exist; when it (or a
// parent) does, symlinks are followed and the result must still lie under
// the canonical root. Errors name `pointer` (the JSON pointer of the value).
StatusOr<std::string> ResolveInsideRoot(const std::string& root, const std::string& relative,
                                        const std::string& pointer);

}  // namespace harness
