#include "stack_fixture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "store/store.h"

namespace reports_test {
// Its own namespace: unity builds put this file together with fixture_store.cpp.
namespace stack_fixture {
namespace {

using harness::CaseResult;
using harness::CaseStatus;

struct StackEnv {
  std::string libtorch, blas_version, compiler, libc, os;
};

nlohmann::json Env(const std::string& stack, const StackEnv& e) {
  nlohmann::json j = {
      {"libtorch", e.libtorch},
      {"blas",
       {{"name", "OpenBLAS"}, {"version", e.blas_version}, {"path", "/usr/lib/libopenblas.so.0"}}},
      {"compiler", e.compiler},
      {"os", e.os},
      {"cpu", "Test CPU"},
      {"threads", 1},
      {"tags", {{"stack", stack}}}};
  if (!e.libc.empty()) j["libc"] = e.libc;
  if (stack.empty()) j["tags"] = nlohmann::json::object();
  return j;
}

CaseResult OpCase(const std::string& id, const std::string& op, CaseStatus status, double wall,
                  double modeled, double ulp) {
  CaseResult r;
  r.suite = "ops";
  r.case_id = id;
  r.status = status;
  if (status == CaseStatus::kFailed) r.message = "max_ulp " + std::to_string(ulp) + " > 4";
  r.max_abs_err = 0.001;
  r.rel_l2 = 0.0012;
  r.max_ulp = ulp;
  r.metrics.push_back({"out0", "max_ulp", ulp, 4, status == CaseStatus::kFailed});
  r.wall_us = {wall, wall, wall, wall, wall};  // the median is exactly `wall`
  r.modeled_us = modeled;
  r.extra = {{"op", op}};
  return r;
}

CaseResult DecodeCase(double wall) {
  CaseResult r;
  r.suite = "decode";
  r.case_id = "granite.b1";
  r.status = CaseStatus::kPassed;
  r.metrics = {{"tokens", "top1_agreement", 1, 0.9, false},
               {"latency", "tokens_per_s", 120, std::nan(""), false}};
  r.wall_us = {wall, wall, wall};
  r.modeled_us = 80000;
  return r;
}

// Records one run (its cases, then its final status); returns its id.
int64_t AddRun(harness::Store& store, const std::string& stack, const std::string& suite,
               const StackEnv& env, const std::vector<CaseResult>& cases,
               harness::RunStatus status = harness::RunStatus::kCompleted) {
  harness::NewRun info;
  info.suite = suite;
  info.label = stack.empty() ? "untagged" : stack + "/" + suite;
  info.env_json = Env(stack, env).dump();
  info.fingerprint = "fp-" + stack;
  auto id = store.BeginRun(info);
  EXPECT_TRUE(id.ok()) << id.status().message();
  if (!id.ok()) return 0;
  for (const CaseResult& r : cases) {
    harness::Status s = store.RecordResult(*id, r);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  harness::Status s = store.FinishRun(*id, status);
  EXPECT_TRUE(s.ok()) << s.message();
  return *id;
}

}  // namespace
}  // namespace stack_fixture

void BuildStackStore(const std::string& path, bool hostile) {
  using S = harness::CaseStatus;
  using stack_fixture::AddRun;
  using stack_fixture::DecodeCase;
  using stack_fixture::OpCase;
  using stack_fixture::StackEnv;
  const StackEnv debian{"1.13.0", "0.3.21", "gcc 12.2.0", "glibc 2.36", "Debian 12"};
  const StackEnv ubuntu{"2.6.0", "0.3.26", "gcc 13.2.0", "glibc 2.39", "Ubuntu 24.04"};
  const StackEnv fedora{"2.6.0", "0.3.26", "gcc 14.1.1", "", "Fedora 40"};
  auto store = harness::Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  harness::Store& st = **store;
  const int64_t superseded = AddRun(st, "ubuntu-24", "ops", ubuntu,
                                    {OpCase("mm.64x64x64.fp16", "mm", S::kPassed, 999, 99, 7)});
  const int64_t debian_ops = AddRun(st, "debian-12", "ops", debian,
                                    {OpCase("mm.64x64x64.fp16", "mm", S::kPassed, 100, 10, 1),
                                     OpCase("mm.128x128x128.fp16", "mm", S::kPassed, 400, 40, 1),
                                     OpCase("add.33x65.fp16", "add", S::kPassed, 20, 2, 0),
                                     OpCase("softmax.512.fp16", "_softmax", S::kPassed, 30, 3, 1)});
  AddRun(st, "debian-12", "decode", debian, {DecodeCase(9000)});
  const int64_t ubuntu_ops = AddRun(st, "ubuntu-24", "ops", ubuntu,
                                    {OpCase("mm.64x64x64.fp16", "mm", S::kPassed, 150, 12.5, 2),
                                     OpCase("mm.128x128x128.fp16", "mm", S::kFailed, 600, 50, 16),
                                     OpCase("add.33x65.fp16", "add", S::kPassed, 20, 2, 0),
                                     OpCase("gelu.64.fp16", "gelu", S::kPassed, 10, 1, 1)});
  AddRun(st, "ubuntu-24", "ops", ubuntu, {OpCase("mm.64x64x64.fp16", "mm", S::kPassed, 1, 1, 1)},
         harness::RunStatus::kAborted);
  AddRun(st, "", "ops", debian, {OpCase("mm.64x64x64.fp16", "mm", S::kPassed, 1, 1, 1)});
  AddRun(st, "ubuntu-24", "decode", ubuntu, {DecodeCase(9900)});
  std::vector<CaseResult> third = {OpCase("mm.64x64x64.fp16", "mm", S::kPassed, 50, 10, 1)};
  if (hostile) third.push_back(OpCase(kHostileCase, kHostileOp, S::kFailed, 5, 1, 9));
  AddRun(st, hostile ? kHostileStack : "fedora-40", "ops", fedora, third);

  harness::RegressionRow row;
  row.suite = "ops";
  row.case_name = "mm.64x64x64.fp16";
  row.kind = "latency";
  row.metric = "wall_us_median";
  harness::RegressionRow status_row = row;
  status_row.case_name = "mm.128x128x128.fp16";
  status_row.kind = "status";
  status_row.metric = "status";
  harness::Status s = st.RecordRegressions(ubuntu_ops, superseded, {row, status_row});
  ASSERT_TRUE(s.ok()) << s.message();
  s = st.RecordRegressions(superseded, debian_ops, {row});
  ASSERT_TRUE(s.ok()) << s.message();
}

}  // namespace reports_test
