#pragma once
// Golden outputs: golden/<suite>/<case>.safetensors,
// computed on the CPU from the generated inputs in reference precision
// (fp64, stored as fp32) by the case's kind, with metadata in the header's
// __metadata__: format, suite, case, op, attrs, seed, inputs, input_digests,
// reference_dtype, libtorch, blas, blas_core, harness.
//
// `golden verify` recomputes every case under the current upstream versions
// and compares bit for bit: a CPU-side upstream change is itself a finding.
// Each drifted output is also classed by how far it moved: within the float64
// reference's own rounding (see DriftStatus) or beyond it (a real change of
// the CPU reference).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "harness/case_kinds/case_kinds.h"
#include "suite_file/suite_file.h"

namespace harness {

// <golden_dir>/<suite>/<case>.safetensors
std::string GoldenPath(const std::string& golden_dir, const std::string& suite,
                       const std::string& case_id);

// The command that writes the golden file `golden_path` of `suite` again,
// with the --suites and --golden that find them (each left out when not
// known): "spyre-regress golden generate --suite S --suites DIR --golden DIR".
std::string GoldenGenerateCommand(const std::string& suite, const std::string& suites_root,
                                  const std::string& golden_path);

// Loads the golden file a case is judged against: the imported file it
// names, else GoldenPath. Missing -> NotFound with what to run.
StatusOr<SafetensorsFile> LoadGolden(const std::string& path, const SuiteSpec& suite,
                                     const CaseSpec& c);
// The same checks and errors as LoadGolden, reading only the file's header
// (names, dtypes, shapes, metadata) and its size: what a run's preflight
// needs, at a cost that does not grow with the file.
StatusOr<SafetensorsHeader> LoadGoldenHeader(const std::string& path, const SuiteSpec& suite,
                                             const CaseSpec& c);

// The metadata that says what produced a golden file: "libtorch", "blas"
// (name and version), "blas_core" (the OpenBLAS kernel set, empty for other
// libraries) and "harness" (version). Merged into every kind's metadata.
std::map<std::string, std::string> GeneratorMetadata();

struct GoldenGenerateResult {
  int written = 0;
  int imported = 0;        // cases with an imported golden file, left alone
  int without_golden = 0;  // cases whose kind has no golden outputs
  size_t bytes = 0;
  // One line per case libtorch refused (an op argument the suite loader
  // cannot check, such as a softmax dim past the input's rank), naming the
  // suite file, the case and the op; the other cases are still written.
  std::vector<std::string> case_errors;
};
// Writes the golden file of every case of `suite` (cases matching `filter`,
// a regex on the id, when it is not empty).
StatusOr<GoldenGenerateResult> GenerateGolden(const SuiteSpec& suite, const ExecOptions& options,
                                              const std::string& filter = "");

// kOk: bit for bit the same. kRounding: some values moved, each by at most
// one step of the stored format (one float32 ULP) or by at most 2^-40 of the
// output's largest |value|: the float64 reference moved in its last bits (a
// sum reordered by another BLAS kernel or CPU path) and a value next to a
// rounding boundary tipped; reported, not counted as drift. kDrift: a value
// moved further, changed class (finite, NaN, Inf), an integer output
// changed, or the inputs, names, shapes or dtypes differ: the CPU reference
// itself changed.
enum class DriftStatus { kOk, kDrift, kRounding, kImported, kNoGolden };
const char* DriftStatusName(DriftStatus s);  // "ok", "drift", "rounding", "imported", "no-golden"

struct CaseDrift {
  std::string case_id;
  DriftStatus status = DriftStatus::kOk;
  std::string detail;     // what moved, e.g. "out0: 1 of 64 values differ, ..."
  int64_t differing = 0;  // values that differ bitwise
  double max_abs_diff = 0;
  double max_ulp_diff = 0;  // in steps of the stored format; +inf: see kDrift
  int64_t first_index = -1;
};
// Recomputes every case and compares with its stored golden file. A missing
// or unreadable golden file is an error (NotFound / InvalidInput), and so is
// an imported file that cannot serve its case (CaseKind::CheckGolden); a
// valid imported file is reported as kImported with detail "(valid) ...".
StatusOr<std::vector<CaseDrift>> VerifyGolden(const SuiteSpec& suite, const ExecOptions& options);

nlohmann::json ToJson(const CaseDrift& d);

}  // namespace harness
