// The GitHub Actions workflow (ci/github/nightly.yml): valid YAML with the
// nightly shape, and its shard, merge and report steps replayed here in the
// workflow's order with the workflow's own commands (read from the file), two
// nights in a row on the smoke suite.
#include <unistd.h>

#include <filesystem>
#include <regex>

#include <gtest/gtest.h>

#include "nightly/nightly_util.h"
#include "nightly/yaml_tree.h"
#include "support/temp_dir.h"

namespace {

using nightly_test::Query;
using nightly_test::RunStep;
using spyre_test::YamlNode;

const std::string kWorkflow = std::string(SPYRE_SOURCE_DIR) + "/ci/github/nightly.yml";

YamlNode LoadWorkflow() {
  YamlNode root;
  std::string error;
  EXPECT_TRUE(ParseYaml(spyre_test::ReadFile(kWorkflow), &root, &error))
      << kWorkflow << ": " << error;
  return root;
}

// Replaces every ${{ expr }} with context[expr]; an expression the replay
// does not know fails the test rather than being guessed.
std::string Expand(const std::string& text, const std::map<std::string, std::string>& context) {
  static const std::regex kExpr(R"(\$\{\{\s*(.*?)\s*\}\})");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), kExpr);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += text.substr(last, it->position() - last);
    auto value = context.find((*it)[1].str());
    EXPECT_NE(value, context.end()) << "the replay does not know ${{ " << (*it)[1].str() << " }}";
    if (value != context.end()) out += value->second;
    last = it->position() + it->length();
  }
  return out + text.substr(last);
}

// Adds the scalar entries of an `env:` mapping, expanded, to `env`.
void AddEnv(const YamlNode* mapping, const std::map<std::string, std::string>& context,
            std::map<std::string, std::string>* env) {
  if (mapping == nullptr) return;
  ASSERT_TRUE(mapping->IsMapping()) << "env: at line " << mapping->line;
  for (const auto& [key, value] : mapping->entries) (*env)[key] = Expand(value.scalar, context);
}

// The steps of `job` whose id starts with "nightly-": the ones that do the work.
std::vector<const YamlNode*> NightlySteps(const YamlNode& workflow, const std::string& job) {
  std::vector<const YamlNode*> out;
  const YamlNode* steps = workflow.At({"jobs", job, "steps"});
  if (steps == nullptr || !steps->IsSequence()) {
    ADD_FAILURE() << "jobs." << job << ".steps is missing";
    return out;
  }
  for (const YamlNode& step : steps->items) {
    const YamlNode* id = step.Get("id");
    if (id != nullptr && id->scalar.rfind("nightly-", 0) == 0) out.push_back(&step);
  }
  return out;
}

// Position of the first step of `steps` for which `pred` holds; -1 when none.
template <typename Pred>
int FindStep(const YamlNode& steps, Pred pred) {
  for (size_t i = 0; i < steps.items.size(); ++i) {
    if (pred(steps.items[i])) return static_cast<int>(i);
  }
  return -1;
}

std::string Text(const YamlNode* n) { return n != nullptr && n->IsScalar() ? n->scalar : ""; }

TEST(WorkflowTest, IsValidYamlWithTheNightlyShape) {
  YamlNode wf = LoadWorkflow();
  ASSERT_TRUE(wf.IsMapping());
  const YamlNode* cron = wf.At({"on", "schedule"});
  ASSERT_TRUE(cron != nullptr && cron->IsSequence() && !cron->items.empty());
  EXPECT_TRUE(std::regex_match(Text(cron->items[0].Get("cron")), std::regex(R"(\S+( \S+){4})")));
  EXPECT_NE(wf.At({"on", "workflow_dispatch"}), nullptr);

  const YamlNode* shards = wf.At({"jobs", "shard", "strategy", "matrix", "shard"});
  ASSERT_TRUE(shards != nullptr && shards->IsSequence());
  ASSERT_GE(shards->items.size(), 2u);
  for (size_t i = 0; i < shards->items.size(); ++i)
    EXPECT_EQ(shards->items[i].scalar, std::to_string(i + 1));
  EXPECT_EQ(Text(wf.At({"jobs", "merge", "needs"})), "shard");

  const YamlNode* steps = wf.At({"jobs", "merge", "steps"});
  ASSERT_TRUE(steps != nullptr && steps->IsSequence());
  auto uses = [](const YamlNode& s, const std::string& action) {
    return Text(s.Get("uses")).find(action) == 0;
  };
  int restore = FindStep(*steps, [&](const YamlNode& s) {
    return uses(s, "actions/download-artifact") && s.At({"with", "run-id"}) != nullptr;
  });
  int merge =
      FindStep(*steps, [](const YamlNode& s) { return Text(s.Get("id")) == "nightly-merge"; });
  int summary =
      FindStep(*steps, [](const YamlNode& s) { return Text(s.Get("id")) == "nightly-summary"; });
  int upload = FindStep(*steps, [&](const YamlNode& s) {
    return uses(s, "actions/upload-artifact") && Text(s.At({"with", "path"})).find("carry/") == 0;
  });
  ASSERT_GE(restore, 0) << "no step restores the history store from a previous run's artifact";
  ASSERT_GE(merge, 0);
  ASSERT_GE(summary, 0);
  ASSERT_GE(upload, 0) << "no step uploads the history store";
  EXPECT_LT(restore, merge);
  EXPECT_LT(merge, upload);
  EXPECT_NE(Text(steps->items[merge].Get("run")).find("ci/nightly merge"), std::string::npos);
  EXPECT_NE(Text(steps->items[summary].Get("run")).find("$GITHUB_STEP_SUMMARY"), std::string::npos);
  // A regressed night fails its job, yet its store must still be carried on.
  EXPECT_NE(Text(steps->items[upload].Get("if")).find("always()"), std::string::npos);
  auto shard_steps = NightlySteps(wf, "shard");
  ASSERT_EQ(shard_steps.size(), 1u);
  EXPECT_NE(Text(shard_steps[0]->Get("run")).find("ci/nightly shard"), std::string::npos);
}

TEST(WorkflowTest, TheCheckerRefusesBrokenYaml) {
  const char* broken[] = {
      "a: [1, 2\nb: 3\n",           "a: 1\na: 2\n",     "a:\n\t- 1\n", "a: 1\n b: 2\n",
      "x: &anchor 1\ny: *anchor\n", "a: 1\n---\nb: 2\n"};
  for (const char* text : broken) {
    YamlNode root;
    std::string error;
    EXPECT_FALSE(ParseYaml(text, &root, &error)) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
  YamlNode root;
  std::string error;
  ASSERT_TRUE(ParseYaml("on:\n  push: {}\nrun: |\n  a\n  b\n", &root, &error)) << error;
  EXPECT_EQ(Text(root.Get("run")), "a\nb\n");
  EXPECT_TRUE(root.Get("on")->IsMapping());
}

TEST(WorkflowTest, ShardMergeAndReportStepsReplayLocally) {
  YamlNode wf = LoadWorkflow();
  spyre_test::TempDir ws;  // the runner's workspace: a checkout (ci/), shards/, history/, report/
  ASSERT_EQ(::symlink((std::string(SPYRE_SOURCE_DIR) + "/ci").c_str(), ws.File("ci").c_str()), 0);
  // Wall time is judged elsewhere (drill_test); here two clean nights must be clean.
  const std::string thresholds = ws.File("thresholds.json");
  spyre_test::WriteFile(thresholds, R"({"defaults": {"wall_min_abs_us": 1e12}})");
  const std::string step_summary = ws.File("step-summary.md");
  const YamlNode* matrix = wf.At({"jobs", "shard", "strategy", "matrix", "shard"});
  ASSERT_NE(matrix, nullptr);
  const std::string history = ws.File("history/spyre-regress.db");

  for (int night = 1; night <= 2; ++night) {
    // Each job starts on a fresh runner; only history/ comes back (the artifact).
    std::filesystem::remove_all(ws.File("shards"));
    std::filesystem::remove_all(ws.File("report"));
    std::map<std::string, std::string> context = {
        {"github.run_id", std::to_string(100 + night)},
        {"github.run_attempt", "1"},
        {"inputs.tags || vars.NIGHTLY_TAGS", "vllm=0.6.3"},
        {"strategy.job-total", std::to_string(matrix->items.size())}};
    auto env_for = [&](const std::string& job, const YamlNode& step) {
      std::map<std::string, std::string> env =
          nightly_test::NightlyEnv({{"NIGHTLY_SUITES", "smoke"},
                                    {"SPYRE_REGRESS_THRESHOLDS", thresholds},
                                    {"GITHUB_STEP_SUMMARY", step_summary}});
      AddEnv(wf.Get("env"), context, &env);
      AddEnv(wf.At({"jobs", job, "env"}), context, &env);
      AddEnv(step.Get("env"), context, &env);
      return env;
    };
    for (const YamlNode& shard : matrix->items) {
      context["matrix.shard"] = shard.scalar;
      for (const YamlNode* step : NightlySteps(wf, "shard")) {
        auto r =
            RunStep(ws.path(), Expand(Text(step->Get("run")), context), env_for("shard", *step));
        ASSERT_EQ(r.exit_code, 0) << "night " << night << " shard " << shard.scalar << ": " << r.out
                                  << r.err;
      }
    }
    auto merge_steps = NightlySteps(wf, "merge");
    ASSERT_EQ(merge_steps.size(), 2u);  // merge + detect + report, then the step summary
    for (const YamlNode* step : merge_steps) {
      auto r = RunStep(ws.path(), Expand(Text(step->Get("run")), context), env_for("merge", *step));
      ASSERT_EQ(r.exit_code, 0) << "night " << night << " " << Text(step->Get("id")) << ": "
                                << r.out << r.err;
    }
    // What the next night gets back is the carried copy (the artifact), not
    // the store the merge wrote: a fresh runner has only the download.
    ASSERT_TRUE(std::filesystem::exists(ws.File("carry/spyre-regress.db")));
    std::filesystem::remove_all(ws.File("history"));
    std::filesystem::create_directories(ws.File("history"));
    std::filesystem::copy_file(ws.File("carry/spyre-regress.db"), history);
    std::filesystem::remove_all(ws.File("carry"));
    // The night is ONE run of all its shards, in the carried store.
    const std::string run = std::to_string(night);
    EXPECT_EQ(Query(history, "SELECT count(*) FROM v_runs"), std::vector<std::string>{run});
    EXPECT_EQ(Query(history, "SELECT shard_group || ' ' || status FROM v_runs WHERE run_id = ?1",
                    {run}),
              std::vector<std::string>{"nightly-" + std::to_string(100 + night) + "-1 completed"});
    EXPECT_EQ(Query(history, "SELECT count(*) FROM v_results WHERE run_id = ?1", {run}),
              std::vector<std::string>{"18"});
    EXPECT_EQ(Query(history, "SELECT count(*) FROM v_run_parts WHERE run_id = ?1", {run}),
              std::vector<std::string>{std::to_string(matrix->items.size())});
    EXPECT_EQ(
        Query(history, "SELECT json_extract(env_json, '$.tags.vllm') FROM v_runs WHERE run_id = ?1",
              {run}),
        std::vector<std::string>{"0.6.3"});
    const std::string summary = spyre_test::ReadFile(ws.File("report/summary.md"));
    EXPECT_NE(summary.find("## Nightly verdict: clean"), std::string::npos) << summary;
    for (const char* file : {"index.html", "junit.xml", "report.json", "golden-verify.txt"}) {
      EXPECT_TRUE(std::filesystem::exists(ws.File(std::string("report/") + file))) << file;
    }
    EXPECT_NE(spyre_test::ReadFile(step_summary).find(summary), std::string::npos);
  }
  // Night 2 was compared with night 1, as one run against one run.
  EXPECT_NE(spyre_test::ReadFile(ws.File("report/summary.md"))
                .find("regressions against baseline run 1: 0"),
            std::string::npos);
  EXPECT_EQ(Query(history, "SELECT count(*) FROM v_regressions"), std::vector<std::string>{"0"});
}

}  // namespace
