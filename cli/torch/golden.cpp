// `golden generate` and `golden verify` in the torch part: the golden
// outputs computed on the CPU by each case's kind (harness/golden/golden.h).
#include <iostream>

#include "harness/env.h"
#include "harness/golden/golden.h"
#include "base/output_file.h"
#include "harness/case_kinds/case_kinds.h"
#include "torch_verbs.h"

namespace harness::cli {
namespace {

// Golden outputs are computed with fixed thread counts, whatever --threads or
// OPENBLAS_NUM_THREADS say: libtorch's reductions and OpenBLAS's gemm split
// their sums by thread, so the float64 reference moves in its last bits with
// the count. Those bits are far below the float32 the files store, and a
// fixed count removes one cause of a rounding-level difference. Changing them means regenerating
// golden/.
constexpr int kGoldenThreads = 2;
constexpr int kGoldenBlasThreads = 2;

Status PinGoldenThreads() {
  SPYRE_RETURN_IF_ERROR(ConfigureThreads(kGoldenThreads).status());
  PinBlasThreads(kGoldenBlasThreads);
  return Status::Ok();
}

// The BLAS the reference ran on, so that a drift can be traced to a kernel.
nlohmann::json DescribeBlasInUse() {
  const BlasInfo b = DetectBlas();
  return {{"name", b.name}, {"version", b.version}, {"core", b.core}, {"threads", b.threads}};
}

ExecOptions MakeExecOptions(const GlobalOptions& g) {
  ExecOptions o;
  o.suites_dir = g.suites_dir;
  o.golden_dir = g.golden_dir;
  return o;
}

}  // namespace

StatusOr<int> TorchGoldenGenerate(const GoldenOptions& opts, const GlobalOptions& global) {
  // The golden directory is written into: never the store or one of its
  // companions, never a file or a device.
  SPYRE_RETURN_IF_ERROR(
      CheckOutputDir(global.golden_dir, ProtectedPaths{global.db, "", ""}, "golden generate --golden"));
  SPYRE_RETURN_IF_ERROR(PinGoldenThreads());
  SPYRE_ASSIGN_OR_RETURN(auto suite, LoadSuite(global.suites_dir, opts.suite));
  SPYRE_ASSIGN_OR_RETURN(auto result, GenerateGolden(suite, MakeExecOptions(global), opts.filter));
  std::cout << "golden: wrote " << result.written << " file(s), " << result.bytes
            << " bytes, to " << global.golden_dir << "/" << suite.name;
  if (result.imported > 0) std::cout << " (" << result.imported << " imported, left alone)";
  if (result.without_golden > 0) std::cout << " (" << result.without_golden << " without golden outputs)";
  if (!result.case_errors.empty()) {
    std::cout << " (" << result.case_errors.size() << " case(s) refused: not written)";
  }
  std::cout << "\n";
  // Each refused case is one line, as a usage error is; the other cases'
  // files are written, and the exit code says the suite needs fixing.
  for (const std::string& line : result.case_errors) {
    std::cerr << "spyre-regress: error: " << line << "\n";
  }
  return result.case_errors.empty() ? 0 : 2;
}

StatusOr<int> TorchGoldenVerify(const GoldenOptions& opts, const GlobalOptions& global) {
  SPYRE_RETURN_IF_ERROR(PinGoldenThreads());
  SPYRE_ASSIGN_OR_RETURN(auto suite, LoadSuite(global.suites_dir, opts.suite));
  SPYRE_ASSIGN_OR_RETURN(auto drifts, VerifyGolden(suite, MakeExecOptions(global)));
  int drifted = 0, rounding = 0;
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseDrift& d : drifts) {
    if (d.status == DriftStatus::kDrift) ++drifted;
    if (d.status == DriftStatus::kRounding) ++rounding;
    cases.push_back(ToJson(d));
    std::ostream& out = opts.json ? std::cerr : std::cout;
    if (d.status != DriftStatus::kOk) {
      out << DriftStatusName(d.status) << "  " << d.case_id << "  " << d.detail << "\n";
    }
  }
  std::string summary = std::to_string(drifts.size()) + " cases, " +
                        std::to_string(drifted) + " drifted";
  if (rounding > 0) {
    summary += ", " + std::to_string(rounding) + " within the reference's rounding (not drift)";
  }
  // What the references were recomputed on, always: a drift (or its absence)
  // means something only beside the libtorch and BLAS that computed it.
  const LibtorchInfo libtorch = DetectLibtorch();
  const BlasInfo b = DetectBlas();
  const std::string computed_on =
      "recomputed with libtorch " + libtorch.version + ", " + b.name + " " + b.version +
      (b.core.empty() ? "" : ", core " + b.core) + ", " + std::to_string(b.threads) +
      " BLAS thread(s)";
  if (opts.json) {
    nlohmann::json doc = {{"suite", suite.name},
                          {"cases", cases},
                          {"drifted", drifted},
                          {"rounding", rounding},
                          {"libtorch", libtorch.version},
                          {"blas", DescribeBlasInUse()}};
    std::cout << doc.dump(2) << "\n";
    std::cerr << computed_on << "\n" << summary << "\n";
  } else {
    std::cout << computed_on << "\n" << summary << "\n";
  }
  return drifted > 0 ? 1 : 0;
}

}  // namespace harness::cli
