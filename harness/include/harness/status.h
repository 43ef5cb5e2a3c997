#pragma once
// Errors as values (in the manner of abseil's status): expected failures such
// as a malformed suite file, a missing golden file or a busy store travel as a
// Status with one clear message; the CLI turns any non-OK Status into one line
// on stderr and exit code 2.
//
//   harness::StatusOr<Suite> suite = LoadSuite(path);
//   if (!suite.ok()) return suite.status();
//   Use(*suite);
#include <optional>
#include <string>
#include <utility>

namespace harness {

enum class ErrorCode {
  kOk = 0,
  kUsage,         // a wrong flag, verb or argument on the command line
  kInvalidInput,  // a file or value the user supplied is malformed
  kNotFound,      // a file, suite, case or run that should exist does not
  kIo,            // the operating system refused: unwritable, full disk, locked
  kInternal,      // a broken invariant of our own; a bug
};

// Name of a code, e.g. "invalid input".
const char* ErrorCodeName(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(const std::string& context) const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

inline Status UsageError(std::string m) { return Status(ErrorCode::kUsage, std::move(m)); }
inline Status InvalidInput(std::string m) { return Status(ErrorCode::kInvalidInput, std::move(m)); }
inline Status NotFound(std::string m) { return Status(ErrorCode::kNotFound, std::move(m)); }
inline Status IoError(std::string m) { return Status(ErrorCode::kIo, std::move(m)); }
inline Status InternalError(std::string m) { return Status(ErrorCode::kInternal, std::move(m)); }

// A value or the Status that explains its absence.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {
    if (status_.ok()) status_ = InternalError("StatusOr constructed from an OK status");
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace harness

// Returns early from the enclosing function when `expr` yields a non-OK Status.
#define SPYRE_RETURN_IF_ERROR(expr)            \
  do {                                         \
    ::harness::Status spyre_status_ = (expr);  \
    if (!spyre_status_.ok()) return spyre_status_; \
  } while (0)
