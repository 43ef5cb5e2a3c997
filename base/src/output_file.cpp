#include "base/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <vector>

#include "base/exit_signals.h"
#include "base/input_file.h"

namespace harness {
namespace fs = std::filesystem;
namespace {

constexpr const char* kCompanions[] = {"", "-wal", "-shm", "-journal"};

std::string Canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return fs::absolute(path).lexically_normal().string();
  return p.string();
}

bool Inside(const std::string& path, const std::string& dir) {
  if (dir.empty()) return false;
  const std::string d = Canonical(dir);
  return path == d || (path.size() > d.size() && path.compare(0, d.size(), d) == 0 &&
                       (d.back() == '/' || path[d.size()] == '/'));
}

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// "suites directory (DIR)" or "golden directory (DIR)" when the canonical
// `path` is one of them or lies inside it, else "".
std::string ProtectedDirectory(const std::string& path, const ProtectedPaths& protect) {
  if (Inside(path, protect.suites_dir)) return "suites directory (" + protect.suites_dir + ")";
  if (Inside(path, protect.golden_dir)) return "golden directory (" + protect.golden_dir + ")";
  return "";
}

// "the store", "the store's write-ahead log", ... when `path` is one of them.
std::string StoreRole(const std::string& path, const std::string& store) {
  if (store.empty()) return "";
  const std::string canonical = Canonical(path), store_canonical = Canonical(store);
  for (const char* suffix : kCompanions) {
    const std::string companion = store + suffix;
    if (canonical != store_canonical + suffix && !SameFile(path, companion)) continue;
    const std::string s = suffix;
    if (s.empty()) return "the store itself";
    if (s == "-wal") return "the store's write-ahead log";
    if (s == "-shm") return "the store's shared-memory index";
    return "the store's journal";
  }
  return "";
}

}  // namespace

namespace output_file_detail {

// Writes straight to a file descriptor and remembers the first error.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd), buffer_(1 << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  int error() const { return error_; }
  bool Drain() {
    const char* p = pbase();
    size_t left = static_cast<size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        break;
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!Drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return Drain() ? 0 : -1; }

 private:
  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

}  // namespace output_file_detail

std::string PartialPath(const std::string& target) {
  return target + ".partial-" + std::to_string(::getpid());
}

Status CheckOutputFile(const std::string& path, const ProtectedPaths& protect,
                       const std::string& flag) {
  const std::string canonical = Canonical(path);
  if (const std::string role = StoreRole(path, protect.store); !role.empty()) {
    return InvalidInput(flag + " '" + path + "' is " + role + " (" + protect.store +
                        "): name another file; nothing was written");
  }
  if (const std::string dir = ProtectedDirectory(canonical, protect); !dir.empty()) {
    return InvalidInput(flag + " '" + path + "' is inside the " + dir +
                        ": write it elsewhere; nothing was written");
  }
  if (const std::string kind = NotRegularFileKind(path); !kind.empty()) {
    return InvalidInput(flag + " '" + path + "' is " + kind +
                        ", not a regular file: name a file to write; nothing was written");
  }
  return Status::Ok();
}

Status CheckOutputDir(const std::string& dir, const ProtectedPaths& protect,
                      const std::string& flag) {
  const std::string canonical = Canonical(dir);
  if (const std::string where = ProtectedDirectory(canonical, protect); !where.empty()) {
    return InvalidInput(flag + " '" + dir + "' is the " + where +
                        " or inside it: write it elsewhere; nothing was written");
  }
  if (const std::string role = StoreRole(dir, protect.store); !role.empty()) {
    return InvalidInput(flag + " '" + dir + "' is " + role +
                        ", not a directory: name a directory; nothing was written");
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    std::string kind = NotRegularFileKind(dir);
    if (kind.empty()) kind = "a file";
    return InvalidInput(flag + " '" + dir + "' is " + kind +
                        ", not a directory: name a directory; nothing was written");
  }
  return Status::Ok();
}

void RemoveStalePartials(const std::string& target) {
  const fs::path t(target);
  const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
  const std::string prefix = t.filename().string() + ".partial-";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    size_t at = prefix.size();
    long pid = 0;
    while (at < name.size() && name[at] >= '0' && name[at] <= '9' && pid < 1000000000) {
      pid = pid * 10 + (name[at++] - '0');
    }
    if (at == prefix.size() || pid == ::getpid()) continue;
    const std::string suffix = name.substr(at);
    bool known = false;
    for (const char* s : kCompanions) known = known || suffix == s;
    if (!known) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours
    std::error_code rm;
    fs::remove(it->path(), rm);
  }
}

OutputDirectory::~OutputDirectory() {
  guards_.clear();
  std::error_code ec;
  for (const std::string& d : created_) fs::remove(d, ec);  // removes only an empty one
}

Status OutputDirectory::Create(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> missing;
  for (fs::path d = fs::path(dir).lexically_normal(); !d.empty(); d = d.parent_path()) {
    if (d.filename().empty()) continue;  // "out/" names "out"
    if (fs::exists(d, ec) || ec) break;
    missing.push_back(d.string());
    if (d == d.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  // Recorded even on failure: what was made before it is removed again.
  for (const std::string& d : missing) {
    if (fs::is_directory(d)) created_.push_back(d);
  }
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    guards_.push_back(std::make_unique<TempFileGuard>(*it));
  }
  if (ec) return IoError(ec.message());
  if (!fs::is_directory(dir)) return IoError("not a directory");
  return Status::Ok();
}

struct OutputFile::Impl {
  std::string path, tmp, verb;
  int fd = -1;
  std::unique_ptr<TempFileGuard> guard;
  std::unique_ptr<output_file_detail::FdBuf> buf;
  std::unique_ptr<std::ostream> stream;
  bool done = false;

  Status Fail(int err, const std::string& doing) {
    Discard();
    return IoError(verb + ": cannot write '" + path + "' (" + doing + ": " + std::strerror(err) +
                   "): nothing was written there; free some space or choose another place");
  }
  void Discard() {
    if (fd >= 0) ::close(fd);
    fd = -1;
    if (!done) ::unlink(tmp.c_str());
    done = true;
    guard.reset();
  }
};

OutputFile::OutputFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

OutputFile::~OutputFile() {
  if (impl_) impl_->Discard();
}

StatusOr<std::unique_ptr<OutputFile>> OutputFile::Create(const std::string& path,
                                                         const std::string& verb) {
  RemoveStalePartials(path);
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->verb = verb;
  impl->tmp = PartialPath(path);
  impl->guard = std::make_unique<TempFileGuard>(impl->tmp);
  impl->fd = ::open(impl->tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (impl->fd < 0) {
    const int err = errno;
    impl->done = true;  // nothing of ours to remove
    impl->guard.reset();
    return IoError(verb + ": cannot write '" + path + "' (" + std::strerror(err) +
                   "): check that its directory exists and is writable");
  }
  impl->buf = std::make_unique<output_file_detail::FdBuf>(impl->fd);
  impl->stream = std::make_unique<std::ostream>(impl->buf.get());
  return std::unique_ptr<OutputFile>(new OutputFile(std::move(impl)));
}

std::ostream& OutputFile::stream() { return *impl_->stream; }
const std::string& OutputFile::path() const { return impl_->path; }

Status OutputFile::Finish() {
  Impl& i = *impl_;
  if (i.done) return InternalError(i.verb + ": '" + i.path + "' was already committed");
  if (i.fd < 0) return Status::Ok();  // finished before
  i.stream->flush();
  if (i.buf->error() != 0) return i.Fail(i.buf->error(), "writing");
  if (!*i.stream) return i.Fail(EIO, "writing");
  if (::fsync(i.fd) != 0 && errno != EINVAL && errno != EROFS) return i.Fail(errno, "syncing");
  const int fd = i.fd;
  i.fd = -1;
  if (::close(fd) != 0) return i.Fail(errno, "closing");
  return Status::Ok();
}

Status OutputFile::Commit() {
  SPYRE_RETURN_IF_ERROR(Finish());
  Impl& i = *impl_;
  if (::rename(i.tmp.c_str(), i.path.c_str()) != 0) return i.Fail(errno, "moving it into place");
  i.done = true;
  i.guard.reset();
  return Status::Ok();
}

}  // namespace harness
