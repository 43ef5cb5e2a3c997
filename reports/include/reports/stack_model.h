#pragma once
// The stack matrix (`report --stacks`): the same suites recorded on several
// stacks (libtorch / BLAS / compiler installations), one column per stack,
// one row per case. Read from the store once and shared by every output
// format (stack_reporter.h); reporters never judge, they render this.
//
//   SPYRE_ASSIGN_OR_RETURN(StackMatrix m, BuildStackMatrix(*store, {}));
//
// A stack is a value of the run tag `stack` (`run --tag stack=debian-12`).
// Selection: for every stack and every suite, the latest completed run of
// that suite carrying that stack tag (harness::LatestRunsPerTagValue).
//
// Edge cases:
// - No completed run carries the tag: NotFound, one line saying how to tag
//   runs (`run --tag stack=NAME`).
// - `baseline_stack` names no stack of the store: NotFound listing them.
// - Default baseline: the stack whose oldest selected run is the oldest
//   (started_at, then run id); the columns follow the same order, so the
//   baseline is first either way.
// - A case a stack did not record has no cell for that stack (shown "—",
//   "missing" in JSON) and counts as missing for it.
// - A ratio is NaN when either side lacks the value (no wall samples, no
//   modeled time) or the baseline's value is not positive; the baseline's
//   own cells have ratio 1 where they have a value.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/case_result.h"
#include "detect/detect.h"
#include "base/status.h"
#include "store/store.h"

namespace reports {

// The run tag that names a stack.
inline constexpr const char* kStackTag = "stack";

// The op a case exercises, for grouping rows: the op its result recorded
// (extra "op", what the op case kind records); a model case is grouped under
// its kind (CaseKindOf: "decode", "prefill", "embed"); "" when the result
// says neither (an op case that errored before it ran). A row takes the
// first non-empty answer of its cells, baseline first.
std::string CaseOpOf(const harness::CaseResult& r);

// One component version a stack's header shows: libtorch, blas (name and
// version), compiler, libc (only when recorded), os.
struct StackComponent {
  std::string name;   // "libtorch", "blas", "compiler", "libc", "os"
  std::string value;  // "" when the stack's environment does not say
};
// The components above read from one fingerprint (env_json).
std::vector<StackComponent> StackComponents(const nlohmann::json& env);

struct StackCounts {
  int passed = 0;
  int failed = 0;  // failed, error, crashed or timeout
  int skipped = 0;
  int missing = 0;          // cases of the matrix this stack did not record
  int64_t regressions = 0;  // findings recorded for its selected runs (v_regressions)
};

struct StackColumn {
  std::string name;
  nlohmann::json env = nlohmann::json::object();  // fingerprint of its latest selected run
  std::vector<StackComponent> components;         // StackComponents(env)
  // harness::DiffEnvironments(baseline's env, this env) without the stack
  // tag itself; empty for the baseline.
  std::vector<harness::EnvChange> changes;
  StackCounts counts;
  std::vector<int64_t> runs;      // its selected runs, ascending, each once
  std::string oldest_started_at;  // of its selected runs (for the baseline choice)
};

// One case on one stack.
struct StackCell {
  int64_t run_id = 0;
  harness::CaseStatus status = harness::CaseStatus::kError;
  std::string message;
  double max_ulp = 0;        // in the output's device format (NaN when not recorded)
  double rel_l2 = 0;         // NaN when not recorded
  double wall_us = 0;        // median of the wall samples (NaN without samples)
  double modeled_us = 0;     // NaN when the device gives no modeled time
  double wall_ratio = 0;     // wall_us / the baseline stack's (NaN: see above)
  double modeled_ratio = 0;  // modeled_us / the baseline stack's
};

struct StackCaseRow {
  std::string case_id;
  std::map<std::string, StackCell> cells;  // by stack name; none for a stack without the case
  // Worth a look before the rest: a stack lacks the case, a stack did not
  // pass or skip it, or the stacks' statuses differ.
  bool attention = false;
};

struct StackOpGroup {
  std::string op;                   // CaseOpOf; "" when no cell of its cases says
  std::vector<StackCaseRow> cases;  // in the order stacks recorded them, baseline first
};

struct StackSuite {
  std::string suite;
  std::vector<StackOpGroup> ops;  // in order of first appearance
};

struct StackMatrix {
  std::string baseline;             // the baseline stack's name
  bool baseline_chosen = false;     // given with --baseline-stack (else the oldest)
  std::vector<StackColumn> stacks;  // baseline first, then by first appearance
  std::vector<StackSuite> suites;   // sorted by name

  // The column named `name`; nullptr when there is none.
  const StackColumn* FindStack(const std::string& name) const;
  int CaseCount() const;
};

struct StackOptions {
  std::string baseline_stack;  // empty: the stack whose selected runs are the oldest
};

harness::StatusOr<StackMatrix> BuildStackMatrix(harness::Store& store,
                                                const StackOptions& options = {});

}  // namespace reports
