#include "base/status.h"

#include <cstdio>
#include <cstdlib>

namespace harness {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kUsage:
      return "usage error";
    case ErrorCode::kInvalidInput:
      return "invalid input";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kIo:
      return "i/o error";
    case ErrorCode::kInternal:
      return "internal error";
  }
  return "unknown error";
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  // A message that already starts by naming its context ("store 'x.db' is
  // corrupt") is not prefixed with it a second time.
  if (message_.rfind(context, 0) == 0) return *this;
  return Status(code_, context + ": " + message_);
}

namespace status_internal {

void DieReadingError(const Status& status) {
  std::fprintf(stderr, "spyre-regress: internal error: a value was read from an error (%s: %s)\n",
               ErrorCodeName(status.code()), status.message().c_str());
  std::abort();
}

}  // namespace status_internal

}  // namespace harness
