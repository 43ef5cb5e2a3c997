// The model kinds' golden preflight (CheckModelGolden): every committed
// golden file of the model suites passes, and a file whose tensor has the
// wrong shape, dtype or name is named before the run.
#include <gtest/gtest.h>

#include "harness/golden/golden.h"
#include "harness/safetensors/safetensors.h"
#include "suite_file/suite_file.h"
#include "model_case.h"

namespace suites {
namespace {

struct SuiteTask {
  const char* suite;
  ModelTask task;
};

harness::SafetensorsFile Golden(const std::string& suite, const std::string& id) {
  auto f = harness::ReadSafetensors(harness::GoldenPath(SPYRE_SOURCE_DIR "/golden", suite, id));
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? *f : harness::SafetensorsFile();
}

TEST(ModelGoldenCheckTest, EveryCommittedModelGoldenFilePasses) {
  int checked = 0;
  for (SuiteTask st :
       {SuiteTask{"decode", ModelTask::kDecode}, SuiteTask{"prefill", ModelTask::kPrefill},
        SuiteTask{"embed", ModelTask::kEmbed}}) {
    auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", st.suite);
    ASSERT_TRUE(suite.ok()) << suite.status().message();
    for (const harness::CaseSpec& c : suite->cases) {
      const harness::SafetensorsHeader header = harness::HeaderOf(Golden(st.suite, c.id));
      // The decode suite's serving traces have per-request tensors, which
      // their own kind checks.
      harness::Status s = c.kind == "serving"
                              ? harness::FindCaseKind(c.kind)->CheckGolden(*suite, c, header, "g")
                              : CheckModelGolden(*suite, c, st.task, header, "g");
      EXPECT_TRUE(s.ok()) << st.suite << "/" << c.id << ": " << s.message();
      ++checked;
    }
  }
  EXPECT_EQ(checked, 13 + 4 + 19 + 7);
}

TEST(ModelGoldenCheckTest, WrongShapeDtypeOrNameIsNamed) {
  auto prefill = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "prefill");
  auto embed = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "embed");
  ASSERT_TRUE(prefill.ok() && embed.ok());
  const harness::CaseSpec& p = prefill->cases.front();
  const harness::CaseSpec& e = embed->cases.front();

  harness::SafetensorsFile logits = Golden("prefill", p.id);
  logits.tensors[0].second = logits.tensors[0].second.narrow(1, 0, 1).contiguous();
  harness::Status s = CheckModelGolden(*prefill, p, ModelTask::kPrefill, harness::HeaderOf(logits),
                                       "p.safetensors");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("p.safetensors: tensor 'logits' has shape"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("golden generate --suite prefill --suites " + prefill->root), std::string::npos)
      << s.message();
  // The golden directory of the file goes with the command.
  s = CheckModelGolden(*prefill, p, ModelTask::kPrefill, harness::HeaderOf(logits), "/g/dir/prefill/p.safetensors");
  EXPECT_NE(s.message().find("--golden /g/dir'"), std::string::npos) << s.message();

  harness::SafetensorsFile typed = Golden("embed", e.id);
  typed.tensors[0].second = typed.tensors[0].second.to(at::kInt);
  s = CheckModelGolden(*embed, e, ModelTask::kEmbed, harness::HeaderOf(typed), "e.safetensors");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'embeddings' is Int, expected a floating dtype"), std::string::npos)
      << s.message();

  harness::SafetensorsFile renamed = Golden("embed", e.id);
  renamed.tensors[0].first = "pooled";
  s = CheckModelGolden(*embed, e, ModelTask::kEmbed, harness::HeaderOf(renamed), "e.safetensors");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("has no tensor 'embeddings'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace suites
