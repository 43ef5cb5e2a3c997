#include "harness/golden/golden.h"

#include "base/input_file.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <type_traits>

#include <c10/util/Exception.h>
#include <torch/csrc/api/include/torch/version.h>

#include "base/build_info.h"
#include "base/case_filter.h"
#include "harness/env.h"

namespace harness {
namespace {

// Bitwise comparison (NaN equal to NaN of the same bits): golden files are
// recomputed from the same inputs by the same code, so any moved bit is drift.
// How far a value moved is also counted in steps of its own format (ULPs),
// which tells a reference that rounded the other way (one step) from one
// that changed.
struct BitDiff {
  int64_t differing = 0;
  int64_t first = -1;
  double max_abs = 0;
  double max_steps = 0;  // +inf when a value changed class (NaN, Inf) or an integer moved
  // Some value moved by more than one step of its format and by more than
  // kReferenceNoise of the output's magnitude.
  bool beyond_rounding = false;
};

// How far a float64 reference can move in its last bits when a sum is
// reordered (another BLAS kernel, another vector width), relative to the
// output's largest value: a value that cancels to near zero keeps the
// absolute error of its terms, which is many of its own ULPs. 2^-40 leaves
// 2^12 of room above float64's 2^-52 and is still 2^17 below a float32 step
// of that largest value, so a real change of the reference lies far above it.
constexpr double kReferenceNoise = 0x1p-40;

// The position of a float's bit pattern on a line where adjacent floats are
// one apart (negative values mirrored below zero), so that the distance of
// two positions is their distance in ULPs.
template <typename Bits, typename Float>
int64_t OrderedPosition(Float v) {
  static_assert(sizeof(Bits) == sizeof(Float));
  Bits b;
  std::memcpy(&b, &v, sizeof b);
  using Signed = std::make_signed_t<Bits>;
  const Signed s = static_cast<Signed>(b);
  return s >= 0
             ? static_cast<int64_t>(s)
             : -static_cast<int64_t>(static_cast<Bits>(b & ~(Bits(1) << (8 * sizeof(Bits) - 1))));
}

double StepsApart(const at::Tensor& x, const at::Tensor& y, int64_t i) {
  if (x.scalar_type() == at::kFloat) {
    const float a = x.data_ptr<float>()[i], b = y.data_ptr<float>()[i];
    if (!std::isfinite(a) || !std::isfinite(b)) return INFINITY;
    return std::fabs(
        static_cast<double>(OrderedPosition<uint32_t>(a) - OrderedPosition<uint32_t>(b)));
  }
  if (x.scalar_type() == at::kDouble) {
    const double a = x.data_ptr<double>()[i], b = y.data_ptr<double>()[i];
    if (!std::isfinite(a) || !std::isfinite(b)) return INFINITY;
    const int64_t pa = OrderedPosition<uint64_t>(a), pb = OrderedPosition<uint64_t>(b);
    return std::fabs(static_cast<double>(pa) - static_cast<double>(pb));
  }
  return INFINITY;  // integers and other formats: any change is a change
}

std::string FormatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

BitDiff CompareBits(const at::Tensor& a, const at::Tensor& b) {
  BitDiff d;
  const at::Tensor x = a.contiguous(), y = b.contiguous();
  const size_t es = x.element_size();
  const auto* px = static_cast<const uint8_t*>(x.data_ptr());
  const auto* py = static_cast<const uint8_t*>(y.data_ptr());
  const at::Tensor xd = x.to(at::kDouble), yd = y.to(at::kDouble);
  const double* vx = xd.data_ptr<double>();
  const double* vy = yd.data_ptr<double>();
  double scale = 0;  // the output's magnitude: its largest finite |value|
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (std::isfinite(vx[i])) scale = std::max(scale, std::fabs(vx[i]));
  }
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (std::memcmp(px + i * es, py + i * es, es) == 0) continue;
    if (d.differing++ == 0) d.first = i;
    const double diff = std::fabs(vx[i] - vy[i]);
    if (!std::isnan(diff))
      d.max_abs = std::max(d.max_abs, diff);
    else
      d.max_abs = diff;
    d.max_steps = std::max(d.max_steps, StepsApart(x, y, i));
    if (!(diff <= kReferenceNoise * scale) && StepsApart(x, y, i) > 1) d.beyond_rounding = true;
  }
  return d;
}

CaseDrift Diff(const std::string& case_id, const SafetensorsFile& stored,
               const SafetensorsFile& fresh) {
  CaseDrift r;
  r.case_id = case_id;
  auto digests = [](const SafetensorsFile& f) {
    auto it = f.metadata.find("input_digests");
    return it == f.metadata.end() ? std::string() : it->second;
  };
  if (digests(stored) != digests(fresh)) {
    r.status = DriftStatus::kDrift;
    r.detail = "the generated inputs differ from those the golden file was computed from";
    return r;
  }
  if (stored.tensors.size() != fresh.tensors.size()) {
    r.status = DriftStatus::kDrift;
    r.detail = "the golden file holds " + std::to_string(stored.tensors.size()) +
               " outputs, the recomputation " + std::to_string(fresh.tensors.size());
    return r;
  }
  bool beyond_rounding = false;
  for (const auto& [name, tensor] : fresh.tensors) {
    const at::Tensor* old = stored.Find(name);
    if (old == nullptr || old->sizes() != tensor.sizes() ||
        old->scalar_type() != tensor.scalar_type()) {
      r.status = DriftStatus::kDrift;
      r.detail = name + ": missing, or its shape or dtype changed";
      return r;
    }
    BitDiff d = CompareBits(*old, tensor);
    if (d.differing == 0) continue;
    r.differing += d.differing;
    if (r.first_index < 0) r.first_index = d.first;
    r.max_abs_diff = std::max(r.max_abs_diff, d.max_abs);
    r.max_ulp_diff = std::max(r.max_ulp_diff, d.max_steps);
    beyond_rounding |= d.beyond_rounding;
    if (!r.detail.empty()) r.detail += "; ";
    r.detail += name + ": " + std::to_string(d.differing) + " of " +
                std::to_string(tensor.numel()) + " values differ, first at index " +
                std::to_string(d.first) + ", max abs diff " + FormatNumber(d.max_abs) + ", max " +
                (std::isinf(d.max_steps) ? std::string("-") : FormatNumber(d.max_steps)) +
                " ULP of " + std::string(c10::toString(tensor.scalar_type()));
  }
  if (r.differing > 0) {
    r.status = beyond_rounding ? DriftStatus::kDrift : DriftStatus::kRounding;
    r.detail += r.status == DriftStatus::kRounding
                    ? " (within the float64 reference's own rounding: another BLAS kernel or "
                      "CPU path reordered a sum)"
                    : " (beyond the rounding of the reference: the CPU reference changed)";
  }
  return r;
}

}  // namespace

std::map<std::string, std::string> GeneratorMetadata() {
  const BlasInfo blas = DetectBlas();
  return {{"libtorch", DetectLibtorch().version},
          {"blas", blas.name + " " + blas.version},
          {"blas_core", blas.core},
          {"harness", HarnessVersion()}};
}

std::string GoldenGenerateCommand(const std::string& suite, const std::string& suites_root,
                                  const std::string& golden_path) {
  std::string cmd = "spyre-regress golden generate --suite " + suite;
  if (!suites_root.empty()) cmd += " --suites " + suites_root;
  // <golden dir>/<suite>/<case>.safetensors
  const std::string dir =
      golden_path.empty() ? "" : std::filesystem::path(golden_path).parent_path().parent_path().string();
  if (!dir.empty()) cmd += " --golden " + dir;
  return cmd;
}

std::string GoldenPath(const std::string& golden_dir, const std::string& suite,
                       const std::string& case_id) {
  return (std::filesystem::path(golden_dir) / suite / (case_id + ".safetensors")).string();
}

namespace {

// What LoadGolden and LoadGoldenHeader check before reading a byte: the
// file is there and is a regular file.
Status CheckGoldenFile(const std::string& path, const SuiteSpec& suite, const CaseSpec& c) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    // <golden dir>/<suite>/<case>.safetensors: a golden directory that is not
    // there at all is a wrong --golden more often than files never generated.
    const std::filesystem::path dir = std::filesystem::path(path).parent_path().parent_path();
    const std::string generate = GoldenGenerateCommand(suite.name, suite.root, path);
    if (!dir.empty() && !std::filesystem::exists(dir, ec)) {
      return NotFound("missing golden file " + path + " for case '" + c.id +
                      "': the golden directory " + dir.string() +
                      " does not exist; check --golden, or create it with '" + generate + "'");
    }
    return NotFound("missing golden file " + path + " for case '" + c.id + "' (run '" + generate +
                    "')");
  }
  if (const std::string kind = NotRegularFileKind(path); !kind.empty()) {
    return InvalidInput(
        "golden file " + path + " for case '" + c.id + "' is " + kind +
        ", not a regular file: remove it and run '" + GoldenGenerateCommand(suite.name, suite.root, path) +
        "'");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<SafetensorsFile> LoadGolden(const std::string& path, const SuiteSpec& suite,
                                     const CaseSpec& c) {
  SPYRE_RETURN_IF_ERROR(CheckGoldenFile(path, suite, c));
  return ReadSafetensors(path, kMaxTensorFileBytes);
}

StatusOr<SafetensorsHeader> LoadGoldenHeader(const std::string& path, const SuiteSpec& suite,
                                             const CaseSpec& c) {
  SPYRE_RETURN_IF_ERROR(CheckGoldenFile(path, suite, c));
  return ReadSafetensorsHeader(path, kMaxTensorFileBytes);
}

const char* DriftStatusName(DriftStatus s) {
  switch (s) {
    case DriftStatus::kOk:
      return "ok";
    case DriftStatus::kDrift:
      return "drift";
    case DriftStatus::kRounding:
      return "rounding";
    case DriftStatus::kImported:
      return "imported";
    case DriftStatus::kNoGolden:
      return "no-golden";
  }
  return "ok";
}

namespace {

// A case libtorch refused, as one line naming the suite file, the case and the op.
std::string CaseErrorLine(const SuiteSpec& suite, const CaseSpec& c, const std::string& message,
                          bool libtorch) {
  const std::string what = message.substr(0, message.find('\n'));
  const std::string op =
      c.body.contains("op") && c.body["op"].is_string() ? c.body["op"].get<std::string>() : c.kind;
  return (suite.path.empty() ? suite.name : suite.path) + ": case '" + c.id + "' (op " + op +
         "): " + (libtorch ? "libtorch refused it: " : "the op could not run: ") + what +
         "; fix the case's attrs or inputs";
}

}  // namespace

StatusOr<GoldenGenerateResult> GenerateGolden(const SuiteSpec& suite, const ExecOptions& options,
                                              const std::string& filter) {
  GoldenGenerateResult result;
  SPYRE_ASSIGN_OR_RETURN(const CaseFilter chosen, CaseFilter::Compile(filter));
  std::vector<std::string> ids;
  for (const CaseSpec& c : suite.cases) {
    if (chosen.Matches(suite.name, c.id)) ids.push_back(c.id);
  }
  if (ids.empty()) {
    for (const CaseSpec& c : suite.cases) ids.push_back(c.id);
    return NoCaseMatched({suite.name}, filter, ids);
  }
  for (const CaseSpec& c : suite.cases) {
    if (!chosen.Matches(suite.name, c.id)) continue;
    const CaseKind* kind = FindCaseKind(c.kind);
    if (kind == nullptr) return InternalError("case kind '" + c.kind + "' vanished");
    if (!kind->HasGolden(c)) {
      ++result.without_golden;
      continue;
    }
    if (kind->UsesImportedGolden(c)) {
      ++result.imported;
      continue;
    }
    StatusOr<SafetensorsFile> golden = InternalError("not computed");
    try {
      golden = kind->ComputeGolden(suite, c, options);
    } catch (const c10::Error& e) {
      result.case_errors.push_back(CaseErrorLine(suite, c, e.what_without_backtrace(), true));
      continue;
    } catch (const std::exception& e) {
      result.case_errors.push_back(CaseErrorLine(suite, c, e.what(), false));
      continue;
    }
    if (!golden.ok()) return golden.status().WithContext(suite.name + "/" + c.id);
    const std::string path = GoldenPath(options.golden_dir, suite.name, c.id);
    SPYRE_RETURN_IF_ERROR(WriteSafetensors(path, *golden));
    ++result.written;
    std::error_code ec;
    result.bytes += std::filesystem::file_size(path, ec);
  }
  return result;
}

StatusOr<std::vector<CaseDrift>> VerifyGolden(const SuiteSpec& suite, const ExecOptions& options) {
  std::vector<CaseDrift> out;
  for (const CaseSpec& c : suite.cases) {
    const CaseKind* kind = FindCaseKind(c.kind);
    if (kind == nullptr) return InternalError("case kind '" + c.kind + "' vanished");
    if (!kind->HasGolden(c)) {
      out.push_back(
          {c.id, DriftStatus::kNoGolden, "the " + c.kind + " kind has no golden outputs"});
      continue;
    }
    if (kind->UsesImportedGolden(c)) {
      // Not recomputable here (another tool made it), but checked as the run
      // checks it: readable, and holding what the case's outputs will be.
      const std::string path = kind->ImportedGoldenPath(suite, c);
      SPYRE_ASSIGN_OR_RETURN(auto imported, LoadGolden(path, suite, c));
      SPYRE_RETURN_IF_ERROR(kind->CheckFiles(suite, c));
      SPYRE_RETURN_IF_ERROR(kind->CheckGolden(suite, c, HeaderOf(imported), path));
      out.push_back({c.id, DriftStatus::kImported,
                     "(valid) " + path +
                         ": header, dtypes, outputs and shapes checked against the "
                         "case; values not recomputed"});
      continue;
    }
    SPYRE_ASSIGN_OR_RETURN(auto stored,
                           LoadGolden(GoldenPath(options.golden_dir, suite.name, c.id), suite, c));
    StatusOr<SafetensorsFile> fresh = InternalError("not computed");
    try {
      fresh = kind->ComputeGolden(suite, c, options);
    } catch (const c10::Error& e) {
      return InvalidInput(CaseErrorLine(suite, c, e.what_without_backtrace(), true));
    } catch (const std::exception& e) {
      return InvalidInput(CaseErrorLine(suite, c, e.what(), false));
    }
    if (!fresh.ok()) return fresh.status().WithContext(suite.name + "/" + c.id);
    out.push_back(Diff(c.id, stored, *fresh));
  }
  return out;
}

nlohmann::json ToJson(const CaseDrift& d) {
  nlohmann::json j = {{"case", d.case_id}, {"status", DriftStatusName(d.status)}};
  if (!d.detail.empty()) j["detail"] = d.detail;
  if (d.status == DriftStatus::kDrift || d.status == DriftStatus::kRounding) {
    j["differing"] = d.differing;
    j["max_abs_diff"] = d.max_abs_diff;
    // null when a value changed class (finite <-> NaN/Inf) or an integer moved
    j["max_ulp_diff"] =
        std::isinf(d.max_ulp_diff) ? nlohmann::json() : nlohmann::json(d.max_ulp_diff);
    j["above_rounding"] = d.status == DriftStatus::kDrift;
    j["first_index"] = d.first_index;
  }
  return j;
}

}  // namespace harness
