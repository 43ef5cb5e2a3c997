// A new user's first hour, through the real CLI: an own suite with the usual
// mistakes, an own Hugging Face style checkpoint, a regression on purpose,
// and commands from another directory. Every step asserts the exit code and,
// for a mistake, the one line that says what is wrong, where, and what to do.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/safetensors/safetensors.h"
#include "suites/models/checkpoint.h"
#include "suites/models/model_config.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using spyre_test::CommandResult;
using spyre_test::RunCliIn;
using spyre_test::WriteFile;

constexpr const char* kLlamaConfig = R"({"model_type": "llama", "hidden_size": 32,
  "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
  "intermediate_size": 48, "vocab_size": 40, "rms_norm_eps": 1e-5})";

// A tiny Llama checkpoint with random weights: config.json and model.safetensors.
std::string WriteCheckpoint(const std::string& dir) {
  fs::create_directories(dir);
  WriteFile(dir + "/config.json", kLlamaConfig);
  auto config = suites::ConfigFromHfJson(nlohmann::json::parse(kLlamaConfig), "config.json");
  if (!config.ok()) return config.status().message();
  harness::SafetensorsFile f;
  for (const auto& [name, t] : suites::SyntheticWeights(*config, 7))
    f.tensors.emplace_back(name, t);
  harness::Status s = harness::WriteSafetensors(dir + "/model.safetensors", f);
  return s.ok() ? "" : s.message();
}

// The suite, with `extra` cases appended (the mistakes of a step).
std::string Suite(const std::string& extra, const std::string& decode_member) {
  return R"({"name": "mine", "cases": [
    {"id": "add", "op": "add", "inputs": [{"shape": [8, 16], "dtype": "float32"},
                                          {"shape": [8, 16], "dtype": "float32"}]},
    {"id": "mm", "op": "mm", "inputs": [{"shape": [16, 32], "dtype": "float32"},
                                        {"shape": [32, 8], "dtype": "float32"}]},
    {"id": "isum", "op": "sum", "attrs": {"dim": [1]}, "inputs": [{"shape": [4, 8], "dtype": "int64"}]},
    {"id": "decode", "kind": "decode", )" +
         decode_member + R"(}
    )" + extra +
         "]}";
}

// The decode case's model member, its limit where it belongs.
const std::string kDecodeModel =
    R"("model": {"checkpoint": "models/tiny", "prompts": [[1, 2, 3]], "steps": 4, "max_logprob_diff": 0.5})";

// Exit 2 with exactly one line on stderr, holding every fragment.
void ExpectOneLineError(const CommandResult& r, const std::vector<std::string>& fragments,
                        const std::string& step) {
  EXPECT_EQ(r.exit_code, 2) << step << "\n" << r.out << r.err;
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << step << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("spyre-regress: error: ", 0), 0u) << step << "\n" << r.err;
  for (const std::string& f : fragments) {
    EXPECT_NE(r.err.find(f), std::string::npos) << step << ": no '" << f << "' in\n" << r.err;
  }
}

TEST(WalkthroughTest, ANewUsersFirstHour) {
  spyre_test::TempDir ws;
  const std::string proj = ws.File("proj");
  const std::string suites = proj + "/suites";
  const std::string sub = proj + "/work/deeper";
  const std::string elsewhere = ws.File("elsewhere");
  fs::create_directories(sub);
  fs::create_directories(elsewhere);
  ASSERT_EQ(WriteCheckpoint(suites + "/models/tiny"), "");
  const std::string store = proj + "/spyre-regress.db";
  const std::vector<std::string> fast = {"--warmup", "0", "--repeat", "1", "--confirm-rounds", "0"};
  auto with = [&](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };

  // 1. A typo in an op name: one line with the closest op.
  WriteFile(
      suites + "/mine.json",
      Suite(R"(, {"id": "sm", "op": "softmx", "inputs": [{"shape": [4, 8], "dtype": "float32"}]})",
            kDecodeModel));
  ExpectOneLineError(RunCliIn(proj, {"list", "--suites", "suites", "--suite", "mine"}),
                     {"mine.json", "/cases/4", "unknown op 'softmx'", "did you mean 'softmax'"},
                     "unknown op");

  // 2. Decode's limit put in the case's "tolerance": told where it goes.
  WriteFile(suites + "/mine.json",
            Suite("", R"("tolerance": {"max_logprob_diff": 0.5}, )" + kDecodeModel));
  ExpectOneLineError(
      RunCliIn(proj, {"list", "--suites", "suites"}),
      {"mine.json", "/cases/3/tolerance/max_logprob_diff", "/cases/3/model/max_logprob_diff"},
      "decode limit in tolerance");

  // 3. A case the loader accepts but libtorch refuses (softmax dim 5 of a
  // 2-D input): golden generate names it in one line, writes the other
  // cases' files next to --suites (no --golden given), and exits 2.
  WriteFile(suites + "/mine.json", Suite(R"(, {"id": "sm", "op": "softmax", "attrs": {"dim": 5},
                       "inputs": [{"shape": [4, 8], "dtype": "float32"}]})",
                                         kDecodeModel));
  CommandResult gen =
      RunCliIn(proj, {"golden", "generate", "--suite", "mine", "--suites", "suites"});
  ExpectOneLineError(gen, {"mine.json", "case 'sm'", "op softmax", "Dimension out of range"},
                     "golden generate with a refused case");
  for (const char* id : {"add", "mm", "isum", "decode"}) {
    EXPECT_TRUE(fs::exists(proj + "/golden/mine/" + std::string(id) + ".safetensors"))
        << id << gen.out;
  }
  EXPECT_FALSE(fs::exists(proj + "/golden/mine/sm.safetensors"));
  EXPECT_NE(gen.out.find(proj + "/golden/mine"), std::string::npos) << gen.out;

  // 4. `run` of the suite still holding it: the same line, before anything
  // is recorded.
  ExpectOneLineError(
      RunCliIn(proj, with({"run", "--suite", "mine", "--suites", "suites", "--db", store}, fast)),
      {"case 'sm'", "op softmax", "Dimension out of range"}, "run with a refused case");
  EXPECT_FALSE(fs::exists(store)) << "nothing may be recorded";

  // The case fixed (dropped); the first run creates the store where --db says.
  WriteFile(suites + "/mine.json", Suite("", kDecodeModel));
  ASSERT_EQ(
      RunCliIn(proj, {"golden", "generate", "--suite", "mine", "--suites", "suites"}).exit_code, 0);
  CommandResult first = RunCliIn(proj, with({"run", "--suite", "mine", "--suites", "suites", "--db",
                                             store, "--label", "first", "-q"},
                                            fast));
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("store " + store), std::string::npos) << first.out;

  // 5. From another directory below the project, with global options before
  // the verb and the verb's own before it too: the store is found in the
  // enclosing directory (printed absolute), so the history goes on.
  CommandResult second =
      RunCliIn(sub, with({"--suites", "../../suites", "--suite", "mine", "run", "-q"}, fast));
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_NE(second.out.find("store " + store), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("baseline: run 1"), std::string::npos) << second.out;
  EXPECT_FALSE(fs::exists(sub + "/spyre-regress.db"));

  // 6. A regression on purpose: mm's results off by 10%.
  CommandResult bad = RunCliIn(sub, with({"run", "--suite", "mine", "--suites", "../../suites",
                                          "--inject", "mm:error=1e-1", "-q"},
                                         fast));
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("baseline: run 2"), std::string::npos) << bad.out;
  EXPECT_EQ(bad.out.find("regressions: 0"), std::string::npos) << bad.out;

  // 7. The runs, from anywhere the store is named (here: the environment).
  CommandResult runs = RunCliIn(elsewhere, {"runs", "--json"}, {{"SPYRE_REGRESS_DB", store}});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const nlohmann::json list = nlohmann::json::parse(runs.out);
  EXPECT_EQ(list["store"], store);
  ASSERT_EQ(list["runs"].size(), 3u) << runs.out;
  EXPECT_EQ(list["runs"][0]["run_id"], 3);
  EXPECT_EQ(list["runs"][0]["baseline_run_id"], 2);
  EXPECT_GT(list["runs"][0]["regressions"].get<int>(), 0);
  EXPECT_NE(list["runs"][0]["env_summary"].get<std::string>().find("faults mm:error=1e-1"),
            std::string::npos);
  EXPECT_EQ(list["runs"][2]["label"], "first");
  for (const auto& r : list["runs"]) EXPECT_EQ(r["status"], "completed") << r.dump();
  CommandResult human = RunCliIn(sub, {"runs"});
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("store " + store + " (an enclosing directory)"), std::string::npos)
      << human.out;

  // 8. Run references: by label, by offset, latest.
  CommandResult cmp =
      RunCliIn(sub, {"compare", "--baseline", "label:first", "--candidate", "latest"});
  EXPECT_EQ(cmp.exit_code, 1) << cmp.out << cmp.err;
  EXPECT_NE(cmp.out.find("(baseline run 1; 4 findings)"), std::string::npos) << cmp.out;
  CommandResult prev =
      RunCliIn(sub, {"compare", "--baseline", "~2", "--candidate", "~1", "--json"});
  ASSERT_TRUE(prev.exit_code == 0 || prev.exit_code == 1) << prev.err;
  for (const auto& f : nlohmann::json::parse(prev.out)["regressions"]) {
    EXPECT_EQ(f.value("kind", ""), "latency")
        << "two clean runs differ only in timing: " << f.dump();
  }
  ExpectOneLineError(RunCliIn(sub, {"compare", "--baseline", "-1"}), {"--baseline '-1'", "~1"},
                     "offset spelled -1");
  ExpectOneLineError(RunCliIn(sub, {"compare", "--baseline", "~7"}),
                     {"--baseline '~7'", "fewer than 8 runs"}, "offset past the oldest run");
  CommandResult report = RunCliIn(sub, {"report", "--run", "~1", "--out", ws.File("report")});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("run 2 "), std::string::npos) << report.out;
  EXPECT_TRUE(fs::exists(ws.File("report") + "/index.html"));

  // 9. Typos get the closest name.
  ExpectOneLineError(RunCliIn(sub, {"rnu", "--suite", "mine"}),
                     {"unknown verb 'rnu'", "did you mean 'run'"}, "verb typo");
  ExpectOneLineError(RunCliIn(sub, {"run", "--suite", "mine", "--repeats", "5"}),
                     {"unknown flag '--repeats'", "did you mean '--repeat'"}, "flag typo");
  ExpectOneLineError(RunCliIn(sub, {"run", "--suites", "../../suites", "--suite", "mien"}),
                     {"mien.json", "no such suite file", "did you mean 'mine'"}, "suite typo");
  ExpectOneLineError(RunCliIn(sub, {"golden", "genrate", "--suite", "mine"}),
                     {"'genrate'", "did you mean 'generate'"}, "sub-verb typo");
  ExpectOneLineError(
      RunCliIn(sub, {"history", "--suites", "../../suites", "--suite", "mine", "--case", "mn"}),
      {"--case 'mn'", "did you mean 'mm'"}, "case typo");

  // 10. History of a metric the decode case records.
  CommandResult hist =
      RunCliIn(sub, {"history", "--suite", "mine", "--case", "decode", "--metric", "tokens_per_s"});
  EXPECT_EQ(hist.exit_code, 0) << hist.err;
  EXPECT_NE(hist.out.find("change points: "), std::string::npos) << hist.out;
}

}  // namespace
