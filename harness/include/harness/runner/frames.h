#pragma once
// The pipe protocol between a worker and its supervisor (the worker loop:
// worker_loop.h).
//
// A worker is a fresh process running `spyre-regress __worker ...`: forked
// from the run's single-threaded zygote (zygote.h) or exec'd, never a bare
// fork of a process that may have started libtorch threads. It
// reads requests on fd 3 and writes records on fd 4; its stdout and stderr go
// to the supervisor, which keeps their tail for crash messages, so nothing a
// library prints can corrupt the protocol.
//
// Frames: a 4-byte little-endian length, then that many bytes of JSON.
//   worker -> supervisor  {"type": "hello", "pid": P, "threads": T,   once, when ready
//                          "device_preloaded": B}
//                         (device_preloaded: the device library was mapped
//                         before the worker started, by the zygote)
//                         {"type": "result", "result": <CaseResult JSON>}  one per request
//   supervisor -> worker  {"suite": S, "case": C, "timed": B,        one case at a time
//                          "judged": B}
//                         (timed: the wall-time protocol, or run once; default true.
//                         judged: false for a timing round, which runs and times
//                         the device and judges nothing; default true)
// The supervisor closes the request pipe to stop a worker; a worker that dies
// mid-case is detected by end-of-file on fd 4 plus its wait status.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace harness {

constexpr int kWorkerRequestFd = 3;
constexpr int kWorkerResultFd = 4;
constexpr uint32_t kMaxFrameBytes = 256u << 20;  // a larger length means a corrupt stream

// Writes one frame, retrying short writes and EINTR. EPIPE (the peer is gone)
// is an IoError, never a SIGPIPE when the caller ignores SIGPIPE.
Status WriteFrame(int fd, const nlohmann::json& message);
// Blocking read of one frame; an empty optional on a clean end-of-file
// between frames; an error on a truncated frame, bad length or bad JSON.
StatusOr<std::optional<nlohmann::json>> ReadFrame(int fd);

// Incremental decoder for a non-blocking reader: feed bytes as they arrive,
// take complete frames out.
class FrameDecoder {
 public:
  void Feed(const char* data, size_t size) { buffer_.append(data, size); }
  // The next complete frame, an empty optional when more bytes are needed, or
  // an error when the stream is corrupt.
  StatusOr<std::optional<nlohmann::json>> Next();
  bool Empty() const { return buffer_.empty(); }

 private:
  std::string buffer_;
};

}  // namespace harness
