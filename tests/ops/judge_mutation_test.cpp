// The judge's mutation table: for each output dtype (fp32, fp16, bf16,
// int64, bool) and op class (element-wise, reduction, normalisation, matmul;
// every combination the op set has), the unperturbed device output passes
// against its golden reference, and each golden mutation is caught:
//   ulp    one element moved one ULP of the output's format beyond its bound
//   sign   the largest element's sign flipped (bool: negated)
//   nonfin a finite element made NaN, +Inf or -Inf; in fp32 also NaN vs +Inf
//          and +Inf vs -Inf (DL16 has one NaN/Inf code, so it cannot tell
//          those apart and its row does not ask)
//   dtype  the golden tensor in another dtype (and the device output in
//          another dtype than the op gives)
//   shape  the golden tensor with one more row
// The table is printed (one line per row) so a run shows what was measured.
#include <cmath>
#include <cstdio>
#include <limits>

#include <gtest/gtest.h>

#include "harness/compare/compare.h"
#include "harness/compare/device_format.h"
#include "harness/compare/tolerance.h"
#include "harness/inputs/generator.h"
#include "op_case.h"
#include "suites/device_under_test.h"

namespace {

using harness::CompareOutput;
using harness::Criterion;
using harness::OutputComparison;

struct Row {
  std::string op_class;
  std::string op;
  nlohmann::json attrs;
  std::vector<harness::InputSpec> inputs;
  size_t output = 0;  // which output the mutations target
};

harness::InputSpec Spec(std::vector<int64_t> shape, at::ScalarType dtype,
                        harness::Distribution dist = harness::Distribution::kNormal, double low = 0,
                        double high = 1) {
  harness::InputSpec s;
  s.shape = std::move(shape);
  s.dtype = dtype;
  s.dist = dist;
  s.low = low;
  s.high = high;
  return s;
}

// Everything the op case computes for one output, and the judge over it.
struct Judged {
  at::Tensor out, golden, yard, fresh;
  at::ScalarType expected;
  harness::Tolerance tol;
  OutputComparison Judge(const at::Tensor& o, const at::Tensor& g) const {
    return CompareOutput("out", o, g, &yard, tol, expected, &fresh);
  }
  OutputComparison Judge(const at::Tensor& g) const { return Judge(out, g); }
};

std::vector<Judged> Run(const Row& row) {
  suites::OpCase oc;
  oc.op = suites::FindOp(row.op);
  EXPECT_NE(oc.op, nullptr) << row.op;
  auto attrs = suites::ResolveAttrs(*oc.op, row.attrs, "/attrs");
  EXPECT_TRUE(attrs.ok()) << attrs.status().message();
  oc.attrs = *attrs;
  suites::Inputs inputs, on_device;
  for (size_t i = 0; i < row.inputs.size(); ++i) {
    inputs.push_back(harness::GenerateInput(row.inputs[i], 17, static_cast<int>(i)));
    on_device.push_back(inputs.back().to(suites::DeviceUnderTest()));
  }
  const suites::Outputs golden = suites::RunReference(oc, inputs);
  const suites::Outputs fresh = suites::RunReferenceInDouble(oc, inputs);
  const suites::Outputs yard = suites::RunYardstick(oc, inputs);
  const suites::Outputs dev = oc.op->run(on_device, oc.attrs);
  const int64_t k = oc.op->reduction_length ? oc.op->reduction_length(inputs, oc.attrs) : 1;
  std::vector<Judged> out;
  for (size_t i = 0; i < dev.size(); ++i) {
    Judged j;
    j.out = dev[i].cpu();
    j.golden = golden[i];
    j.yard = yard[i];
    j.fresh = fresh[i];
    j.expected = yard[i].scalar_type();
    j.tol = harness::DefaultTolerance(j.expected, k);
    out.push_back(j);
  }
  return out;
}

at::Tensor Flat(const at::Tensor& t) { return t.contiguous().clone().reshape({-1}); }

// The element to perturb: the largest finite |golden|.
int64_t Pick(const Judged& j) {
  const at::Tensor g = Flat(j.golden).to(at::kDouble);
  const double* p = g.data_ptr<double>();
  int64_t best = 0;
  for (int64_t i = 0; i < g.numel(); ++i) {
    if (std::isfinite(p[i]) && std::fabs(p[i]) > std::fabs(p[best])) best = i;
  }
  return best;
}

// The golden value at `i` moved so that the device's value is one ULP of the
// output's format beyond the element's bound (which itself moves with the
// golden value through rtol * |ref| and rms(ref): iterated to a fixed point).
at::Tensor OneUlpBeyond(const Judged& j, int64_t i) {
  at::Tensor g = Flat(j.golden).to(at::kDouble);
  const at::Tensor o = Flat(j.out).to(at::kDouble), y = Flat(j.yard).to(at::kDouble);
  const at::Tensor f = Flat(j.fresh).to(at::kDouble);
  const double out_i = o.data_ptr<double>()[i];
  const double width = std::fabs(y.data_ptr<double>()[i] - f.data_ptr<double>()[i]);
  const double ulp = harness::FormatUlp(out_i, j.expected);
  double ref = g.data_ptr<double>()[i];
  for (int iter = 0; iter < 20; ++iter) {
    g.data_ptr<double>()[i] = ref;
    const double rms = std::sqrt(g.pow(2).mean().item<double>());
    const double bound = harness::ElementBound(j.tol, rms, ref, &width);
    ref = out_i + (out_i >= 0 ? 1 : -1) * (bound + ulp);
  }
  g.data_ptr<double>()[i] = ref;
  return g.reshape(j.golden.sizes()).to(j.golden.scalar_type());
}

at::Tensor SetElement(const at::Tensor& t, int64_t i, double v) {
  at::Tensor f = Flat(t);
  f.index_put_({i}, v);
  return f.reshape(t.sizes());
}

struct Outcome {
  std::string name;
  bool caught;
  Criterion by;
};

Outcome Expect(const std::string& what, const OutputComparison& c) {
  return {what, !c.passed, c.failed};
}

std::vector<Outcome> Mutations(const Judged& j) {
  std::vector<Outcome> r;
  const int64_t i = Pick(j);
  const bool exact = harness::FormatKindOf(j.expected) == harness::FormatKind::kExact;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  if (exact) {
    // One ULP of an integer is 1; a bool has no "beyond": it flips.
    const at::Tensor g64 = Flat(j.golden).to(at::kLong);
    const int64_t v = g64.data_ptr<int64_t>()[i];
    const at::Tensor moved = j.expected == at::kBool
                                 ? SetElement(j.golden, i, v == 0 ? 1 : 0)
                                 : SetElement(j.golden, i, static_cast<double>(v + 1));
    r.push_back(Expect("ulp", j.Judge(moved)));
    const at::Tensor flipped = j.expected == at::kBool
                                   ? SetElement(j.golden, i, v == 0 ? 1 : 0)
                                   : SetElement(j.golden, i, -static_cast<double>(v));
    r.push_back(Expect("sign", j.Judge(flipped)));
  } else {
    r.push_back(Expect("ulp", j.Judge(OneUlpBeyond(j, i))));
    const double v = Flat(j.golden).to(at::kDouble).data_ptr<double>()[i];
    r.push_back(Expect("sign", j.Judge(SetElement(j.golden, i, -v))));
    r.push_back(Expect("nan", j.Judge(SetElement(j.golden, i, nan))));
    r.push_back(Expect("+inf", j.Judge(SetElement(j.golden, i, inf))));
    r.push_back(Expect("-inf", j.Judge(SetElement(j.golden, i, -inf))));
    if (harness::FormatKindOf(j.expected) == harness::FormatKind::kIeee) {
      // The device gives NaN (or +Inf) where the golden says +Inf (or -Inf).
      r.push_back(
          Expect("nan-vs-inf", j.Judge(SetElement(j.out, i, nan), SetElement(j.golden, i, inf))));
      r.push_back(
          Expect("+inf-vs-inf", j.Judge(SetElement(j.out, i, inf), SetElement(j.golden, i, -inf))));
    }
  }
  const at::ScalarType wrong = exact ? at::kFloat : at::kLong;
  r.push_back(Expect("dtype", j.Judge(j.golden.to(wrong))));
  if (!exact) r.push_back(Expect("dtype16", j.Judge(j.golden.to(at::kHalf))));
  r.push_back(Expect("out-dtype", j.Judge(j.out.to(exact ? at::kFloat : at::kDouble), j.golden)));
  at::Tensor bigger = j.golden.dim() == 0 ? j.golden.reshape({1, 1})
                                          : at::cat({j.golden, j.golden.narrow(0, 0, 1)}, 0);
  r.push_back(Expect("shape", j.Judge(bigger)));
  return r;
}

void CheckRow(const std::string& dtype_name, const Row& row) {
  const std::vector<Judged> outs = Run(row);
  ASSERT_GT(outs.size(), row.output);
  // The clean device passes on every output (the indices of max included).
  for (size_t o = 0; o < outs.size(); ++o) {
    const OutputComparison clean = outs[o].Judge(outs[o].golden);
    EXPECT_TRUE(clean.passed) << dtype_name << " " << row.op << " out" << o << ": "
                              << clean.message;
  }
  const Judged& j = outs[row.output];
  EXPECT_EQ(harness::FormatName(j.expected), harness::FormatName(j.out.scalar_type()));
  std::string line = dtype_name + " " + row.op_class + " (" + row.op + " out" +
                     std::to_string(row.output) + "): clean passes;";
  for (const Outcome& m : Mutations(j)) {
    EXPECT_TRUE(m.caught) << dtype_name << " " << row.op << ": mutation '" << m.name
                          << "' passed the judge";
    line += " " + m.name + (m.caught ? std::string("=") + harness::CriterionName(m.by) : "=MISSED");
  }
  std::printf("%s\n", line.c_str());
}

constexpr auto kNormal = harness::Distribution::kNormal;
constexpr auto kInt = harness::Distribution::kInt;
constexpr auto kUniform = harness::Distribution::kUniform;

std::vector<Row> FloatRows(at::ScalarType t) {
  return {
      {"element-wise", "exp", nullptr, {Spec({33, 65}, t, kUniform, -4, 4)}},
      {"element-wise", "add", nullptr, {Spec({17, 40}, t), Spec({17, 40}, t)}},
      {"reduction", "sum", {{"dim", {-1}}}, {Spec({12, 1000}, t)}},
      {"reduction", "max", {{"dim", 0}}, {Spec({9, 33}, t)}},
      {"normalisation", "softmax", {{"dim", -1}}, {Spec({6, 77}, t)}},
      {"normalisation", "log_softmax", {{"dim", -1}}, {Spec({6, 77}, t)}},
      {"normalisation", "layer_norm", nullptr, {Spec({9, 384}, t)}},
      {"normalisation", "layer_norm", nullptr, {Spec({9, 384}, t)}, 2},
      {"matmul", "mm", nullptr, {Spec({33, 200}, t), Spec({200, 17}, t)}},
  };
}

TEST(JudgeMutationTest, Fp32) {
  for (const Row& r : FloatRows(at::kFloat)) CheckRow("fp32", r);
}
TEST(JudgeMutationTest, Fp16) {
  for (const Row& r : FloatRows(at::kHalf)) CheckRow("fp16", r);
}
TEST(JudgeMutationTest, Bf16) {
  for (const Row& r : FloatRows(at::kBFloat16)) CheckRow("bf16", r);
}

TEST(JudgeMutationTest, Int64) {
  const auto i64 = at::kLong;
  const std::vector<Row> rows = {
      {"element-wise",
       "mul",
       nullptr,
       {Spec({17, 40}, i64, kInt, -50, 50), Spec({17, 40}, i64, kInt, -50, 50)}},
      {"element-wise", "pow", {{"exponent", 3}}, {Spec({17, 40}, i64, kInt, -20, 20)}},
      {"reduction", "sum", {{"dim", {-1}}}, {Spec({12, 300}, i64, kInt, -1000, 1000)}},
      // The indices of max over fp32 values: an int64 output of a float op.
      {"reduction", "max", {{"dim", 0}}, {Spec({129, 33}, at::kFloat)}, 1},
      {"matmul", "mm", nullptr, {Spec({9, 30}, i64, kInt, -9, 9), Spec({30, 7}, i64, kInt, -9, 9)}},
  };
  for (const Row& r : rows) CheckRow("int64", r);
}

TEST(JudgeMutationTest, Bool) {
  const std::vector<Row> rows = {
      {"element-wise", "gt", nullptr, {Spec({17, 40}, at::kFloat), Spec({17, 40}, at::kFloat)}},
      {"element-wise", "eq", {{"other", 3}}, {Spec({17, 40}, at::kLong, kInt, 0, 5)}},
      {"reduction", "any", {{"dim", -1}}, {Spec({40, 3}, at::kBool, kInt, 0, 1)}},
  };
  for (const Row& r : rows) CheckRow("bool", r);
}

}  // namespace
