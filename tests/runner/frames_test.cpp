// The worker pipe protocol: length-prefixed JSON frames.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/runner/frames.h"

namespace harness {
namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() { EXPECT_EQ(::pipe(fd), 0); }
  ~Pipe() {
    for (int f : fd) if (f >= 0) ::close(f);
  }
  void CloseWrite() {
    ::close(fd[1]);
    fd[1] = -1;
  }
};

TEST(FramesTest, RoundTripThroughAPipe) {
  Pipe p;
  nlohmann::json a = {{"type", "hello"}, {"threads", 2}};
  nlohmann::json b = {{"text", std::string(10000, 'z')}};
  ASSERT_TRUE(WriteFrame(p.fd[1], a).ok());
  ASSERT_TRUE(WriteFrame(p.fd[1], b).ok());
  p.CloseWrite();
  auto ra = ReadFrame(p.fd[0]);
  auto rb = ReadFrame(p.fd[0]);
  auto end = ReadFrame(p.fd[0]);
  ASSERT_TRUE(ra.ok() && ra->has_value());
  EXPECT_EQ(**ra, a);
  ASSERT_TRUE(rb.ok() && rb->has_value());
  EXPECT_EQ(**rb, b);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());  // clean end-of-file
}

TEST(FramesTest, TruncatedFrameIsAnError) {
  Pipe p;
  const char partial[] = {10, 0, 0, 0, '{', '"'};
  ASSERT_EQ(::write(p.fd[1], partial, sizeof(partial)), static_cast<ssize_t>(sizeof(partial)));
  p.CloseWrite();
  auto r = ReadFrame(p.fd[0]);
  EXPECT_FALSE(r.ok());
}

TEST(FramesTest, DecoderTakesBytesInAnyPieces) {
  Pipe p;
  nlohmann::json a = {{"n", 1}}, b = {{"n", 2}};
  ASSERT_TRUE(WriteFrame(p.fd[1], a).ok());
  ASSERT_TRUE(WriteFrame(p.fd[1], b).ok());
  p.CloseWrite();
  char buf[256];
  ssize_t n = ::read(p.fd[0], buf, sizeof(buf));
  ASSERT_GT(n, 8);
  FrameDecoder d;
  std::vector<nlohmann::json> got;
  for (ssize_t i = 0; i < n; ++i) {  // one byte at a time
    d.Feed(buf + i, 1);
    auto f = d.Next();
    ASSERT_TRUE(f.ok());
    if (f->has_value()) got.push_back(**f);
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], a);
  EXPECT_EQ(got[1], b);
  EXPECT_TRUE(d.Empty());
}

TEST(FramesTest, DecoderRejectsCorruptStreams) {
  FrameDecoder huge;
  const char len[] = {'\xff', '\xff', '\xff', '\x7f'};
  huge.Feed(len, 4);
  EXPECT_FALSE(huge.Next().ok());
  FrameDecoder bad_json;
  const char frame[] = {3, 0, 0, 0, 'n', 'o', '!'};
  bad_json.Feed(frame, sizeof(frame));
  EXPECT_FALSE(bad_json.Next().ok());
}

}  // namespace
}  // namespace harness
