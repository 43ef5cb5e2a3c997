#include "suite_file/confined_path.h"

#include <filesystem>

namespace harness {

StatusOr<std::string> ResolveInsideRoot(const std::string& root, const std::string& relative,
                                        const std::string& pointer) {
  namespace fs = std::filesystem;
  const fs::path rel(relative);
  if (relative.empty()) return InvalidInput(pointer + ": empty path");
  if (rel.is_absolute()) {
    return InvalidInput(pointer + ": path '" + relative +
                        "' is absolute; name a file relative to the suites directory");
  }
  for (const auto& part : rel) {
    if (part == "..") {
      return InvalidInput(pointer + ": path '" + relative +
                          "' contains '..'; files must stay inside the suites directory");
    }
  }
  std::error_code ec;
  const fs::path canon_root = fs::weakly_canonical(fs::path(root), ec);
  if (ec) return IoError(root + ": cannot resolve: " + ec.message());
  // weakly_canonical follows every symlink of the existing prefix.
  const fs::path resolved = fs::weakly_canonical(canon_root / rel, ec);
  if (ec) return IoError(pointer + ": cannot resolve '" + relative + "': " + ec.message());
  auto r = resolved.begin();
  for (auto p = canon_root.begin(); p != canon_root.end(); ++p, ++r) {
    if (r == resolved.end() || *r != *p) {
      return InvalidInput(pointer + ": path '" + relative + "' leads outside the suites directory (" +
                          resolved.string() + ", through a symlink?)");
    }
  }
  return resolved.string();
}

}  // namespace harness
