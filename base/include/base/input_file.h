#pragma once
// Reading the files a user points at (suite files, golden and input tensor
// files, checkpoints, config.json, thresholds) without trusting them: only
// regular files are read; a directory, FIFO, socket or device (/dev/zero,
// /dev/urandom) is refused by name before anything is read, and a FIFO is
// never waited on. The size is checked against a limit before the first
// byte is read, so no input can exhaust the host's memory.
//
//   // An error reads "x.json: is a FIFO, not a suite file; ...".
//   SPYRE_ASSIGN_OR_RETURN(std::string text, ReadInputFile(path, kMaxJsonFileBytes, "suite file"));
#include <cstdint>
#include <string>

#include "base/status.h"

namespace harness {

// Suite files, config.json, thresholds: 64 MiB (the suites shipped are
// under 100 KB; a sweep expands in memory, not in the file).
constexpr uint64_t kMaxJsonFileBytes = uint64_t{64} << 20;
// Golden and input tensor files: 256 MiB. Checkpoint weights are bounded by
// the case memory budget instead (suites/models/model_case.h).
constexpr uint64_t kMaxTensorFileBytes = uint64_t{256} << 20;

// The host memory one case may plan to use, checked before anything is
// built or read: an op case's input tensors, a model case's weights (and
// their float64 reference copy) and activations: 4 GiB.
constexpr uint64_t kCaseMemoryBudget = uint64_t{4} << 30;

// An open regular file (closed on destruction).
class InputFile {
 public:
  InputFile() = default;
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  uint64_t size() const { return size_; }
  // Reads exactly `n` bytes at `offset` into `out`; an error names the file.
  Status ReadAt(uint64_t offset, void* out, uint64_t n) const;

 private:
  friend StatusOr<InputFile> OpenInputFile(const std::string&, uint64_t, const std::string&);
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_;
};

// Opens `path` for reading. `what` names the file's role in errors ("suite
// file", "golden file"). Missing: NotFound "<path>: no such <what>".
// A directory, FIFO, socket or device, or a file larger than `max_bytes`:
// InvalidInput naming the path, what it is and what to do.
StatusOr<InputFile> OpenInputFile(const std::string& path, uint64_t max_bytes,
                                  const std::string& what);

// The whole file, after the checks of OpenInputFile.
StatusOr<std::string> ReadInputFile(const std::string& path, uint64_t max_bytes,
                                    const std::string& what);

// "a directory", "a FIFO", "a socket", "a character device", "a block
// device" or "" (a regular file, or missing) for `path`, following symlinks.
std::string NotRegularFileKind(const std::string& path);

// Bytes for people: "1.0 GiB", "256 MiB", "312 bytes".
std::string ByteSizeText(uint64_t bytes);

}  // namespace harness
