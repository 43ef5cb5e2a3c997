// The bad-input catalogue: every file or flag a user can get wrong, run
// through the real spyre-regress binary. Each entry must exit 2, print
// exactly one line on stderr that names what is wrong and where (the
// entry's `expect` fragments), and leave an existing store's runs exactly as
// they were (row counts and a digest of v_runs, v_results, v_regressions).
//
// An entry with `gap` set is a known gap: the CLI does not meet the rule yet.
// It still runs and is reported as "KNOWN GAP" with what it did; it fails
// once the gap is closed, so that it is promoted to an ordinary entry.
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "run/shard.h"
#include "store_snapshot.h"
#include "support/run_command.h"
#include "support/temp_dir.h"
#include "workspace.h"

namespace badinput {
namespace {

struct Entry {
  const char* name;
  std::vector<std::string> args;           // {ws} and {db} are replaced
  std::map<std::string, std::string> env;  // added to the environment
  std::vector<std::string> expect;         // fragments the stderr line must hold
  const char* gap = nullptr;               // a known gap: why it does not pass yet
  const char* untouched = nullptr;         // a file ({ws}/...) whose bytes must not change
  const char* absent = nullptr;            // a path ({ws}/...) that must not exist afterwards;
                                           // ending in '*': no file whose name starts so
  std::vector<std::string> forbid = {};    // fragments the stderr line must not hold
};

// The shard of two that holds no case of `smoke` chosen by `--filter
// ^smoke/mul_scalar$`: cases are split by a hash of their ids.
std::string EmptyShardOfTwo() {
  return harness::ShardOf("smoke", "mul_scalar", 2) == 1 ? "2/2" : "1/2";
}

// Peak resident memory any entry may reach: bad input must be refused
// before it is read whole or built.
constexpr long kMaxRssKb = 1024 * 1024;

// clang-format off
const std::vector<Entry>& Catalogue() {
  static const std::vector<Entry> entries = {
    // Suite files
    {"suite_malformed_json", {"run", "--suite", "badjson", "--suites", "{ws}/suites"}, {}, {"badjson.json", "not valid JSON"}},
    {"suite_schema_unknown_member", {"run", "--suite", "badschema", "--suites", "{ws}/suites"}, {}, {"badschema.json", "/cases/0/repeats", "unknown member"}},
    {"suite_schema_wrong_type", {"run", "--suite", "badtype", "--suites", "{ws}/suites"}, {}, {"badtype.json", "/defaults/repeat"}},
    {"suite_negative_min_sample", {"run", "--suite", "badsample", "--suites", "{ws}/suites"}, {}, {"badsample.json", "/defaults/min_sample_us"}},
    {"suite_number_overflow", {"run", "--suite", "numover", "--suites", "{ws}/suites"}, {}, {"numover.json", "not valid JSON"}},
    {"suite_unknown_op", {"run", "--suite", "badop", "--suites", "{ws}/suites"}, {}, {"badop.json", "frobnicate"}},
    {"suite_name_differs_from_file", {"run", "--suite", "othername", "--suites", "{ws}/suites"}, {}, {"othername.json", "/name"}},
    {"suite_path_escapes_root", {"run", "--suite", "escape", "--suites", "{ws}/suites"}, {}, {"escape.json", "/cases/0", "../plain-file", "inside the suites directory"}},
    {"suite_absolute_path", {"run", "--suite", "absolute", "--suites", "{ws}/suites"}, {}, {"absolute.json", "/etc/passwd", "absolute"}},
    {"suite_input_file_lacks_tensor", {"run", "--suite", "inmissing", "--suites", "{ws}/suites"}, {}, {"inputs.safetensors", "no tensor 'y'"}},
    {"suite_symlink_leaves_root", {"run", "--suite", "symlink", "--suites", "{ws}/suites"}, {}, {"symlink.json", "link.safetensors", "outside the suites directory"}},
    {"suite_missing", {"run", "--suite", "nosuch", "--suites", "{ws}/suites"}, {}, {"nosuch.json", "no such suite"}},
    {"suite_bad_name", {"run", "--suite", "../smoke"}, {}, {"'../smoke'", "not a suite name"}},
    {"suite_dir_missing", {"run", "--suite", "smoke", "--suites", "{ws}/no-such-dir"}, {}, {"no-such-dir", "smoke.json"}},
    {"suite_listed_twice", {"run", "--suite", "smoke,smoke"}, {}, {"'smoke'", "twice"}},
    {"list_malformed_suite", {"list", "--suite", "badjson", "--suites", "{ws}/suites"}, {}, {"badjson.json", "not valid JSON"}},
    // Golden files
    {"golden_missing", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-missing"}, {}, {"gold/mul_scalar.safetensors", "golden generate"}},
    {"golden_corrupt", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-corrupt"}, {}, {"gold/mul_scalar.safetensors", "malformed safetensors"}},
    {"golden_wrong_shape", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-shape"}, {}, {"gold/mul_scalar.safetensors", "'out0' has shape [100]", "produces [7, 129]", "golden generate --suite gold"}},
    {"golden_output_missing", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-noout"}, {}, {"gold/mul_scalar.safetensors", "no tensor 'out0'", "golden generate --suite gold"}},
    {"golden_wrong_dtype", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-dtype"}, {}, {"gold/mul_scalar.safetensors", "Int"}},
    {"golden_of_another_case", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-other"}, {}, {"gold/mul_scalar.safetensors"}},
    {"golden_verify_corrupt", {"golden", "verify", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-corrupt"}, {}, {"gold/mul_scalar.safetensors", "malformed safetensors"}},
    // Stores
    {"store_corrupt", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--db", "{ws}/corrupt.db"}, {}, {"corrupt.db", "not a SQLite database"}},
    {"store_is_a_directory", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--db", "{ws}/dir.db"}, {}, {"dir.db", "is a directory"}},
    {"store_dir_unusable", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--db", "{ws}/plain-file/x.db"}, {}, {"plain-file/x.db"}},
    {"store_locked", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$"}, {}, {"store-store_locked.db", "locked"}},
    {"compare_corrupt_store", {"compare", "--baseline", "1", "--candidate", "1", "--db", "{ws}/corrupt.db"}, {}, {"corrupt.db", "not a SQLite database"}},
    {"report_missing_store", {"report", "--out", "{ws}/report", "--db", "{ws}/no-such.db"}, {}, {"no-such.db"}},
    // Thresholds
    {"thresholds_malformed_json", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--thresholds", "{ws}/thresholds-json.json"}, {}, {"thresholds-json.json", "JSON"}},
    {"thresholds_unknown_key", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--thresholds", "{ws}/thresholds-key.json"}, {}, {"thresholds-key.json", "/defaults/wall_alhpa"}},
    {"thresholds_wrong_type", {"compare", "--baseline", "1", "--candidate", "1", "--thresholds", "{ws}/thresholds-type.json"}, {}, {"thresholds-type.json", "/defaults/wall_alpha"}},
    {"thresholds_missing", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--thresholds", "{ws}/no-such-thresholds.json"}, {}, {"no-such-thresholds.json"}},
    // Hugging Face checkpoints
    {"checkpoint_bad_config", {"run", "--suite", "ck_bad_config", "--suites", "{ws}/suites"}, {}, {"bad_config/config.json", "heads must divide hidden"}},
    {"checkpoint_config_wrong_type", {"list", "--suite", "ck_bad_type", "--suites", "{ws}/suites"}, {}, {"bad_type/config.json", "'num_key_value_heads' must be an integer"}},
    {"checkpoint_missing_tensor", {"golden", "generate", "--suite", "ck_missing_tensor", "--suites", "{ws}/suites", "--golden", "{ws}/golden-ck"}, {}, {"model.norm.weight", "missing"}},
    {"checkpoint_bad_shape", {"golden", "generate", "--suite", "ck_bad_shape", "--suites", "{ws}/suites", "--golden", "{ws}/golden-ck"}, {}, {"model.layers.0.mlp.up_proj.weight", "shape"}},
    {"checkpoint_missing_tensor_run", {"run", "--suite", "ck_missing_tensor", "--suites", "{ws}/suites", "--golden", "{ws}/golden-ck"}, {}, {"models/missing_tensor", "model.norm.weight", "missing", "config.json"}},
    {"model_golden_wrong_shape", {"run", "--suite", "ck_ok", "--suites", "{ws}/suites", "--golden", "{ws}/golden-ckshape"}, {}, {"ck_ok/decode.safetensors", "'logprobs' has shape [1, 2, 39]", "produces [1, 2, 40]", "golden generate --suite ck_ok"}},
    {"checkpoint_bad_shape_run", {"run", "--suite", "ck_bad_shape", "--suites", "{ws}/suites", "--golden", "{ws}/golden-ck"}, {}, {"bad_shape/model.safetensors", "model.layers.0.mlp.up_proj.weight", "[32, 48]", "implies [48, 32]"}},
    // Emulator settings and fault specs
    {"faults_env_unknown_kind", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$"}, {{"SPYRE_EMU_FAULTS", "mm:nan;gelu:slw"}}, {"SPYRE_EMU_FAULTS", "'gelu:slw'", "character 13"}},
    {"faults_inject_bad_value", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--inject", "mm:slow=0.5"}, {}, {"--inject", "slow=0.5", "at least 1"}},
    {"faults_inject_unknown_op", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--inject", "nosuchop:slow=2"}, {}, {"--inject", "'nosuchop'", "did you mean"}},
    {"faults_inject_misspelt_matmul", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--inject", "matmull:slow=2"}, {}, {"--inject", "'matmull'", "did you mean mm, addmm, bmm or baddbmm (what matmul becomes"}},
    {"faults_inject_composite_op", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--inject", "linear:slow=2"}, {}, {"--inject", "'linear'", "mm, addmm"}},
    {"faults_env_unknown_op", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$"}, {{"SPYRE_EMU_FAULTS", "softmx:nan"}}, {"SPYRE_EMU_FAULTS", "'softmx'", "_softmax"}},
    {"faults_env_verb", {"env"}, {{"SPYRE_EMU_FAULTS", "mm"}}, {"SPYRE_EMU_FAULTS", "'mm'", "OP:KIND"}},
    {"emu_cores_out_of_range", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$"}, {{"SPYRE_EMU_CORES", "64"}}, {"SPYRE_EMU_CORES", "64"}},
    {"emu_rounding_unknown", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$"}, {{"SPYRE_EMU_ROUNDING", "up"}}, {"SPYRE_EMU_ROUNDING", "up"}},
    {"profile_unknown", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--profile", "fast"}, {}, {"--profile", "fast"}},
    // Shard specs
    {"shard_zero", {"run", "--suite", "smoke", "--shard", "0/3"}, {}, {"--shard", "'0/3'"}},
    {"shard_past_count", {"run", "--suite", "smoke", "--shard", "4/3"}, {}, {"--shard", "'4/3'"}},
    {"shard_not_a_spec", {"run", "--suite", "smoke", "--shard", "x"}, {}, {"--shard", "'x'"}},
    {"shard_zero_count", {"run", "--suite", "smoke", "--shard", "1/0"}, {}, {"--shard", "'1/0'"}},
    // Verbs and flags
    {"unknown_verb", {"frobnicate"}, {}, {"unknown verb", "frobnicate"}},
    {"unknown_flag", {"run", "--suite", "smoke", "--frobnicate"}, {}, {"--frobnicate"}},
    {"run_without_suite", {"run"}, {}, {"--suite"}},
    {"jobs_zero", {"run", "--suite", "smoke", "--jobs", "0"}, {}, {"--jobs"}},
    {"repeat_zero", {"run", "--suite", "smoke", "--repeat", "0"}, {}, {"--repeat"}},
    {"rounds_zero", {"run", "--suite", "smoke", "--rounds", "0"}, {}, {"--rounds"}},
    {"rounds_range_reversed", {"run", "--suite", "smoke", "--rounds", "5-3"}, {}, {"--rounds", "'5-3'", "MIN-MAX"}},
    {"rounds_not_a_count", {"run", "--suite", "smoke", "--rounds", "many"}, {}, {"--rounds", "'many'"}},
    {"round_precision_negative", {"run", "--suite", "smoke", "--rounds", "10-20", "--round-precision", "-1"}, {}, {"--round-precision"}},
    {"round_repeat_zero", {"run", "--suite", "smoke", "--rounds", "10", "--round-repeat", "0"}, {}, {"--round-repeat"}},
    {"confirm_repeat_zero", {"run", "--suite", "smoke", "--confirm-repeat", "0"}, {}, {"--confirm-repeat"}},
    {"latency_not_a_mode", {"run", "--suite", "smoke", "--latency", "some"}, {}, {"--latency", "some"}},
    {"min_sample_negative", {"run", "--suite", "smoke", "--min-sample-us", "-5"}, {}, {"--min-sample-us"}},
    {"threads_zero", {"run", "--suite", "smoke", "--threads", "0"}, {}, {"--threads"}},
    {"timeout_not_a_number", {"run", "--suite", "smoke", "--timeout", "soon"}, {}, {"--timeout", "soon"}},
    {"filter_bad_regex", {"run", "--suite", "smoke", "--filter", "add("}, {}, {"--filter", "'add('"}},
    {"filter_matches_nothing", {"run", "--suite", "smoke", "--filter", "^nothing$"}, {}, {"--filter", "^nothing$"}},
    {"tag_without_value", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--tag", "novalue"}, {}, {"novalue"}},
    {"baseline_unknown_run", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--baseline", "999"}, {}, {"999"}},
    {"baseline_unknown_label", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--baseline", "label:nosuch"}, {}, {"nosuch"}},
    {"compare_unknown_run", {"compare", "--baseline", "999", "--candidate", "1"}, {}, {"999"}},
    {"report_unknown_run", {"report", "--run", "999", "--out", "{ws}/report"}, {}, {"999"}},
    {"report_out_unwritable", {"report", "--out", "{ws}/plain-file/report"}, {}, {"plain-file/report"}},
    {"history_unknown_suite", {"history", "--suite", "nosuch"}, {}, {"nosuch", "spyre-regress list"}},
    {"merge_missing_source", {"merge", "--into", "{ws}/merged.db", "{ws}/no-such-shard.db"}, {}, {"no-such-shard.db"}},
    {"confirm_unknown_run", {"confirm", "--run", "999"}, {}, {"--run", "999"}},
    {"confirm_rounds_negative", {"confirm", "--confirm-rounds", "-1"}, {}, {"--confirm-rounds"}},
    {"confirm_empty_baseline", {"confirm", "--baseline", ""}, {}, {"--baseline is empty"}},
    // Runs that did not complete have no verdict
    {"report_aborted_run", {"report", "--out", "{ws}/report-aborted", "--db", "{ws}/aborted.db"}, {}, {"run 1 was aborted", "interrupted by signal 15", "no verdict", "'aborted'"}},
    {"confirm_aborted_run", {"confirm", "--run", "1", "--db", "{ws}/aborted.db"}, {}, {"run 1 was aborted", "only a completed run can be confirmed"}},
    {"report_latest_dead_running_run", {"report", "--out", "{ws}/report-running", "--db", "{ws}/running.db"}, {}, {"run 1", "supervisor is gone", "no verdict", "'aborted'"}},
    {"compare_dead_partial_candidate", {"compare", "--baseline", "1", "--candidate", "2", "--db", "{ws}/runs.db"}, {}, {"--candidate 2", "supervisor is gone", "1 of ", "not a verdict"}},
    {"compare_running_baseline", {"compare", "--baseline", "2", "--candidate", "1", "--db", "{ws}/runs.db"}, {}, {"--baseline 2", "must be a completed run"}},
    {"compare_no_shared_case", {"compare", "--baseline", "3", "--candidate", "1", "--db", "{ws}/runs.db"}, {}, {"--baseline 3", "share no case"}},
    // Files that are not regular files, or too large to read
    {"golden_dev_zero", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-devzero"}, {}, {"gold/mul_scalar.safetensors", "character device", "golden generate --suite gold"}},
    {"golden_dev_urandom", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-urandom"}, {}, {"gold/mul_scalar.safetensors", "character device"}},
    {"golden_fifo", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-fifo"}, {}, {"gold/mul_scalar.safetensors", "a FIFO"}},
    {"golden_directory", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-dir"}, {}, {"gold/mul_scalar.safetensors", "a directory"}},
    {"golden_sparse_1gb", {"run", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-sparse"}, {}, {"gold/mul_scalar.safetensors", "1.0 GiB", "over the 256 MiB"}},
    {"golden_verify_dev_zero", {"golden", "verify", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-devzero"}, {}, {"gold/mul_scalar.safetensors", "character device"}},
    {"suite_dev_zero", {"list", "--suite", "devzero", "--suites", "{ws}/suites"}, {}, {"devzero.json", "character device"}},
    {"suite_dev_urandom", {"run", "--suite", "urandom", "--suites", "{ws}/suites"}, {}, {"urandom.json", "character device"}},
    {"suite_fifo", {"run", "--suite", "fifo", "--suites", "{ws}/suites"}, {}, {"fifo.json", "a FIFO"}},
    {"suite_directory", {"list", "--suite", "dirsuite", "--suites", "{ws}/suites"}, {}, {"dirsuite.json", "a directory"}},
    {"suite_input_fifo", {"run", "--suite", "fifoinput", "--suites", "{ws}/suites"}, {}, {"fifo.safetensors", "a FIFO", "not a regular file"}},
    // Limits
    {"suite_nested_1e5_list", {"list", "--suite", "deep", "--suites", "{ws}/suites"}, {}, {"deep.json", "nested more than 32 deep", "line 1"}},
    {"suite_nested_1e5_run", {"run", "--suite", "deep", "--suites", "{ws}/suites"}, {}, {"deep.json", "nested more than 32 deep"}},
    {"suite_sweep_1e6", {"run", "--suite", "sweep1e6", "--suites", "{ws}/suites"}, {}, {"sweep1e6.json", "/cases/0/sweep", "1000000 cases", "100000"}},
    {"suite_repeat_past_int", {"run", "--suite", "repeatwrap", "--suites", "{ws}/suites"}, {}, {"repeatwrap.json", "/defaults/repeat", "at most 1000000"}},
    {"model_full_size_decode_generate", {"golden", "generate", "--suite", "bigmodel", "--suites", "{ws}/suites", "--golden", "{ws}/golden-big"}, {}, {"bigmodel.json", "case 'decode8b'", "granite-3.3-8b", "budget", "timing"}},
    {"model_full_size_decode_run", {"run", "--suite", "bigmodel", "--suites", "{ws}/suites"}, {}, {"bigmodel.json", "granite-3.3-8b", "GiB"}},
    {"serving_prompt_over_token_budget", {"run", "--suite", "badserving", "--suites", "{ws}/suites"}, {}, {"badserving.json", "/cases/0/serving", "request 'long' (trace index 1)", "over the token budget of 16", "raise \"token_budget\""}},
    {"serving_full_size_run", {"run", "--suite", "bigserving", "--suites", "{ws}/suites"}, {}, {"bigserving.json", "case 'trace8b'", "granite-3.3-8b", "budget", "\"serving\" member"}},
    {"timing_trace_prompt_ids", {"run", "--suite", "badtimedtrace", "--suites", "{ws}/suites"}, {}, {"badtimedtrace.json", "/cases/0/serving/requests/1/prompt", "unknown member of a request", "prompt_len"}},
    {"timing_trace_unknown_config", {"run", "--suite", "badtimingconfig", "--suites", "{ws}/suites"}, {}, {"badtimingconfig.json", "/cases/0/model/config", "unknown model config 'granite-8b'", "granite-3.3-8b"}},
    {"op_oversized_shape_generate", {"golden", "generate", "--suite", "bigshape", "--suites", "{ws}/suites", "--golden", "{ws}/golden-big"}, {}, {"bigshape.json", "case 'huge'", "budget"}},
    // Stores that must be left as they are, and messages that must be true
    {"store_corrupt_pages", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--db", "{ws}/corrupt-pages.db"}, {}, {"corrupt-pages.db", "corrupt", "left untouched"}, nullptr, "{ws}/corrupt-pages.db"},
    {"merge_corrupt_source", {"merge", "--into", "{ws}/merged-new.db", "{ws}/corrupt-pages.db"}, {}, {"merge source", "corrupt-pages.db", "corrupt"}, nullptr, "{ws}/corrupt-pages.db", "{ws}/merged-new.db"},
    {"store_newer_schema_read", {"report", "--out", "{ws}/report-newer", "--db", "{ws}/newer.db"}, {}, {"newer.db", "newer than this spyre-regress", "use the newer"}, nullptr, "{ws}/newer.db"},
    {"store_newer_schema_write", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--db", "{ws}/newer.db"}, {}, {"newer.db", "newer than this spyre-regress"}, nullptr, "{ws}/newer.db"},
    {"history_store_is_a_directory", {"history", "--suite", "smoke", "--db", "{ws}/dir.db"}, {}, {"dir.db", "is a directory"}},
    {"store_corrupt_one_line_report", {"report", "--out", "{ws}/report-corrupt", "--db", "{ws}/corrupt-pages.db"}, {}, {"corrupt-pages.db", "corrupt"}, nullptr, "{ws}/corrupt-pages.db", nullptr, {"store {ws}/corrupt-pages.db: store"}},
    // Files a verb writes: never the store, its companions, a suite or golden file, or a device
    {"export_onto_the_store", {"export", "--format", "csv", "--table", "runs", "--out", "{ws}/victim.db", "--db", "{ws}/victim.db"}, {}, {"--out", "victim.db", "the store itself", "nothing was written"}, nullptr, "{ws}/victim.db"},
    {"export_jsonl_onto_the_store", {"export", "--format", "jsonl", "--out", "{ws}/victim.db", "--db", "{ws}/victim.db"}, {}, {"the store itself"}, nullptr, "{ws}/victim.db"},
    {"export_onto_a_symlink_to_the_store", {"export", "--format", "csv", "--table", "runs", "--out", "{ws}/victim-link.db", "--db", "{ws}/victim.db"}, {}, {"victim-link.db", "the store itself"}, nullptr, "{ws}/victim.db"},
    {"export_onto_the_wal", {"export", "--format", "csv", "--out", "{ws}/victim.db-wal", "--db", "{ws}/victim.db"}, {}, {"victim.db-wal", "write-ahead log"}, nullptr, "{ws}/victim.db-wal"},
    {"export_onto_a_golden_file", {"export", "--format", "csv", "--out", "{ws}/golden-ok/gold/mul_scalar.safetensors", "--golden", "{ws}/golden-ok"}, {}, {"mul_scalar.safetensors", "golden directory"}, nullptr, "{ws}/golden-ok/gold/mul_scalar.safetensors"},
    {"export_onto_a_suite_file", {"export", "--format", "csv", "--out", "{ws}/suites/gold.json", "--suites", "{ws}/suites"}, {}, {"gold.json", "suites directory"}, nullptr, "{ws}/suites/gold.json"},
    {"export_dir_into_golden", {"export", "--format", "csv", "--out", "{ws}/golden-ok/", "--golden", "{ws}/golden-ok"}, {}, {"golden-ok", "golden directory"}, nullptr, "{ws}/golden-ok/gold/mul_scalar.safetensors", "{ws}/golden-ok/results.csv"},
    {"export_onto_dev_null", {"export", "--format", "csv", "--out", "/dev/null"}, {}, {"/dev/null", "character device"}},
    {"export_unknown_suite", {"export", "--format", "csv", "--suite", "smok"}, {}, {"--suite 'smok'", "did you mean 'smoke'"}},
    {"backup_onto_the_wal", {"backup", "--to", "{ws}/victim.db-wal", "--db", "{ws}/victim.db"}, {}, {"victim.db-wal", "write-ahead log"}, nullptr, "{ws}/victim.db-wal"},
    {"backup_onto_dev_null", {"backup", "--to", "/dev/null"}, {}, {"/dev/null", "character device"}},
    {"backup_of_a_corrupt_store", {"backup", "--to", "{ws}/backup-corrupt.db", "--db", "{ws}/corrupt-pages.db"}, {}, {"corrupt-pages.db", "corrupt"}, nullptr, "{ws}/corrupt-pages.db", "{ws}/backup-corrupt.db*"},
    {"merge_same_source_twice", {"merge", "--into", "{ws}/merged-twice.db", "{ws}/runs.db", "{ws}/runs.db"}, {}, {"runs.db", "twice", "nothing was merged"}, nullptr, "{ws}/runs.db", "{ws}/merged-twice.db"},
    {"merge_into_a_source", {"merge", "--into", "{ws}/victim.db", "{ws}/victim.db"}, {}, {"victim.db", "nothing was merged"}, nullptr, "{ws}/victim.db"},
    {"merge_into_dev_null", {"merge", "--into", "/dev/null", "{ws}/runs.db"}, {}, {"/dev/null", "character device"}, nullptr, "{ws}/runs.db"},
    {"run_report_into_golden", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--report", "{ws}/golden-ok/report", "--golden", "{ws}/golden-ok"}, {}, {"--report", "golden directory"}, nullptr, nullptr, "{ws}/golden-ok/report"},
    {"report_onto_a_store_file", {"report", "--out", "{ws}/victim.db", "--db", "{ws}/victim.db"}, {}, {"victim.db", "not a directory"}, nullptr, "{ws}/victim.db"},
    {"store_is_dev_null", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--db", "/dev/null"}, {}, {"/dev/null", "character device"}, nullptr, nullptr, "/dev/null-journal"},
    {"store_is_a_wal", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--db", "{ws}/victim.db-wal"}, {}, {"victim.db-wal", "write-ahead log"}, nullptr, "{ws}/victim.db-wal"},
    // Filters: bounded, and one meaning for run and golden generate
    {"filter_60k_nested", {"run", "--suite", "smoke", "--filter", std::string(30000, '(') + std::string(30000, ')')}, {}, {"--filter", "60000 characters", "at most 512"}},
    {"filter_nested_deep", {"run", "--suite", "smoke", "--filter", std::string(40, '(') + "add" + std::string(40, ')')}, {}, {"--filter", "40 deep"}},
    {"golden_filter_60k_nested", {"golden", "generate", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-gen", "--filter", std::string(30000, '(') + std::string(30000, ')')}, {}, {"--filter", "60000 characters"}, nullptr, nullptr, "{ws}/golden-gen"},
    {"golden_filter_matches_nothing", {"golden", "generate", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-gen", "--filter", "zzzz"}, {}, {"no case of gold", "--filter 'zzzz'"}, nullptr, nullptr, "{ws}/golden-gen"},
    {"golden_filter_bad_regex", {"golden", "generate", "--suite", "gold", "--suites", "{ws}/suites", "--golden", "{ws}/golden-gen", "--filter", "mul("}, {}, {"--filter", "'mul('", "not a valid regular expression"}, nullptr, nullptr, "{ws}/golden-gen"},
    // Labels: shown on terminals and in reports, so bounded and printable
    {"label_with_escape_sequence", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--label", "night\x1b]0;owned\x07"}, {}, {"--label", "control character", "\\x1b"}, nullptr, nullptr, nullptr, {"\x1b"}},
    {"label_with_newline", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--label", "a\n5    2026-01-01 00:00:00  completed"}, {}, {"--label", "control character", "\\n"}},
    {"label_120kb", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--label", std::string(120000, 'x')}, {}, {"--label", "120000 bytes", "at most 200"}},
    {"tag_value_with_escape", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--tag", "vllm=\x1b[31m"}, {}, {"--tag vllm", "control character"}},
    // Numbers in words, names that are meant
    {"timeout_zero", {"run", "--suite", "smoke", "--timeout", "0"}, {}, {"--timeout", "above 0", "(got 0)"}, nullptr, nullptr, nullptr, {"1797693"}},
    {"repeat_negative", {"run", "--suite", "smoke", "--repeat", "-5"}, {}, {"--repeat", "above 0", "(got -5)"}, nullptr, nullptr, nullptr, {"1797693"}},
    {"warmup_negative", {"run", "--suite", "smoke", "--warmup", "-1"}, {}, {"--warmup", "at least 0"}, nullptr, nullptr, nullptr, {"1797693"}},
    {"flag_swapped_letters", {"run", "--suiet", "smoke"}, {}, {"--suiet", "did you mean '--suite'"}},
    {"threads_env_not_a_number", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$"}, {{"SPYRE_REGRESS_THREADS", "abc"}}, {"SPYRE_REGRESS_THREADS='abc'", "--threads"}},
    {"shard_without_cases", {"run", "--suite", "smoke", "--filter", "^smoke/mul_scalar$", "--shard", EmptyShardOfTwo()}, {}, {"shard " + EmptyShardOfTwo(), "none of the 1 chosen case", "fewer shards"}},
  };
  return entries;
}
// clang-format on

// gtest prints a parameter that fails; the name says which entry it is.
void PrintTo(const Entry& e, std::ostream* os) { *os << e.name; }

class BadInputTest : public ::testing::TestWithParam<Entry> {
 protected:
  static void SetUpTestSuite() {
    ws_ = std::make_unique<spyre_test::TempDir>();
    build_error_ = BuildWorkspace(ws_->path());
    if (build_error_.empty()) before_ = TakeSnapshot(ws_->File("seed.db"));
  }
  static void TearDownTestSuite() { ws_.reset(); }

  // Each entry gets its own copy of the seeded store, so that one entry that
  // breaks the rule cannot make the next ones fail.
  void SetUp() override {
    db_ = ws_->File(std::string("store-") + GetParam().name + ".db");
    std::filesystem::copy_file(ws_->File("seed.db"), db_);
  }
  const std::string& Db() const { return db_; }

  std::string Expand(std::string s) const {
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"{ws}", ws_->path()},
                                     std::pair<std::string, std::string>{"{db}", Db()}}) {
      for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), value);
    }
    return s;
  }

  static std::unique_ptr<spyre_test::TempDir> ws_;
  static std::string build_error_;
  static StoreSnapshot before_;
  std::string db_;
};
std::unique_ptr<spyre_test::TempDir> BadInputTest::ws_;
std::string BadInputTest::build_error_;
StoreSnapshot BadInputTest::before_;

// Holds an exclusive write lock on the store for as long as it lives.
class StoreLock {
 public:
  explicit StoreLock(const std::string& path) {
    sqlite3_open(path.c_str(), &db_);
    sqlite3_exec(db_, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr);
  }
  ~StoreLock() {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }

 private:
  sqlite3* db_ = nullptr;
};

TEST_P(BadInputTest, ExitsTwoWithOneLineAndLeavesTheStore) {
  ASSERT_EQ(build_error_, "") << "the workspace could not be built";
  ASSERT_EQ(before_.error, "");
  ASSERT_EQ(before_.runs, 1) << Describe(before_);
  const Entry& e = GetParam();
  std::vector<std::string> args;
  bool has_db = false;
  for (const std::string& a : e.args) {
    args.push_back(Expand(a));
    has_db = has_db || a == "--db";
  }
  if (!has_db) args.insert(args.end(), {"--db", Db()});
  args.push_back("--quiet");

  const std::string untouched = e.untouched != nullptr ? Expand(e.untouched) : "";
  const std::string bytes_before = untouched.empty() ? "" : spyre_test::ReadFile(untouched);
  spyre_test::CommandResult r;
  {
    std::unique_ptr<StoreLock> lock;
    if (std::string(e.name) == "store_locked") lock = std::make_unique<StoreLock>(Db());
    r = spyre_test::RunCli(args, e.env, 120);
  }
  const StoreSnapshot after = TakeSnapshot(Db());
  // SPYRE_CATALOGUE_DUMP=DIR: each entry's exit code and stderr, with the
  // workspace's path as {ws}, one file an entry, to diff two builds' messages.
  if (const char* dump = std::getenv("SPYRE_CATALOGUE_DUMP"); dump != nullptr && *dump != '\0') {
    std::string text = "exit " + std::to_string(r.exit_code) + "\n" + r.err;
    for (size_t at; (at = text.find(ws_->path())) != std::string::npos;) {
      text.replace(at, ws_->path().size(), "{ws}");
    }
    std::ofstream(std::string(dump) + "/" + e.name + ".txt") << text;
  }

  std::vector<std::string> problems;
  if (r.exit_code != 2) problems.push_back("exit code " + std::to_string(r.exit_code) + ", not 2");
  if (spyre_test::LineCount(r.err) != 1) {
    problems.push_back(std::to_string(spyre_test::LineCount(r.err)) + " stderr lines, not 1");
  }
  if (r.err.rfind("spyre-regress: error: ", 0) != 0) problems.push_back("stderr does not start 'spyre-regress: error: '");
  for (const std::string& fragment : e.expect) {
    if (r.err.find(Expand(fragment)) == std::string::npos) {
      problems.push_back("stderr does not name '" + fragment + "'");
    }
  }
  if (!(after == before_)) problems.push_back("store changed: " + Describe(after));
  if (r.err.find("unexpected failure") != std::string::npos) problems.push_back("an exception escaped");
  if (!untouched.empty() && spyre_test::ReadFile(untouched) != bytes_before) {
    problems.push_back(untouched + " was modified");
  }
  if (e.absent != nullptr) {
    const std::string absent = Expand(e.absent);
    if (absent.back() == '*') {
      const std::filesystem::path prefix(absent.substr(0, absent.size() - 1));
      const std::string stem = prefix.filename().string();
      for (const auto& f : std::filesystem::directory_iterator(prefix.parent_path())) {
        if (f.path().filename().string().rfind(stem, 0) == 0) {
          problems.push_back(f.path().string() + " was left behind");
        }
      }
    } else if (std::filesystem::exists(absent)) {
      problems.push_back(absent + " was left behind");
    }
  }
  for (const std::string& fragment : e.forbid) {
    if (r.err.find(Expand(fragment)) != std::string::npos) {
      problems.push_back("stderr holds '" + fragment + "'");
    }
  }
  // Printed for every entry (ctest -V shows it).
  std::cout << "peak RSS " << e.name << ": " << r.max_rss_kb << " KB\n";
  if (r.max_rss_kb >= kMaxRssKb) {
    problems.push_back("peak RSS " + std::to_string(r.max_rss_kb) + " KB, over " +
                       std::to_string(kMaxRssKb));
  }

  std::string report;
  for (const std::string& p : problems) report += "\n  - " + p;
  report += "\n  stderr: " + r.err + "  stdout: " + r.out.substr(0, 400);
  if (e.gap != nullptr) {
    std::cout << "KNOWN GAP " << e.name << " (" << e.gap << "):" << report << "\n";
    EXPECT_FALSE(problems.empty()) << e.name << " now passes: remove its gap note";
    return;
  }
  EXPECT_TRUE(problems.empty()) << e.name << ":" << report;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInputTest, ::testing::ValuesIn(Catalogue()),
                         [](const ::testing::TestParamInfo<Entry>& info) { return info.param.name; });

}  // namespace
}  // namespace badinput
