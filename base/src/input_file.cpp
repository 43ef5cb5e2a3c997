#include "base/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace harness {
namespace {

std::string KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (!S_ISREG(mode)) return "not a regular file";
  return "";
}

}  // namespace

std::string ByteSizeText(uint64_t bytes) {
  char buf[48];
  if (bytes >= (uint64_t{1} << 30)) {
    std::snprintf(buf, sizeof(buf), "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  } else if (bytes >= (uint64_t{1} << 20)) {
    std::snprintf(buf, sizeof(buf), "%.0f MiB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(buf, sizeof(buf), "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return buf;
}

std::string NotRegularFileKind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return KindOf(st.st_mode);
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(other.fd_), size_(other.size_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    size_ = other.size_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status InputFile::ReadAt(uint64_t offset, void* out, uint64_t n) const {
  char* p = static_cast<char*>(out);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return IoError(path_ + ": cannot read: " + std::strerror(errno));
    if (got == 0)
      return IoError(path_ + ": the file became shorter while it was read; read it again");
    p += got;
    n -= static_cast<uint64_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return Status::Ok();
}

StatusOr<InputFile> OpenInputFile(const std::string& path, uint64_t max_bytes,
                                  const std::string& what) {
  // Checked before open: opening a FIFO for reading would wait for a writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return NotFound(path + ": no such " + what);
    return IoError(path + ": cannot read the " + what + ": " + std::strerror(errno));
  }
  if (const std::string kind = KindOf(st.st_mode); !kind.empty()) {
    return InvalidInput(path + ": is " + kind + ", not a regular file; point at the " + what +
                        " itself");
  }
  InputFile f;
  // O_NONBLOCK: should the path be swapped for a FIFO after the check, open
  // still returns at once, and fstat below refuses it.
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (f.fd_ < 0) return IoError(path + ": cannot open the " + what + ": " + std::strerror(errno));
  if (::fstat(f.fd_, &st) != 0 || !KindOf(st.st_mode).empty()) {
    return InvalidInput(path + ": is not a regular file; point at the " + what + " itself");
  }
  f.size_ = static_cast<uint64_t>(st.st_size);
  f.path_ = path;
  if (f.size_ > max_bytes) {
    return InvalidInput(path + ": " + std::to_string(f.size_) + " bytes (" + ByteSizeText(f.size_) +
                        "), over the " + ByteSizeText(max_bytes) + " a " + what +
                        " may hold; is it the right file?");
  }
  return f;
}

StatusOr<std::string> ReadInputFile(const std::string& path, uint64_t max_bytes,
                                    const std::string& what) {
  SPYRE_ASSIGN_OR_RETURN(auto f, OpenInputFile(path, max_bytes, what));
  std::string text(f.size(), '\0');
  SPYRE_RETURN_IF_ERROR(f.ReadAt(0, text.data(), text.size()));
  return text;
}

}  // namespace harness
