#include "harness/inputs/generator.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "base/sha256.h"

namespace harness {
namespace {

constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;  // SplitMix64's increment (golden ratio)
constexpr uint64_t kWordsPerElement = 8;            // counters reserved per element

uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// 2^k as a double without libm (k within the normal range).
double Pow2(int k) {
  double r = 1.0;
  for (; k > 0; --k) r *= 2.0;
  for (; k < 0; ++k) r *= 0.5;
  return r;
}

struct EdgeRanges {
  int large_min, large_max;  // exponents of "large magnitude" values
  int tiny_min, tiny_max;    // exponents (negated) of "tiny magnitude" values
};

// Large values stay finite in the dtype (fp16 tops out at 65504) and inside
// DL16's range; tiny values reach fp16 subnormals and DL16's underflow (2^-31).
EdgeRanges RangesFor(at::ScalarType t) {
  if (t == at::kHalf) return {8, 14, 12, 24};
  return {10, 24, 20, 34};
}

double EdgeValue(const CounterRng& rng, uint64_t base, const InputSpec& s) {
  const uint64_t w = rng.Uint64(base + 6);
  const uint64_t extra = rng.Uint64(base + 7);
  const double sign = (extra & 1) ? -1.0 : 1.0;
  const double frac = static_cast<double>((extra >> 1) & 0x1FF) / 512.0;  // 9 bits: DL16-exact
  const EdgeRanges r = RangesFor(s.dtype);
  switch (w % 16) {
    case 6: return 0.0;
    case 7: return -0.0;
    case 8: {  // halfway between two DL16 neighbours: 1 + (2j+1) * 2^-10, times 2^e
      const double j = static_cast<double>((extra >> 10) & 0xFF);
      const int e = static_cast<int>((extra >> 18) % 7) - 3;
      return sign * (1.0 + (2.0 * j + 1.0) / 1024.0) * Pow2(e);
    }
    case 9: {
      const int span = r.large_max - r.large_min + 1;
      return sign * (1.0 + frac) * Pow2(r.large_min + static_cast<int>((extra >> 10) % span));
    }
    case 10: {
      const int span = r.tiny_max - r.tiny_min + 1;
      return sign * (1.0 + frac) * Pow2(-(r.tiny_min + static_cast<int>((extra >> 10) % span)));
    }
    case 11: return static_cast<double>(static_cast<int>((extra >> 1) % 9) - 4);
    case 12:
    case 13: return s.scale * (2.0 * rng.Uniform01(base) - 1.0);
    case 14:
      if (s.nonfinite) return std::numeric_limits<double>::quiet_NaN();
      break;
    case 15:
      if (s.nonfinite) return sign * std::numeric_limits<double>::infinity();
      break;
    default: break;
  }
  return s.scale * rng.Normal(base);
}

double DrawValue(const CounterRng& rng, uint64_t i, const InputSpec& s) {
  const uint64_t base = i * kWordsPerElement;
  switch (s.dist) {
    case Distribution::kNormal: return s.mean + s.scale * rng.Normal(base);
    case Distribution::kUniform: return s.low + (s.high - s.low) * rng.Uniform01(base);
    case Distribution::kInt: {
      const auto lo = static_cast<int64_t>(s.low);
      const auto span = static_cast<uint64_t>(static_cast<int64_t>(s.high) - lo + 1);
      return static_cast<double>(lo + static_cast<int64_t>(rng.Uint64(base) % span));
    }
    case Distribution::kEdge: return EdgeValue(rng, base, s);
    case Distribution::kConst: return s.value;
  }
  return 0.0;
}

}  // namespace

const char* DistributionName(Distribution d) {
  switch (d) {
    case Distribution::kNormal: return "normal";
    case Distribution::kUniform: return "uniform";
    case Distribution::kInt: return "int";
    case Distribution::kEdge: return "edge";
    case Distribution::kConst: return "const";
  }
  return "normal";
}

uint64_t CounterRng::Uint64(uint64_t counter) const { return Mix(key_ + (counter + 1) * kGamma); }

double CounterRng::Uniform01(uint64_t counter) const {
  return static_cast<double>(Uint64(counter) >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

double CounterRng::Normal(uint64_t counter) const {
  // Twelve 32-bit uniforms summed as integers (exact), centred and scaled by
  // 2^-32 (exact): an Irwin-Hall(12) variate, mean 0, variance 1.
  uint64_t sum = 0;
  for (uint64_t k = 0; k < 6; ++k) {
    const uint64_t w = Uint64(counter + k);
    sum += (w >> 32) + (w & 0xFFFFFFFFull);
  }
  const int64_t centred = static_cast<int64_t>(sum) - (int64_t{6} << 32);
  return static_cast<double>(centred) * (1.0 / 4294967296.0);
}

namespace {

// double -> float -> dtype, both steps correctly rounded, element by element
// with c10's scalar conversions. ATen's tensor casts are vectorised per CPU
// (AVX-512, AVX2, scalar), and the paths disagree on NaN: a bfloat16 NaN is
// 0xFFFF on the vector paths and 0x7FC0 on the scalar one, which would move
// the input digests, and so the golden files, between machines.
template <typename Half>
at::Tensor CastThroughFloat(const at::Tensor& values, at::ScalarType dtype) {
  at::Tensor out = at::empty(values.sizes(), values.options().dtype(dtype));
  const double* in = values.data_ptr<double>();
  Half* o = out.data_ptr<Half>();
  for (int64_t i = 0; i < values.numel(); ++i) o[i] = Half(static_cast<float>(in[i]));
  return out;
}

at::Tensor CastGenerated(const at::Tensor& values, at::ScalarType dtype) {
  switch (dtype) {
    case at::kDouble: return values;
    case at::kHalf: return CastThroughFloat<at::Half>(values, dtype);
    case at::kBFloat16: return CastThroughFloat<at::BFloat16>(values, dtype);
    case at::kFloat: return CastThroughFloat<float>(values, dtype);
    default: return values.to(at::kFloat).to(dtype);  // integers and bool: whole values, exact
  }
}

}  // namespace

uint64_t StreamKey(uint64_t seed, int input_index) {
  return Mix(Mix(seed) ^ (static_cast<uint64_t>(input_index) + 1) * kGamma);
}

at::Tensor GenerateInput(const InputSpec& spec, uint64_t seed, int input_index) {
  // Generate in the storage order of the final layout so that the permuted
  // view's logical element (i, j, ...) is not what moves between layouts.
  std::vector<int64_t> storage_shape = spec.shape;
  if (!spec.permute.empty()) {
    for (size_t d = 0; d < spec.permute.size(); ++d) {
      storage_shape[static_cast<size_t>(spec.permute[d])] = spec.shape[d];
    }
  }
  at::Tensor values = at::empty(storage_shape, at::kDouble);
  double* p = values.data_ptr<double>();
  const CounterRng rng(StreamKey(seed, input_index));
  const int64_t n = values.numel();
  for (int64_t i = 0; i < n; ++i) p[i] = DrawValue(rng, static_cast<uint64_t>(i), spec);
  at::Tensor out = CastGenerated(values, spec.dtype);
  if (spec.permute.empty()) return out;
  // Inverse permutation: storage dim permute[d] becomes logical dim d.
  return out.permute(spec.permute);
}

std::string TensorDigest(const at::Tensor& t) {
  at::Tensor c = t.contiguous().cpu();
  Sha256 h;
  h.Update(DtypeName(c.scalar_type()));
  for (int64_t d : c.sizes()) h.Update(":" + std::to_string(d));
  h.Update("|");
  h.Update(c.data_ptr(), static_cast<size_t>(c.numel()) * c.element_size());
  return h.FinishHex();
}

}  // namespace harness
