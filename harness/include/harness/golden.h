#pragma once
// Golden outputs (DESIGN.md, "Golden outputs"): golden/<suite>/<case>.safetensors,
// computed on the CPU from the generated inputs in reference precision
// (fp64, stored as fp32) by the case's kind, with metadata in the header's
// __metadata__: format, suite, case, op, attrs, seed, inputs, input_digests,
// reference_dtype, libtorch, blas, harness.
//
// `golden verify` recomputes every case under the current upstream versions
// and compares bit for bit: a CPU-side upstream change is itself a finding.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/execute.h"
#include "harness/status.h"
#include "harness/suite.h"

namespace harness {

// <golden_dir>/<suite>/<case>.safetensors
std::string GoldenPath(const std::string& golden_dir, const std::string& suite,
                       const std::string& case_id);

// Loads the golden file a case is judged against: the imported file it
// names, else GoldenPath. Missing -> NotFound with what to run.
StatusOr<SafetensorsFile> LoadGolden(const std::string& path, const SuiteSpec& suite,
                                     const CaseSpec& c);

struct GoldenGenerateResult {
  int written = 0;
  int imported = 0;  // cases with an imported golden file, left alone
  int without_golden = 0;  // cases whose kind has no golden outputs
  size_t bytes = 0;
};
// Writes the golden file of every case of `suite` (cases matching `filter`,
// a regex on the id, when it is not empty).
StatusOr<GoldenGenerateResult> GenerateGolden(const SuiteSpec& suite, const ExecOptions& options,
                                              const std::string& filter = "");

enum class DriftStatus { kOk, kDrift, kImported, kNoGolden };
const char* DriftStatusName(DriftStatus s);  // "ok", "drift", "imported"

struct CaseDrift {
  std::string case_id;
  DriftStatus status = DriftStatus::kOk;
  std::string detail;          // what moved, e.g. "out0: 1 of 64 values differ, ..."
  int64_t differing = 0;       // values that differ bitwise
  double max_abs_diff = 0;
  int64_t first_index = -1;
};
// Recomputes every case and compares with its stored golden file. A missing
// or unreadable golden file is an error (NotFound / InvalidInput), and so is
// an imported file that cannot serve its case (CaseKind::CheckGolden); a
// valid imported file is reported as kImported with detail "(valid) ...".
StatusOr<std::vector<CaseDrift>> VerifyGolden(const SuiteSpec& suite, const ExecOptions& options);

nlohmann::json ToJson(const CaseDrift& d);

}  // namespace harness
