// Fuzz entry: the safetensors reader (harness/src/safetensors/safetensors.cpp).
// Any bytes must give either an error naming the file, or tensors that
// serialize and parse back to the same names, dtypes, shapes and bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "harness/safetensors/safetensors.h"

namespace {

bool SameBytes(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const size_t n = a.numel() * a.element_size();
  return n == 0 || std::memcmp(a.data_ptr(), b.data_ptr(), n) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto parsed = harness::ParseSafetensors(bytes, "fuzz.safetensors");
  if (!parsed.ok()) {
    const std::string& m = parsed.status().message();
    FUZZ_CHECK(m.rfind("fuzz.safetensors: ", 0) == 0, m);
    return 0;
  }
  for (const auto& [name, t] : parsed->tensors) {
    FUZZ_CHECK(t.is_contiguous(), name);
    FUZZ_CHECK(static_cast<size_t>(t.numel() * t.element_size()) <= size, name);
  }
  auto text = harness::SerializeSafetensors(*parsed);
  FUZZ_CHECK(text.ok(), text.status().message());
  auto again = harness::ParseSafetensors(*text, "round trip");
  FUZZ_CHECK(again.ok(), again.status().message());
  FUZZ_CHECK(again->metadata == parsed->metadata, "metadata changed in a round trip");
  FUZZ_CHECK(again->tensors.size() == parsed->tensors.size(), "tensor count changed");
  for (const auto& [name, t] : parsed->tensors) {
    const at::Tensor* u = again->Find(name);
    FUZZ_CHECK(u != nullptr && SameBytes(t, *u), "tensor '" + name + "' changed in a round trip");
  }
  return 0;
}
