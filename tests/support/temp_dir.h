#pragma once
// A fresh temporary directory removed (recursively) when the object dies.
#include <string>

namespace spyre_test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // path() + "/" + name
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Writes `content` to `path`, replacing it.
void WriteFile(const std::string& path, const std::string& content);
// Reads the whole file; empty when it cannot be read.
std::string ReadFile(const std::string& path);

}  // namespace spyre_test
