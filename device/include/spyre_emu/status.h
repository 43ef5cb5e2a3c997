#pragma once
// The emulator core's error values (torch-free). The glue turns a non-ok
// Status into a c10::Error carrying the same message.
#include <string>
#include <utility>

namespace spyre_emu {

enum class ErrorCode {
  kOk,
  kOutOfMemory,      // an allocation would pass the device capacity (SPYRE_EMU_MEMORY)
  kInvalidArgument,  // the caller asked for something malformed
  kUnsupported,      // the device cannot do this (e.g. fp64 tensors)
  kInternal,         // the host refused a resource (mmap, mprotect)
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

}  // namespace spyre_emu
