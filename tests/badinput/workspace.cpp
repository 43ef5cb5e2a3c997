#include "workspace.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <ATen/ATen.h>

#include "harness/safetensors/safetensors.h"
#include "suites/models/checkpoint.h"
#include "suites/models/model_config.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace badinput {
namespace {

namespace fs = std::filesystem;
using spyre_test::WriteFile;

// A small op case: the "gold" suite whose golden trees are varied below.
constexpr const char* kGoldSuite = R"({"name": "gold", "cases": [
  {"id": "mul_scalar", "op": "mul", "attrs": {"other": 1.5},
   "inputs": [{"shape": [7, 129], "dtype": "float16", "dist": "normal"}]}]})";

constexpr const char* kLlamaConfig = R"({"model_type": "llama", "hidden_size": 32,
  "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
  "intermediate_size": 48, "vocab_size": 40, "rms_norm_eps": 1e-5})";

std::string CheckpointSuite(const std::string& name, const std::string& dir) {
  return R"({"name": ")" + name + R"(", "cases": [{"id": "decode", "kind": "decode",
    "model": {"checkpoint": "models/)" + dir + R"(", "prompts": [[1, 2, 3]], "steps": 2}}]})";
}

harness::Status WriteWeights(const std::string& dir, const suites::Weights& weights,
                             const std::string& drop, const std::string& transpose) {
  harness::SafetensorsFile f;
  for (const auto& [name, t] : weights) {
    if (name == drop) continue;
    f.tensors.emplace_back(name, name == transpose ? t.t().contiguous() : t);
  }
  return harness::WriteSafetensors(dir + "/model.safetensors", f);
}

// Four intact checkpoints; BreakCheckpoints spoils three of them after their
// golden files were generated, as when a checkpoint is edited afterwards.
std::string WriteCheckpoints(const std::string& models) {
  auto config = suites::ConfigFromHfJson(nlohmann::json::parse(kLlamaConfig), "config.json");
  if (!config.ok()) return config.status().message();
  for (const char* dir : {"ok", "missing_tensor", "bad_shape", "bad_config"}) {
    const std::string d = models + "/" + dir;
    fs::create_directories(d);
    WriteFile(d + "/config.json", kLlamaConfig);
    harness::Status s = WriteWeights(d, suites::SyntheticWeights(*config, 1), "", "");
    if (!s.ok()) return s.message();
  }
  return "";
}

std::string BreakCheckpoints(const std::string& models) {
  auto config = suites::ConfigFromHfJson(nlohmann::json::parse(kLlamaConfig), "config.json");
  if (!config.ok()) return config.status().message();
  const suites::Weights weights = suites::SyntheticWeights(*config, 1);
  harness::Status s = WriteWeights(models + "/missing_tensor", weights, "model.norm.weight", "");
  if (s.ok()) s = WriteWeights(models + "/bad_shape", weights, "", "model.layers.0.mlp.up_proj.weight");
  if (!s.ok()) return s.message();
  fs::create_directories(models + "/bad_type");
  WriteFile(models + "/bad_type/config.json",
            R"({"model_type": "llama", "hidden_size": 32, "num_hidden_layers": 1,
               "num_attention_heads": 4, "num_key_value_heads": "2", "intermediate_size": 48,
               "vocab_size": 40})");
  // heads do not divide hidden_size
  WriteFile(models + "/bad_config/config.json",
            R"({"model_type": "llama", "hidden_size": 30, "num_hidden_layers": 1,
               "num_attention_heads": 4, "intermediate_size": 48, "vocab_size": 40})");
  return "";
}

// Golden trees for the "gold" suite, from the one `golden generate` wrote.
std::string WriteGoldenVariants(const std::string& ws) {
  const std::string ok = ws + "/golden-ok/gold/mul_scalar.safetensors";
  auto golden = harness::ReadSafetensors(ok);
  if (!golden.ok()) return golden.status().message();
  auto variant = [&](const std::string& what) {
    fs::create_directories(ws + "/golden-" + what + "/gold");
    return ws + "/golden-" + what + "/gold/mul_scalar.safetensors";
  };
  fs::create_directories(ws + "/golden-missing/gold");
  const std::string bytes = spyre_test::ReadFile(ok);
  WriteFile(variant("corrupt"), bytes.substr(0, bytes.size() / 2));  // truncated
  harness::SafetensorsFile shape = *golden, dtype = *golden, noout = *golden;
  shape.tensors[0].second = shape.tensors[0].second.reshape({-1}).slice(0, 0, 100).contiguous();
  dtype.tensors[0].second = dtype.tensors[0].second.to(at::kInt);
  noout.tensors[0].first = "result";
  for (auto [what, f] : {std::pair{"shape", &shape}, std::pair{"dtype", &dtype}, std::pair{"noout", &noout}}) {
    harness::Status s = harness::WriteSafetensors(variant(what), *f);
    if (!s.ok()) return s.message();
  }
  fs::copy_file(std::string(SPYRE_SOURCE_DIR) + "/golden/smoke/sum_dim1.safetensors", variant("other"));
  // A model case's golden file whose logprobs lost a vocabulary entry.
  const std::string decode = ws + "/golden-ckshape/ck_ok/decode.safetensors";
  auto model = harness::ReadSafetensors(decode);
  if (!model.ok()) return model.status().message();
  for (auto& [name, t] : model->tensors) {
    if (name == "logprobs") t = t.narrow(-1, 0, t.size(-1) - 1).contiguous();
  }
  harness::Status s = harness::WriteSafetensors(decode, *model);
  return s.ok() ? "" : s.message();
}

std::string Sql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string error;
  if (sqlite3_open(db_path.c_str(), &db) != SQLITE_OK) {
    error = db_path + ": cannot open";
  } else {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      error = db_path + ": " + (msg != nullptr ? msg : "error") + " in " + sql;
    }
    sqlite3_free(msg);
  }
  sqlite3_close(db);
  return error;
}

// Copies of the seed store in states a run can leave behind or a disk can
// cause: an aborted run, a run whose supervisor was killed (still `running`,
// its pid gone), a store with a partial dead run and a run of another suite,
// a store written by a newer schema, and one with corrupt pages behind an
// intact header and schema.
std::string WriteStores(const std::string& ws) {
  const std::string seed = ws + "/seed.db";
  for (const char* name :
       {"aborted.db", "running.db", "runs.db", "newer.db", "corrupt-pages.db", "victim.db"}) {
    fs::copy_file(seed, ws + "/" + name);
  }
  // A store that verbs writing files are pointed at, and a link to it.
  fs::create_symlink(ws + "/victim.db", ws + "/victim-link.db");
  std::string e = Sql(ws + "/aborted.db",
                      "UPDATE runs SET status = 'aborted', note = 'interrupted by signal 15'");
  if (e.empty()) {
    e = Sql(
        ws + "/running.db",
        "UPDATE runs SET status = 'running', finished_at = NULL, pid = 2147483646, pid_start = 1");
  }
  if (e.empty()) {
    // Run 2: the seed run's first case only, its supervisor gone. Run 3: a
    // completed run of another suite, sharing no case with run 1.
    e = Sql(ws + "/runs.db", R"sql(
      INSERT INTO runs (uuid, suite, label, status, started_at, fingerprint, env_json, shard, jobs,
                        threads, options_json, host, pid, pid_start)
        SELECT uuid || '-2', suite, label, 'running', started_at, fingerprint, env_json, shard, jobs,
               threads, options_json, host, 2147483646, 1 FROM runs WHERE id = 1;
      INSERT INTO results (run_id, suite, case_name, status, message, recorded_at, extra_json)
        SELECT 2, suite, case_name, status, message, recorded_at, extra_json FROM results
        WHERE run_id = 1 ORDER BY id LIMIT 1;
      INSERT INTO runs (uuid, suite, label, status, started_at, finished_at, fingerprint, env_json,
                        options_json, host)
        SELECT uuid || '-3', 'other', '', 'completed', started_at, finished_at, fingerprint, env_json,
               '{"cases": 1}', host FROM runs WHERE id = 1;
      INSERT INTO results (run_id, suite, case_name, status, recorded_at)
        SELECT 3, 'other', 'x', 'passed', recorded_at FROM results WHERE run_id = 1 LIMIT 1;
    )sql");
  }
  if (e.empty()) e = Sql(ws + "/newer.db", "INSERT INTO schema_version VALUES (99, '2030-01-01')");
  if (!e.empty()) return e;
  // Every page from the second on, but for the last, becomes noise: the
  // header and schema (page 1) still read, the tables do not.
  const std::string corrupt = ws + "/corrupt-pages.db";
  std::string bytes = spyre_test::ReadFile(corrupt);
  const size_t page = 4096;
  if (bytes.size() < 4 * page) return corrupt + ": the seed store is smaller than expected";
  std::mt19937 rng(11);
  for (size_t i = page; i + page < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
  WriteFile(corrupt, bytes);
  return "";
}

// Files that are not what their name says: devices, a FIFO, a directory, a
// 1 GiB sparse golden file whose header is consistent with its size.
std::string WriteSpecialFiles(const std::string& ws) {
  const std::string suites = ws + "/suites";
  std::error_code ec;
  fs::create_symlink("/dev/zero", suites + "/devzero.json", ec);
  if (!ec) fs::create_symlink("/dev/urandom", suites + "/urandom.json", ec);
  if (ec) return "symlink: " + ec.message();
  if (::mkfifo((suites + "/fifo.json").c_str(), 0644) != 0 ||
      ::mkfifo((suites + "/fifo.safetensors").c_str(), 0644) != 0) {
    return std::string("mkfifo: ") + std::strerror(errno);
  }
  fs::create_directories(suites + "/dirsuite.json");
  WriteFile(suites + "/fifoinput.json", R"({"name": "fifoinput", "cases": [{"id": "a", "op": "neg",
    "inputs": [{"file": "fifo.safetensors", "tensor": "x", "dtype": "float32"}]}]})");
  auto golden = [&](const std::string& what) {
    fs::create_directories(ws + "/golden-" + what + "/gold");
    return ws + "/golden-" + what + "/gold/mul_scalar.safetensors";
  };
  fs::create_symlink("/dev/zero", golden("devzero"), ec);
  if (!ec) fs::create_symlink("/dev/urandom", golden("urandom"), ec);
  if (ec) return "symlink: " + ec.message();
  if (::mkfifo(golden("fifo").c_str(), 0644) != 0)
    return std::string("mkfifo: ") + std::strerror(errno);
  fs::create_directories(golden("dir"));
  // out0: F32 [268435456], 1 GiB of data that was never written.
  std::string header =
      R"({"out0":{"dtype":"F32","shape":[268435456],"data_offsets":[0,1073741824]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string head(8, '\0');
  const uint64_t len = header.size();
  std::memcpy(head.data(), &len, 8);
  const std::string sparse = golden("sparse");
  WriteFile(sparse, head + header);
  if (::truncate(sparse.c_str(), static_cast<off_t>(8 + len + (uint64_t{1} << 30))) != 0) {
    return sparse + ": truncate: " + std::strerror(errno);
  }
  return "";
}

// Suites that abuse a limit: nesting, sweep size, integer range, memory.
void WriteLimitSuites(const std::string& suites) {
  const size_t depth = 100000;
  WriteFile(suites + "/deep.json", R"({"name": "deep", "cases": )" + std::string(depth, '[') +
                                       std::string(depth, ']') + "}");
  std::string shapes;
  for (int i = 0; i < 1000000; ++i) shapes += (i ? ",[" : "[") + std::to_string(i % 97 + 1) + "]";
  WriteFile(suites + "/sweep1e6.json", R"({"name": "sweep1e6", "cases": [{"id": "neg", "op": "neg",
    "inputs": [{"dtype": "float32"}], "sweep": {"shape": [)" +
                                           shapes + "]}}]}");
  WriteFile(suites + "/repeatwrap.json",
            R"({"name": "repeatwrap", "defaults": {"repeat": 4294967298},
    "cases": [{"id": "a", "op": "neg", "inputs": [{"shape": [2], "dtype": "float32"}]}]})");
  WriteFile(suites + "/bigmodel.json",
            R"({"name": "bigmodel", "cases": [{"id": "decode8b", "kind": "decode",
    "model": {"config": "granite-3.3-8b", "prompts": [[1, 2, 3]], "steps": 2}}]})");
  WriteFile(suites + "/badserving.json",
            R"({"name": "badserving", "cases": [{"id": "trace", "kind": "serving",
    "model": {"config": "llama-tiny"}, "serving": {"token_budget": 16, "requests": [
      {"id": "short", "prompt_len": 4, "max_new_tokens": 2},
      {"id": "long", "arrival": 3, "prompt_len": 40, "max_new_tokens": 2}]}}]})");
  WriteFile(suites + "/bigserving.json",
            R"({"name": "bigserving", "cases": [{"id": "trace8b", "kind": "serving",
    "model": {"config": "granite-3.3-8b"}, "serving": {"requests": [
      {"id": "a", "prompt_len": 4, "max_new_tokens": 2}]}}]})");
  WriteFile(suites + "/badtimedtrace.json",
            R"({"name": "badtimedtrace", "cases": [{"id": "trace", "kind": "timing",
    "model": {"figure": "modeled", "config": "granite-3.3-8b"}, "serving": {"requests": [
      {"id": "a", "prompt_len": 4, "max_new_tokens": 2},
      {"id": "b", "arrival": 2, "prompt": [1, 2, 3], "max_new_tokens": 2}]}}]})");
  WriteFile(suites + "/badtimingconfig.json",
            R"({"name": "badtimingconfig", "cases": [{"id": "trace", "kind": "timing",
    "model": {"figure": "modeled", "config": "granite-8b"}, "serving": {"requests": [
      {"id": "a", "prompt_len": 4, "max_new_tokens": 2}]}}]})");
  WriteFile(suites + "/bigshape.json", R"({"name": "bigshape", "cases": [{"id": "huge", "op": "neg",
    "inputs": [{"shape": [100000, 100000], "dtype": "float32"}]}]})");
}

}  // namespace

std::string BuildWorkspace(const std::string& ws) {
  const std::string db = ws + "/seed.db";
  auto seed = spyre_test::RunCli({"run", "--suite", "smoke", "--filter", "^smoke/add\\.", "--db", db,
                                  "--baseline", "none", "--quiet"});
  if (seed.exit_code != 0) return "seeding the store failed: " + seed.err + seed.out;

  const std::string suites = ws + "/suites";
  fs::create_directories(suites + "/models");
  WriteFile(suites + "/badjson.json", R"({"name": "badjson", "cases": [)");
  WriteFile(suites + "/badschema.json", R"({"name": "badschema", "cases": [{"id": "a", "op": "neg",
    "inputs": [{"shape": [2], "dtype": "float32"}], "repeats": 3}]})");
  WriteFile(suites + "/badtype.json", R"({"name": "badtype", "defaults": {"repeat": "five"},
    "cases": [{"id": "a", "op": "neg", "inputs": [{"shape": [2], "dtype": "float32"}]}]})");
  WriteFile(suites + "/badsample.json", R"({"name": "badsample", "defaults": {"min_sample_us": -1},
    "cases": [{"id": "a", "op": "neg", "inputs": [{"shape": [2], "dtype": "float32"}]}]})");
  WriteFile(suites + "/numover.json", R"({"name": "numover", "defaults": {"seed": 1e999},
    "cases": [{"id": "a", "op": "neg", "inputs": [{"shape": [2], "dtype": "float32"}]}]})");
  WriteFile(suites + "/badop.json", R"({"name": "badop", "cases": [{"id": "a", "op": "frobnicate",
    "inputs": [{"shape": [2], "dtype": "float32"}]}]})");
  WriteFile(suites + "/othername.json", R"({"name": "smoke", "cases": [{"id": "a", "op": "neg",
    "inputs": [{"shape": [2], "dtype": "float32"}]}]})");
  WriteFile(suites + "/escape.json", R"({"name": "escape", "cases": [{"id": "a", "op": "neg",
    "inputs": [{"file": "../plain-file", "tensor": "x", "dtype": "float32"}]}]})");
  WriteFile(suites + "/absolute.json", R"({"name": "absolute", "cases": [{"id": "a", "op": "neg",
    "golden": "/etc/passwd", "inputs": [{"shape": [2], "dtype": "float32"}]}]})");
  WriteFile(ws + "/outside.safetensors", "not a safetensors file");
  fs::create_symlink(ws + "/outside.safetensors", suites + "/link.safetensors");
  WriteFile(suites + "/symlink.json", R"({"name": "symlink", "cases": [{"id": "a", "op": "neg",
    "inputs": [{"file": "link.safetensors", "tensor": "x", "dtype": "float32"}]}]})");
  harness::SafetensorsFile input;
  input.tensors.emplace_back("x", at::ones({2, 3}));
  harness::Status written = harness::WriteSafetensors(suites + "/inputs.safetensors", input);
  if (!written.ok()) return written.message();
  WriteFile(suites + "/inmissing.json", R"({"name": "inmissing", "cases": [{"id": "a", "op": "neg",
    "inputs": [{"file": "inputs.safetensors", "tensor": "y", "dtype": "float32"}]}]})");
  WriteFile(suites + "/gold.json", kGoldSuite);
  for (const char* dir : {"ok", "missing_tensor", "bad_shape", "bad_config", "bad_type"}) {
    WriteFile(suites + "/ck_" + dir + ".json", CheckpointSuite(std::string("ck_") + dir, dir));
  }
  std::string problem = WriteCheckpoints(suites + "/models");
  if (!problem.empty()) return problem;

  for (const auto& [suite, golden] : {std::pair{"gold", "/golden-ok"}, std::pair{"ck_missing_tensor", "/golden-ck"},
                                      std::pair{"ck_ok", "/golden-ckshape"}}) {
    auto gen = spyre_test::RunCli({"golden", "generate", "--suite", suite, "--suites", suites,
                                   "--golden", ws + golden, "--quiet"});
    if (gen.exit_code != 0) return std::string("golden generate failed: ") + gen.err + gen.out;
  }
  problem = BreakCheckpoints(suites + "/models");
  if (problem.empty()) problem = WriteGoldenVariants(ws);
  if (!problem.empty()) return problem;

  WriteFile(ws + "/thresholds-json.json", R"({"defaults": {"wall_alpha": 0.01,)");
  WriteFile(ws + "/thresholds-key.json", R"({"defaults": {"wall_alhpa": 0.01}})");
  WriteFile(ws + "/thresholds-type.json", R"({"defaults": {"wall_alpha": "small"}})");

  std::string noise(8192, '\0');
  std::mt19937 rng(7);
  for (char& c : noise) c = static_cast<char>(rng());
  WriteFile(ws + "/corrupt.db", "SQLite format 3" + noise);
  fs::create_directories(ws + "/dir.db");
  WriteFile(ws + "/plain-file", "a file, not a directory\n");
  WriteLimitSuites(suites);
  problem = WriteSpecialFiles(ws);
  if (problem.empty()) problem = WriteStores(ws);
  return problem;
}

}  // namespace badinput
