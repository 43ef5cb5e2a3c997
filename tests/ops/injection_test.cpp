// Error injection on every device kernel at relative error 1e-4 (about 840
// fp32 ULPs): every fp32 case of the committed `ops` and `smoke` suites whose
// device output the fault changes must fail. A case "can change" when the
// injected run's fp32 outputs differ bitwise from the clean run's (outputs
// that are all zero, or that no perturbing kernel writes, such as a pure
// view copy, cannot). The count is printed as "N of N".
#include <cstdio>
#include <cstring>

#include <gtest/gtest.h>
#include <spyre_emu/runtime.h>

#include "harness/case_kinds/case_kinds.h"
#include "op_case.h"
#include "suites/device_under_test.h"

namespace {

// Every op name the device glue checks faults for (its KernelCall names).
constexpr const char* kKernels[] = {"_log_softmax",
                                    "_softmax",
                                    "abs",
                                    "add",
                                    "add_",
                                    "addmm",
                                    "amax",
                                    "arange",
                                    "argmax",
                                    "argmin",
                                    "baddbmm",
                                    "bmm",
                                    "cat",
                                    "clamp",
                                    "cos",
                                    "div",
                                    "div_",
                                    "eq",
                                    "erf",
                                    "exp",
                                    "ge",
                                    "gelu",
                                    "gt",
                                    "index_select",
                                    "le",
                                    "log",
                                    "lt",
                                    "masked_fill_",
                                    "max",
                                    "maximum",
                                    "mean",
                                    "min",
                                    "minimum",
                                    "mm",
                                    "mul",
                                    "mul_",
                                    "native_layer_norm",
                                    "ne",
                                    "neg",
                                    "pow",
                                    "reciprocal",
                                    "relu",
                                    "rsqrt",
                                    "rsub",
                                    "sigmoid",
                                    "silu",
                                    "sin",
                                    "sqrt",
                                    "sub",
                                    "sub_",
                                    "sum",
                                    "tanh",
                                    "tril",
                                    "triu",
                                    "var",
                                    "where"};

std::string EveryKernelAt(const char* relative) {
  std::string spec;
  for (const char* op : kKernels)
    spec += std::string(spec.empty() ? "" : ";") + op + ":error=" + relative;
  return spec;
}

void SetFaults(const std::string& spec) {
  spyre_emu::Config c = spyre_emu::CurrentConfig();
  c.faults = spec;
  spyre_emu::SetConfig(c);
}

bool SameBits(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  const at::Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data_ptr(), y.data_ptr(), x.numel() * x.element_size()) == 0;
}

struct Count {
  int fp32_cases = 0, changeable = 0, failed = 0;
};

void CountSuite(const std::string& name, const std::string& spec, Count* n) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", name);
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  harness::ExecOptions o;
  o.suites_dir = SPYRE_SOURCE_DIR "/suites";
  o.golden_dir = SPYRE_SOURCE_DIR "/golden";
  o.warmup = 0;
  o.repeat = 1;
  o.min_sample_us = 0;
  for (const harness::CaseSpec& c : suite->cases) {
    if (c.kind != "op") continue;
    auto oc = suites::ParseOpCase(*suite, c);
    ASSERT_TRUE(oc.ok()) << oc.status().message();
    auto inputs = suites::BuildInputs(*oc);
    ASSERT_TRUE(inputs.ok()) << inputs.status().message();
    const suites::Outputs yard = suites::RunYardstick(*oc, *inputs);
    bool fp32 = false;
    for (const at::Tensor& y : yard) fp32 = fp32 || y.scalar_type() == at::kFloat;
    if (!fp32) continue;
    ++n->fp32_cases;
    suites::Inputs on_device;
    for (const at::Tensor& t : *inputs) on_device.push_back(t.to(suites::DeviceUnderTest()));
    SetFaults("");
    const suites::Outputs clean = oc->op->run(on_device, oc->attrs);
    SetFaults(spec);
    const suites::Outputs faulty = oc->op->run(on_device, oc->attrs);
    bool changed = false;
    for (size_t i = 0; i < clean.size(); ++i) {
      if (clean[i].scalar_type() != at::kFloat) continue;
      changed = changed || !SameBits(clean[i].cpu(), faulty[i].cpu());
    }
    if (!changed) {
      std::printf("unchanged by the fault: %s/%s\n", name.c_str(), c.id.c_str());
      SetFaults("");
      continue;
    }
    ++n->changeable;
    const harness::CaseResult r = harness::ExecuteCase(*suite, c, o);
    SetFaults("");
    if (r.status == harness::CaseStatus::kFailed) {
      ++n->failed;
    } else {
      ADD_FAILURE() << name << "/" << c.id
                    << " passed with every kernel at error=1e-4: " << r.message;
    }
  }
}

TEST(InjectionTest, EveryChangeableFp32CaseFailsAtRelativeError1e4) {
  const std::string spec = EveryKernelAt("1e-4");
  Count n;
  CountSuite("ops", spec, &n);
  CountSuite("smoke", spec, &n);
  std::printf("error=1e-4 on every kernel: %d fp32 cases, %d whose output changes, %d of %d fail\n",
              n.fp32_cases, n.changeable, n.failed, n.changeable);
  EXPECT_EQ(n.failed, n.changeable);
  EXPECT_GE(n.changeable, 80) << "the suites lost most of their fp32 cases";
}

}  // namespace
