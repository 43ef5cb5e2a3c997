#pragma once
// ScratchDir(): one private temporary directory per fuzz process, removed at
// exit, for entry points that read their input from a file (the suite loader
// and the checkpoint config reader take a directory, as users give them).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace spyre_fuzz {

inline const std::string& ScratchDir() {
  struct Dir {
    std::string path;
    Dir() {
      std::string tmpl = (std::filesystem::temp_directory_path() / "spyre-fuzz-XXXXXX").string();
      if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
      path = tmpl;
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

// Replaces `path` with exactly `bytes`.
inline void WriteFile(const std::string& path, const char* bytes, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes, static_cast<std::streamsize>(size));
  if (!out) std::abort();
}

}  // namespace spyre_fuzz
