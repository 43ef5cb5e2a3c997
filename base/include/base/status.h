#pragma once
// Errors as values (in the manner of abseil's status): expected failures such
// as a malformed suite file, a missing golden file or a busy store travel as a
// Status with one clear message; the CLI turns any non-OK Status into one line
// on stderr and exit code 2.
//
//   harness::StatusOr<Suite> suite = LoadSuite(path);
//   if (!suite.ok()) return suite.status();
//   Use(*suite);
//
//   SPYRE_ASSIGN_OR_RETURN(Suite suite, LoadSuite(path));   // the same, in one line
//
// Reading the value of a StatusOr that holds an error is a bug of ours: it
// aborts with the error's message rather than reading an empty optional.
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
  // Returns a copy whose message is "<context>: <message>", or this one
  // unchanged when its message already starts with `context`. The code is
  // kept.
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

namespace status_internal {
// Prints "internal error: ..." with `status`'s message to stderr and aborts.
[[noreturn]] void DieReadingError(const Status& status);
}  // namespace status_internal

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
  T& value() & { return Checked(); }
  const T& value() const& { return Checked(); }
  T&& value() && { return std::move(Checked()); }
  T& operator*() & { return Checked(); }
  const T& operator*() const& { return Checked(); }
  T* operator->() { return &Checked(); }
  const T* operator->() const { return &Checked(); }

 private:
  T& Checked() {
    if (!value_.has_value()) status_internal::DieReadingError(status_);
    return *value_;
  }
  const T& Checked() const {
    if (!value_.has_value()) status_internal::DieReadingError(status_);
    return *value_;
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace harness

// Returns early from the enclosing function when `expr` yields a non-OK Status.
#define SPYRE_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::harness::Status spyre_status_ = (expr);      \
    if (!spyre_status_.ok()) return spyre_status_; \
  } while (0)

// Declares or assigns `lhs` from the value of the StatusOr `expr`, or returns
// its Status from the enclosing function:
//   SPYRE_ASSIGN_OR_RETURN(auto header, ReadSafetensorsHeader(path));
#define SPYRE_ASSIGN_OR_RETURN(lhs, expr) \
  SPYRE_ASSIGN_OR_RETURN_IMPL_(SPYRE_STATUS_CONCAT_(spyre_statusor_, __LINE__), lhs, expr)
#define SPYRE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()
// The same two, with `context` put before the message of an error on its
// way out (Status::WithContext: "<context>: <message>", the code kept):
//   SPYRE_RETURN_IF_ERROR_CTX(CheckIntegrity(), "merge source");
//   SPYRE_ASSIGN_OR_RETURN_CTX(auto cfg, ReadConfig(dir), pointer + "/config");
#define SPYRE_RETURN_IF_ERROR_CTX(expr, context)                        \
  do {                                                                  \
    ::harness::Status spyre_status_ = (expr);                           \
    if (!spyre_status_.ok()) return spyre_status_.WithContext(context); \
  } while (0)
#define SPYRE_ASSIGN_OR_RETURN_CTX(lhs, expr, context)                                      \
  SPYRE_ASSIGN_OR_RETURN_CTX_IMPL_(SPYRE_STATUS_CONCAT_(spyre_statusor_, __LINE__), lhs, expr, \
                                   context)
#define SPYRE_ASSIGN_OR_RETURN_CTX_IMPL_(tmp, lhs, expr, context) \
  auto tmp = (expr);                                              \
  if (!tmp.ok()) return tmp.status().WithContext(context);        \
  lhs = std::move(tmp).value()
#define SPYRE_STATUS_CONCAT_(a, b) SPYRE_STATUS_CONCAT_INNER_(a, b)
#define SPYRE_STATUS_CONCAT_INNER_(a, b) a##b
