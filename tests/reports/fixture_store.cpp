#include "fixture_store.h"

#include <gtest/gtest.h>

#include "run/regression_hook.h"
#include "store/store.h"

namespace reports_test {
namespace {

using harness::CaseResult;
using harness::CaseStatus;

nlohmann::json Env(bool new_blas) {
  return {{"libtorch", "1.13.0"},
          {"blas",
           {{"name", new_blas ? "reference" : "openblas"},
            {"version", new_blas ? "3.11.0" : "0.3.21"},
            {"path", "/usr/lib/libblas.so.3"}}},
          {"compiler", "gcc 12.2.0"},
          {"spyre_emu", "0.1.0"},
          {"profile", "inductor"},
          {"rounding", "nearest-away"},
          {"cores", 32},
          {"faults", ""},
          {"os", "Linux 6.1"},
          {"cpu", "Test CPU <x86> & \"friends\""},
          {"threads", 1},
          {"harness", {{"version", "0.1.0"}, {"git", "abc123"}}},
          {"tags", {{"vllm", new_blas ? "0.6.4" : "0.6.3"}}}};
}

harness::OpSummary Op(const std::string& name, int64_t calls, double modeled, int64_t fallbacks) {
  harness::OpSummary o;
  o.op = name;
  o.calls = calls;
  o.modeled_us = modeled;
  o.wall_us = modeled * 3;
  o.fallbacks = fallbacks;
  return o;
}

CaseResult Passed(const std::string& suite, const std::string& id, double modeled, double wall) {
  CaseResult r;
  r.suite = suite;
  r.case_id = id;
  r.status = CaseStatus::kPassed;
  r.max_abs_err = 0.001953125;
  r.max_rel_err = 0.0039;
  r.rel_l2 = 0.0012;
  r.max_ulp = 1;
  r.cosine = 0.999998;
  r.metrics.push_back({"out0", "max_ulp", 1, 2, false});
  r.wall_us = {wall, wall + 1, wall + 2, wall + 3, wall + 4, wall + 5};
  r.modeled_us = modeled;
  r.peak_device_bytes = 262144;
  r.extra = {{"golden_digest", "0123456789abcdef0123"}};
  return r;
}

std::vector<CaseResult> Cases(int run, bool last) {
  const bool shifted = run >= 6;
  std::vector<CaseResult> cases;
  // A little run-to-run jitter, so the change-point test has variance to work on.
  const double jitter = 1.0 + 0.001 * (run % 3);
  CaseResult mm = Passed("ops", "mm/64x64", (shifted ? 12.5 : 10.0) * jitter, 40);
  mm.ops = {Op("mm", 1, mm.modeled_us, 0)};
  cases.push_back(mm);
  CaseResult sm = Passed("ops", "softmax/512x1024", 23.67, 60);
  sm.ops = {Op("_softmax", 1, 23.67, 0)};
  cases.push_back(sm);
  CaseResult ln = Passed("ops", "layer_norm/fb", 5.0, 20);
  ln.ops = {Op("native_layer_norm", 2, 5.0, last ? 2 : 0)};
  ln.fallback_ops = last ? 2 : 0;
  cases.push_back(ln);
  CaseResult xss = Passed("ops", "<script>alert(1)</script>", 3.0, 10);
  if (last) {
    xss.status = CaseStatus::kFailed;
    xss.max_ulp = 16;
    xss.metrics = {{"out0", "max_ulp", 16, 2, true}, {"out0", "rel_l2", 0.01, 0.004, true}};
    xss.message = "max_ulp 16 > 2 | `tick` <b>bold</b> & more";
  }
  cases.push_back(xss);
  CaseResult gelu = Passed("ops", "gelu/crash", 2.0, 10);
  if (last) {
    gelu = CaseResult();
    gelu.suite = "ops";
    gelu.case_id = "gelu/crash";
    gelu.status = CaseStatus::kCrashed;
    gelu.message = "worker died: signal 11 (SIGSEGV)\x01";
  }
  cases.push_back(gelu);
  CaseResult skip = Passed("ops", "skip/me", 1.0, 5);
  if (last) {
    skip = CaseResult();
    skip.suite = "ops";
    skip.case_id = "skip/me";
    skip.status = CaseStatus::kSkipped;
    skip.message = "not on this profile";
  }
  cases.push_back(skip);
  cases.push_back(Passed("decode", "granite/step", 80000, 1000 + run));
  return cases;
}

}  // namespace

FixtureRuns BuildFixtureStore(const std::string& path) {
  auto store = harness::Store::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().message();
  FixtureRuns runs;
  for (int run = 1; run <= 8; ++run) {
    harness::NewRun info;
    info.suite = "decode,ops";
    info.label = run == 8 ? "nightly <b>&\"label\"" : "nightly";
    const nlohmann::json env = Env(run >= 6);
    info.env_json = env.dump();
    info.fingerprint = run >= 6 ? "fp-new-0123456789" : "fp-old-0123456789";
    auto id = (*store)->BeginRun(info);
    EXPECT_TRUE(id.ok()) << id.status().message();
    for (const CaseResult& r : Cases(run, run == 8)) {
      harness::Status s = (*store)->RecordResult(*id, r);
      EXPECT_TRUE(s.ok()) << s.message();
    }
    harness::Status s = (*store)->FinishRun(*id, harness::RunStatus::kCompleted);
    EXPECT_TRUE(s.ok()) << s.message();
    if (run == 5) runs.baseline = *id;
    if (run == 8) runs.candidate = *id;
  }
  // The candidate judged against the baseline and its findings recorded,
  // as `run --baseline` does.
  auto judged = harness::DetectRegressionsForRun(**store, runs.candidate, "decode,ops",
                                                 std::to_string(runs.baseline));
  EXPECT_TRUE(judged.ok()) << judged.status().message();
  return runs;
}

}  // namespace reports_test

#include <cstdlib>
#include <regex>

#include "support/temp_dir.h"

namespace reports_test {

reports::ReportModel FixtureModel(const std::string& path) {
  const FixtureRuns runs = BuildFixtureStore(path);
  auto store = harness::Store::Open(path, harness::Store::Mode::kReadOnly);
  EXPECT_TRUE(store.ok()) << store.status().message();
  auto model = reports::BuildReportModel(**store, runs.candidate, {});
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.ok() ? *model : reports::ReportModel();
}

std::string NormaliseTimes(const std::string& text) {
  static const std::regex kIso(
      R"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)");
  return std::regex_replace(text, kIso, "<time>");
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(SPYRE_SOURCE_DIR) + "/tests/reports/golden/" + name;
  const char* update = std::getenv("SPYRE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    spyre_test::WriteFile(path, actual);
    return;
  }
  const std::string expected = spyre_test::ReadFile(path);
  ASSERT_FALSE(expected.empty()) << "golden file " << path
                                 << " is missing: run the test with SPYRE_UPDATE_GOLDEN=1";
  EXPECT_EQ(expected, actual) << "differs from " << path
                              << " (review, then SPYRE_UPDATE_GOLDEN=1 to accept)";
}

}  // namespace reports_test
