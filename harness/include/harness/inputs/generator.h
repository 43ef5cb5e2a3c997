#pragma once
// The project's own deterministic input generator:
// counter-based on SplitMix64, never torch's RNG, so inputs never move when
// libtorch changes. Element i of input k of a case with seed s is a pure
// function of (s, k, i): same seed -> same bits on any machine, any thread
// count, any libtorch. Only integer arithmetic and correctly rounded IEEE
// +,-,* are used (no libm), so the bits do not depend on the C library, and
// the cast to the input's dtype is scalar code, not ATen's vector casts
// (which differ between CPUs on NaN): the digests agree under ATen's
// AVX-512, AVX2 and scalar paths.
//
//   InputSpec spec;                       // normal(0, 1), float16, [33, 65]
//   spec.shape = {33, 65};
//   spec.dtype = at::kHalf;
//   at::Tensor x = GenerateInput(spec, /*seed=*/7, /*input_index=*/0);
#include <cstdint>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "base/status.h"

namespace harness {

enum class Distribution {
  kNormal,   // mean + scale * z; z ~ Irwin-Hall(12) - 6: mean 0, variance 1, |z| <= 6
  kUniform,  // uniform in [low, high)
  kInt,      // integers uniform in [low, high] (inclusive), any dtype
  kEdge,     // a mix: normal values, +-0, DL16 rounding ties, large and tiny
             // magnitudes, and NaN/+-Inf when `nonfinite` is set
  kConst,    // every element equals `value`
};
const char* DistributionName(Distribution d);  // "normal", "uniform", "int", "edge", "const"

struct InputSpec {
  std::vector<int64_t> shape;
  at::ScalarType dtype = at::kFloat;  // kHalf, kBFloat16, kFloat, kDouble, kLong, kInt, kBool
  Distribution dist = Distribution::kNormal;
  double mean = 0.0;   // normal
  double scale = 1.0;  // normal and edge: the typical magnitude
  double low = 0.0;    // uniform, int
  double high = 1.0;   // uniform (exclusive), int (inclusive)
  double value = 0.0;  // const
  bool nonfinite = false;        // edge: include NaN and +-Inf
  std::vector<int64_t> permute;  // when set: the tensor is a permuted (strided) view
                                 // with logical shape `shape`
};

// The counter-based stream: Uint64(i) = SplitMix64 finaliser of key + i * gamma.
class CounterRng {
 public:
  // `key` identifies the stream; see StreamKey.
  explicit CounterRng(uint64_t key) : key_(key) {}
  uint64_t Uint64(uint64_t counter) const;
  double Uniform01(uint64_t counter) const;  // [0, 1), 53 bits
  double Normal(uint64_t counter) const;     // Irwin-Hall(12) - 6 from one 64-bit word per
                                             // pair of 32-bit halves (6 words per value)
 private:
  uint64_t key_;
};

// Key of the stream for input `input_index` of a case with `seed`.
uint64_t StreamKey(uint64_t seed, int input_index);

// Generates one input (contiguous unless spec.permute is set). Values are
// drawn in double, then converted to the dtype with libtorch's own
// round-to-nearest-even conversion (deterministic software conversion).
at::Tensor GenerateInput(const InputSpec& spec, uint64_t seed, int input_index);

// Hex SHA-256 over dtype name, shape and the contiguous little-endian bytes.
std::string TensorDigest(const at::Tensor& t);

// dtype names used by suite and golden files: "float16", "bfloat16",
// "float32", "float64", "int64", "int32", "bool".
StatusOr<at::ScalarType> ParseDtypeName(const std::string& name);
const char* DtypeName(at::ScalarType t);
// Short form used in case ids: f16, bf16, f32, f64, i64, i32, b.
const char* DtypeShortName(at::ScalarType t);

// Parses an input object of a suite file (the "shape", "dtype", "dist",
// ... members; see docs/suites.md). `pointer` names the
// object in errors. A "file" input is not handled here (see op inputs).
StatusOr<InputSpec> ParseInputSpec(const nlohmann::json& j, const std::string& pointer);

}  // namespace harness
