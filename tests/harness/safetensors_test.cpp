// The safetensors reader and writer: round trips, the byte layout, and every
// kind of malformed or truncated file rejected with a clear error.
#include <cstring>

#include <filesystem>

#include <gtest/gtest.h>

#include "harness/safetensors/safetensors.h"
#include "support/temp_dir.h"

namespace {

using harness::ParseSafetensors;
using harness::SafetensorsFile;

// A file from a hand-written header and a data blob.
std::string Make(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  const uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  return out + header + data;
}

std::string ParseError(const std::string& bytes) {
  auto f = ParseSafetensors(bytes, "x.safetensors");
  EXPECT_FALSE(f.ok());
  return f.ok() ? "" : f.status().message();
}

TEST(SafetensorsTest, RoundTripKeepsNamesDtypesShapesValuesAndMetadata) {
  SafetensorsFile f;
  f.tensors.emplace_back("a", at::arange(6, at::kFloat).reshape({2, 3}));
  f.tensors.emplace_back("b", at::tensor({1.5, -2.25}, at::kDouble).to(at::kHalf));
  f.tensors.emplace_back("c", at::tensor({1.0f}).to(at::kBFloat16));
  f.tensors.emplace_back("idx", at::tensor({7, -1}, at::kLong));
  f.tensors.emplace_back("mask", at::tensor({1, 0}).to(at::kBool));
  f.tensors.emplace_back("empty", at::empty({0, 4}, at::kFloat));
  f.tensors.emplace_back("scalar", at::scalar_tensor(3.0, at::kFloat));
  f.metadata["op"] = "add";
  auto bytes = harness::SerializeSafetensors(f);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes->data(), 8);
  EXPECT_EQ((8 + header_len) % 8, 0u) << "data must start 8-byte aligned";
  auto back = ParseSafetensors(*bytes, "mem");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->tensors.size(), f.tensors.size());
  for (const auto& [name, t] : f.tensors) {
    const at::Tensor* r = back->Find(name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_EQ(r->scalar_type(), t.scalar_type()) << name;
    EXPECT_TRUE(at::equal(*r, t)) << name;
  }
  EXPECT_EQ(back->metadata.at("op"), "add");
}

TEST(SafetensorsTest, ReadsAHandWrittenFileByTheSpec) {
  float v[2] = {1.0f, -2.0f};
  std::string data(reinterpret_cast<const char*>(v), 8);
  auto f = ParseSafetensors(
      Make(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"__metadata__":{"k":"v"}})", data),
      "hand");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(at::equal(*f->Find("x"), at::tensor({1.0f, -2.0f})));
  EXPECT_EQ(f->metadata.at("k"), "v");
}

TEST(SafetensorsTest, RejectsMalformedAndTruncatedFiles) {
  const std::string ok_data(8, '\0');
  EXPECT_NE(ParseError("abc").find("shorter than the 8-byte header length"), std::string::npos);
  // Header length past the end of the file.
  std::string trunc = Make(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", ok_data);
  trunc.resize(20);
  EXPECT_NE(ParseError(trunc).find("runs past the end"), std::string::npos);
  std::string huge(8, '\xff');
  EXPECT_NE(ParseError(huge).find("header length"), std::string::npos);
  EXPECT_NE(ParseError(Make("{not json", "")).find("not a JSON object"), std::string::npos);
  EXPECT_NE(ParseError(Make("[1]", "")).find("not a JSON object"), std::string::npos);
  // Offsets out of range (data truncated).
  EXPECT_NE(ParseError(Make(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "1234"))
                .find("outside the 4 data bytes"),
            std::string::npos);
  EXPECT_NE(ParseError(Make(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", ok_data))
                .find("outside"),
            std::string::npos);
  // Overlapping tensors.
  EXPECT_NE(ParseError(Make(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("y":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                            ok_data))
                .find("overlap"),
            std::string::npos);
  // dtype x shape disagrees with the byte count.
  EXPECT_NE(ParseError(Make(R"({"x":{"dtype":"F16","shape":[2],"data_offsets":[0,8]}})", ok_data))
                .find("holds 8 bytes but F16 [2] needs 4"),
            std::string::npos);
  EXPECT_NE(ParseError(Make(R"({"x":{"dtype":"F8","shape":[2],"data_offsets":[0,2]}})", ok_data))
                .find("unknown dtype"),
            std::string::npos);
  EXPECT_NE(ParseError(Make(R"({"x":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", ok_data))
                .find("bad dim"),
            std::string::npos);
  EXPECT_NE(ParseError(Make(R"({"x":{"dtype":"F32","shape":[2]}})", ok_data)).find("data_offsets"),
            std::string::npos);
  EXPECT_NE(ParseError(Make(R"({"__metadata__":{"k":1}})", "")).find("__metadata__/k"),
            std::string::npos);
  // Every error names the file.
  EXPECT_EQ(ParseError("abc").rfind("x.safetensors: ", 0), 0u);
}

TEST(SafetensorsTest, WriterRefusesDuplicateNamesAndWritesAtomically) {
  SafetensorsFile f;
  f.tensors.emplace_back("a", at::ones({1}));
  f.tensors.emplace_back("a", at::ones({1}));
  EXPECT_FALSE(harness::SerializeSafetensors(f).ok());
  spyre_test::TempDir dir;
  f.tensors.pop_back();
  const std::string path = dir.File("sub/dir/a.safetensors");
  ASSERT_TRUE(harness::WriteSafetensors(path, f).ok());
  auto back = harness::ReadSafetensors(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(at::equal(*back->Find("a"), at::ones({1})));
  // Written aside and renamed: nothing but the file is left in its directory.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.File("sub/dir"))) {
    EXPECT_EQ(e.path().filename(), "a.safetensors");
    ++files;
  }
  EXPECT_EQ(files, 1u);
  auto missing = harness::ReadSafetensors(dir.File("nope.safetensors"));
  EXPECT_EQ(missing.status().code(), harness::ErrorCode::kNotFound);
}

}  // namespace
