#include <unistd.h>

#include <climits>
#include <filesystem>

#include "cli.h"

namespace harness::cli {

std::string DefaultProjectRoot() {
  namespace fs = std::filesystem;
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n > 0) {
    buf[n] = '\0';
    std::error_code ec;
    for (fs::path dir = fs::path(buf).parent_path(); !dir.empty(); dir = dir.parent_path()) {
      if (fs::is_directory(dir / "suites", ec) && fs::is_directory(dir / "golden", ec)) {
        return dir.string();
      }
      if (dir == dir.root_path()) break;
    }
  }
  return SPYRE_SOURCE_DIR;  // baked in by harness/CMakeLists.txt
}

}  // namespace harness::cli
