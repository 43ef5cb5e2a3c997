// The op case kind's preflight (suites/ops/op_preflight.cpp): the shapes an
// op will produce, computed without running it on data, agree with every
// committed golden file; a golden file with a wrong shape, a missing or extra
// output or a wrong dtype, and an input file without its tensor, are errors
// that name the file, the tensor and what to do.
#include <gtest/gtest.h>

#include "harness/golden/golden.h"
#include "harness/safetensors/safetensors.h"
#include "harness/case_kinds/case_kinds.h"
#include "op_case.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::TempDir;

suites::OpCase MakeCase(const std::string& op, const std::vector<std::vector<int64_t>>& shapes,
                        const std::vector<at::ScalarType>& dtypes,
                        const nlohmann::json& attrs = nullptr) {
  suites::OpCase oc;
  oc.op = suites::FindOp(op);
  EXPECT_NE(oc.op, nullptr) << op;
  for (size_t i = 0; i < shapes.size(); ++i) {
    suites::OpInput in;
    in.spec.shape = shapes[i];
    in.spec.dtype = dtypes[i];
    oc.inputs.push_back(in);
  }
  auto resolved = suites::ResolveAttrs(*oc.op, attrs, "/attrs");
  EXPECT_TRUE(resolved.ok()) << resolved.status().message();
  oc.attrs = *resolved;
  return oc;
}

suites::Shapes ShapesOf(const suites::OpCase& oc) {
  auto s = suites::ExpectedOutputShapes(oc);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok() || !s->has_value()) return {};
  return **s;
}

// Every case of the committed suites: the predicted shapes are the golden
// files' shapes, and the kind's CheckGolden accepts each file (no false alarm
// can stop a run).
void ExpectCommittedGoldenAgrees(const std::string& name) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", name);
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const harness::CaseKind* kind = harness::FindCaseKind("op");
  ASSERT_NE(kind, nullptr);
  int checked = 0;
  for (const harness::CaseSpec& c : suite->cases) {
    if (c.kind != "op" || kind->UsesImportedGolden(c)) continue;
    const std::string path = harness::GoldenPath(SPYRE_SOURCE_DIR "/golden", name, c.id);
    // The header, as the run's preflight reads it.
    auto golden = harness::ReadSafetensorsHeader(path);
    ASSERT_TRUE(golden.ok()) << golden.status().message();
    auto oc = suites::ParseOpCase(*suite, c);
    ASSERT_TRUE(oc.ok()) << oc.status().message();
    const suites::Shapes shapes = ShapesOf(*oc);
    ASSERT_EQ(shapes.size(), golden->tensors.size()) << c.id;
    for (size_t i = 0; i < shapes.size(); ++i) {
      const harness::SafetensorsEntry* t = golden->Find("out" + std::to_string(i));
      ASSERT_NE(t, nullptr) << c.id;
      EXPECT_EQ(t->shape, shapes[i]) << c.id << " out" << i;
    }
    const harness::Status s = kind->CheckGolden(*suite, c, *golden, path);
    EXPECT_TRUE(s.ok()) << c.id << ": " << s.message();
    ++checked;
  }
  EXPECT_GT(checked, 10) << name;
}

TEST(OpPreflightTest, PredictedShapesMatchEveryCommittedSmokeGoldenFile) {
  ExpectCommittedGoldenAgrees("smoke");
}
TEST(OpPreflightTest, PredictedShapesMatchEveryCommittedOpsGoldenFile) {
  ExpectCommittedGoldenAgrees("ops");
}

TEST(OpPreflightTest, ShapesOfOpsWithAndWithoutMetaKernels) {
  // Broadcasting (meta kernel).
  EXPECT_EQ(ShapesOf(MakeCase("add", {{7, 1, 129}, {1, 5, 129}}, {at::kHalf, at::kHalf})),
            (suites::Shapes{{7, 5, 129}}));
  EXPECT_EQ(ShapesOf(MakeCase("sum", {{4, 6, 8}}, {at::kFloat}, {{"dim", {1}}, {"keepdim", true}})),
            (suites::Shapes{{4, 1, 8}}));
  // layer_norm, var and embedding have no meta kernel in libtorch 1.13 and
  // take the CPU path on zeros; the shapes come out all the same (layer_norm:
  // the result, then its mean and rstd with the normalized dims kept as 1).
  EXPECT_EQ(ShapesOf(MakeCase("layer_norm", {{3, 5, 16}}, {at::kBFloat16})),
            (suites::Shapes{{3, 5, 16}, {3, 5, 1}, {3, 5, 1}}));
  EXPECT_EQ(ShapesOf(MakeCase("var", {{9, 20}}, {at::kFloat}, {{"dim", {0}}})),
            (suites::Shapes{{20}}));
  EXPECT_EQ(ShapesOf(MakeCase("embedding", {{50, 8}, {2, 3}}, {at::kHalf, at::kLong})),
            (suites::Shapes{{2, 3, 8}}));
}

TEST(OpPreflightTest, InputsTheOpRejectsLeaveTheShapesUnknown) {
  // mm of [3, 4] x [5, 6]: the op's own error is reported when the case runs.
  auto s = suites::ExpectedOutputShapes(MakeCase("mm", {{3, 4}, {5, 6}}, {at::kFloat, at::kFloat}));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_FALSE(s->has_value());
}

class GoldenCheckTest : public ::testing::Test {
 protected:
  // mul by a scalar of a [7, 129] input: one output, [7, 129].
  suites::OpCase Case() const { return MakeCase("mul", {{7, 129}}, {at::kHalf}, {{"other", 1.5}}); }
  static harness::SafetensorsFile Golden(std::vector<std::pair<std::string, at::Tensor>> tensors) {
    harness::SafetensorsFile f;
    f.tensors = std::move(tensors);
    return f;
  }
  harness::Status Check(const harness::SafetensorsFile& f) const {
    return suites::CheckGoldenOutputs(Case(), harness::HeaderOf(f),
                                      "golden/gold/mul_scalar.safetensors", "gold");
  }
};

TEST_F(GoldenCheckTest, TheRightOutputsPass) {
  EXPECT_TRUE(Check(Golden({{"out0", at::zeros({7, 129})}})).ok());
}

TEST_F(GoldenCheckTest, AWrongShapeNamesFileTensorBothShapesAndTheFix) {
  const harness::Status s = Check(Golden({{"out0", at::zeros({100})}}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), harness::ErrorCode::kInvalidInput);
  EXPECT_EQ(
      s.message(),
      "golden/gold/mul_scalar.safetensors: tensor 'out0' has shape [100], the op 'mul' produces "
      "[7, 129] for this case's inputs; regenerate it with 'spyre-regress golden generate --suite "
      "gold --golden golden'");
}

TEST_F(GoldenCheckTest, AMissingOutputIsNamed) {
  const harness::Status s = Check(Golden({{"result", at::zeros({7, 129})}}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("has no tensor 'out0'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("produces 1 output(s)"), std::string::npos) << s.message();
}

TEST_F(GoldenCheckTest, AnExtraTensorIsNamed) {
  const harness::Status s =
      Check(Golden({{"out0", at::zeros({7, 129})}, {"out1", at::zeros({7, 129})}}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("holds tensor 'out1', which is not an output"), std::string::npos)
      << s.message();
}

TEST_F(GoldenCheckTest, AWrongDtypeIsNamedBeforeItsShape) {
  // An fp16 output needs an fp32 or fp64 reference: int and fp16 are refused.
  for (at::ScalarType t : {at::kInt, at::kHalf, at::kLong}) {
    const harness::Status s = Check(Golden({{"out0", at::zeros({100}, t)}}));
    ASSERT_FALSE(s.ok()) << t;
    EXPECT_NE(
        s.message().find("tensor 'out0' cannot serve as the golden output: the reference is " +
                         std::string(c10::toString(t)) + ", the output Half"),
        std::string::npos)
        << s.message();
  }
}

TEST(OpPreflightTest, IntegerAndBoolOutputsNeedAGoldenOfTheirOwnDtype) {
  // max: values (float) and indices (int64); gt: bool.
  const suites::OpCase max = MakeCase("max", {{9, 4}}, {at::kFloat}, {{"dim", 0}});
  auto outs = suites::ExpectedOutputs(max);
  ASSERT_TRUE(outs.ok() && outs->has_value());
  ASSERT_EQ((*outs)->size(), 2u);
  EXPECT_EQ((**outs)[0].dtype, at::kFloat);
  EXPECT_EQ((**outs)[1].dtype, at::kLong);
  harness::SafetensorsFile f;
  f.tensors = {{"out0", at::zeros({4})}, {"out1", at::zeros({4}, at::kLong)}};
  EXPECT_TRUE(suites::CheckGoldenOutputs(max, harness::HeaderOf(f), "g.safetensors", "s").ok());
  f.tensors[1].second = at::zeros({4});
  const harness::Status s =
      suites::CheckGoldenOutputs(max, harness::HeaderOf(f), "g.safetensors", "s");
  EXPECT_NE(s.message().find("tensor 'out1' cannot serve as the golden output: the reference is "
                             "Float, the output Long"),
            std::string::npos)
      << s.message();
  const suites::OpCase gt = MakeCase("gt", {{3}, {3}}, {at::kHalf, at::kHalf});
  auto b = suites::ExpectedOutputs(gt);
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((**b)[0].dtype, at::kBool);
  // A floating output takes the dtype of its floating inputs (fp16 here).
  auto h = suites::ExpectedOutputs(MakeCase("exp", {{3}}, {at::kHalf}));
  ASSERT_TRUE(h.ok() && h->has_value());
  EXPECT_EQ((**h)[0].dtype, at::kHalf);
}

TEST(OpPreflightTest, AnImportedGoldenIsToldToBeFixedNotRegenerated) {
  suites::OpCase oc = MakeCase("neg", {{7}}, {at::kFloat});
  oc.imported_golden = "suites/theirs/neg.safetensors";
  harness::SafetensorsFile f;
  f.tensors = {{"out0", at::zeros({8})}};
  const harness::Status s =
      suites::CheckGoldenOutputs(oc, harness::HeaderOf(f), oc.imported_golden, "s");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("fix or re-export it"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("golden generate --suite"), std::string::npos) << s.message();
}

// A file input is sized from its header; a file without the named tensor is
// a preflight error (CheckFiles), not a case error.
TEST(OpPreflightTest, FileInputsAreSizedFromTheHeaderAndAMissingTensorIsNamed) {
  TempDir dir;
  harness::SafetensorsFile f;
  f.tensors.emplace_back("x", at::zeros({6, 10}, at::kBFloat16));
  ASSERT_TRUE(harness::WriteSafetensors(dir.File("in.safetensors"), f).ok());
  suites::OpCase oc = MakeCase("neg", {{1}}, {at::kFloat});
  oc.inputs[0].file = dir.File("in.safetensors");
  oc.inputs[0].tensor = "x";
  auto shapes = suites::InputShapes(oc);
  ASSERT_TRUE(shapes.ok()) << shapes.status().message();
  EXPECT_EQ((*shapes)[0].shape, (std::vector<int64_t>{6, 10}));
  EXPECT_EQ((*shapes)[0].dtype, at::kBFloat16);
  EXPECT_EQ(ShapesOf(oc), (suites::Shapes{{6, 10}}));

  // A dtype converts a floating file tensor (the case's only a floating one);
  // an integer tensor is not converted to a float.
  oc.inputs[0].dtype = at::kHalf;
  EXPECT_EQ((*suites::InputShapes(oc))[0].dtype, at::kHalf);
  auto built = suites::BuildInputs(oc);
  ASSERT_TRUE(built.ok()) << built.status().message();
  EXPECT_EQ((*built)[0].scalar_type(), at::kHalf);
  oc.inputs[0].dtype.reset();
  oc.inputs[0].case_dtype = at::kFloat;
  EXPECT_EQ((*suites::InputShapes(oc))[0].dtype, at::kFloat);
  // permute: the same logical tensor as a strided view.
  oc.inputs[0].permute = {1, 0};
  built = suites::BuildInputs(oc);
  ASSERT_TRUE(built.ok()) << built.status().message();
  EXPECT_FALSE((*built)[0].is_contiguous());
  EXPECT_EQ((*built)[0].sizes(), at::IntArrayRef({6, 10}));
  oc.inputs[0].permute = {0, 1, 2};
  auto bad_perm = suites::InputShapes(oc);
  ASSERT_FALSE(bad_perm.ok());
  EXPECT_NE(bad_perm.status().message().find("permute: expected a permutation"), std::string::npos);
  oc.inputs[0].permute.clear();

  oc.inputs[0].tensor = "y";
  auto missing = suites::InputShapes(oc);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), harness::ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find(dir.File("in.safetensors") + ": has no tensor 'y'"),
            std::string::npos)
      << missing.status().message();
}

TEST(OpPreflightTest, AnIntegerFileTensorIsNeverConvertedToAFloat) {
  TempDir dir;
  harness::SafetensorsFile f;
  const at::Tensor values = at::arange(12, at::kLong).reshape({3, 4});
  f.tensors.emplace_back("idx", values);
  ASSERT_TRUE(harness::WriteSafetensors(dir.File("in.safetensors"), f).ok());
  suites::OpCase oc = MakeCase("neg", {{1}}, {at::kFloat});
  oc.inputs[0].file = dir.File("in.safetensors");
  oc.inputs[0].tensor = "idx";
  oc.inputs[0].pointer = "/cases/0 (case 'n')/inputs/0";
  oc.inputs[0].case_dtype = at::kHalf;  // a sweep's dtype leaves indices alone
  EXPECT_EQ((*suites::InputShapes(oc))[0].dtype, at::kLong);
  oc.inputs[0].dtype = at::kHalf;  // asked for explicitly: refused, naming the case
  auto s = suites::InputShapes(oc);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), harness::ErrorCode::kInvalidInput);
  EXPECT_NE(s.status().message().find("/cases/0 (case 'n')/inputs/0: tensor 'idx'"),
            std::string::npos)
      << s.status().message();
  // permute of a file tensor keeps every logical element in place.
  oc.inputs[0].dtype.reset();
  oc.inputs[0].permute = {1, 0};
  auto built = suites::BuildInputs(oc);
  ASSERT_TRUE(built.ok());
  EXPECT_TRUE(at::equal((*built)[0], values));
  EXPECT_EQ((*built)[0].stride(0), 1);
}

}  // namespace
