#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>

#include "cli.h"

namespace harness::cli {

namespace fs = std::filesystem;

std::string DefaultProjectRoot() {
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

std::string AbsolutePath(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) p = path;
  p = p.lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p.string();
}

std::string LocateStore(const std::string& flag, std::string* origin) {
  if (!flag.empty()) {
    *origin = "--db";
    return AbsolutePath(flag);
  }
  if (const char* env = std::getenv("SPYRE_REGRESS_DB"); env != nullptr && *env != '\0') {
    *origin = "SPYRE_REGRESS_DB";
    return AbsolutePath(env);
  }
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (!ec) {
    for (fs::path dir = cwd; !dir.empty(); dir = dir.parent_path()) {
      const fs::path candidate = dir / kStoreFileName;
      if (fs::is_regular_file(candidate, ec)) {
        *origin = dir == cwd ? "the current directory" : "an enclosing directory";
        return AbsolutePath(candidate.string());
      }
      if (dir == dir.root_path()) break;
    }
  }
  *origin = "the project root (default)";
  return AbsolutePath((fs::path(DefaultProjectRoot()) / kStoreFileName).string());
}

ProtectedPaths Protected(const GlobalOptions& global) {
  return ProtectedPaths{global.db, global.suites_dir, global.golden_dir};
}

}  // namespace harness::cli
