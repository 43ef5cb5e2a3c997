#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness/runner/frames.h"

namespace harness {
namespace {

uint32_t DecodeLength(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

StatusOr<nlohmann::json> ParsePayload(const char* data, size_t size) {
  nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidInput("worker pipe: a frame is not valid JSON");
  return j;
}

// Reads exactly `size` bytes; returns the count read before end-of-file.
StatusOr<size_t> ReadFull(int fd, char* out, size_t size) {
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, out + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(std::string("worker pipe: read failed: ") + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

}  // namespace

Status WriteFrame(int fd, const nlohmann::json& message) {
  const std::string payload = message.dump();
  if (payload.size() > kMaxFrameBytes) return InternalError("worker pipe: frame too large");
  const uint32_t n = static_cast<uint32_t>(payload.size());
  std::string frame = {static_cast<char>(n & 0xff), static_cast<char>(n >> 8 & 0xff),
                       static_cast<char>(n >> 16 & 0xff), static_cast<char>(n >> 24 & 0xff)};
  frame += payload;
  size_t sent = 0;
  while (sent < frame.size()) {
    ssize_t w = ::write(fd, frame.data() + sent, frame.size() - sent);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return IoError(std::string("worker pipe: write failed: ") + std::strerror(errno));
    sent += static_cast<size_t>(w);
  }
  return Status::Ok();
}

StatusOr<std::optional<nlohmann::json>> ReadFrame(int fd) {
  unsigned char header[4];
  SPYRE_ASSIGN_OR_RETURN(const size_t got_header, ReadFull(fd, reinterpret_cast<char*>(header), 4));
  if (got_header == 0) return std::optional<nlohmann::json>();
  if (got_header < 4) return InvalidInput("worker pipe: truncated frame header");
  const uint32_t size = DecodeLength(header);
  if (size > kMaxFrameBytes) return InvalidInput("worker pipe: frame length out of range");
  std::string payload(size, '\0');
  SPYRE_ASSIGN_OR_RETURN(const size_t got_payload, ReadFull(fd, payload.data(), size));
  if (got_payload < size) return InvalidInput("worker pipe: truncated frame");
  SPYRE_ASSIGN_OR_RETURN(auto j, ParsePayload(payload.data(), payload.size()));
  return std::optional<nlohmann::json>(std::move(j));
}

StatusOr<std::optional<nlohmann::json>> FrameDecoder::Next() {
  if (buffer_.size() < 4) return std::optional<nlohmann::json>();
  const uint32_t size = DecodeLength(reinterpret_cast<const unsigned char*>(buffer_.data()));
  if (size > kMaxFrameBytes) return InvalidInput("worker pipe: frame length out of range");
  if (buffer_.size() < 4 + size_t{size}) return std::optional<nlohmann::json>();
  StatusOr<nlohmann::json> j = ParsePayload(buffer_.data() + 4, size);
  buffer_.erase(0, 4 + size_t{size});  // the frame is consumed, parsed or not
  SPYRE_ASSIGN_OR_RETURN(nlohmann::json parsed, std::move(j));
  return std::optional<nlohmann::json>(std::move(parsed));
}

}  // namespace harness
