// Builds the stack matrix (stack_model.h): which runs, the columns and their
// environments, the rows grouped by suite and op, ratios against the
// baseline stack and the per-stack counts.
#include <algorithm>
#include <cmath>
#include <set>

#include "store/store_history.h"
#include "store/store_queries.h"
#include "reports/report_model.h"
#include "reports/stack_model.h"

namespace reports {
namespace stack_build {
namespace {

using harness::CaseResult;
using harness::CaseStatus;
using harness::StatusOr;

// suite -> stack -> the run selected for them.
using Selection = std::map<std::string, std::map<std::string, int64_t>>;

bool Fails(CaseStatus s) {
  return s == CaseStatus::kFailed || s == CaseStatus::kError || s == CaseStatus::kCrashed ||
         s == CaseStatus::kTimeout;
}

double Ratio(double value, double base) {
  if (!std::isfinite(value) || !std::isfinite(base) || base <= 0) return std::nan("");
  return value / base;
}

std::string Names(const std::vector<StackColumn>& stacks) {
  std::string s;
  for (const StackColumn& c : stacks) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}

StackCell CellOf(const CaseResult& r, int64_t run_id) {
  StackCell c;
  c.run_id = run_id;
  c.status = r.status;
  c.message = r.message;
  c.max_ulp = r.max_ulp;
  c.rel_l2 = r.rel_l2;
  c.wall_us = r.WallMedianUs();
  c.modeled_us = r.modeled_us;
  c.wall_ratio = c.modeled_ratio = std::nan("");
  return c;
}

// The columns in order of first appearance (the selection is oldest
// first), the chosen baseline moved to the front.
StatusOr<std::vector<StackColumn>> Columns(const std::vector<harness::TaggedRun>& selected,
                                           const std::string& baseline) {
  std::vector<StackColumn> cols;
  for (const harness::TaggedRun& t : selected) {
    auto it = std::find_if(cols.begin(), cols.end(),
                           [&](const StackColumn& c) { return c.name == t.tag_value; });
    if (it == cols.end()) {
      cols.push_back(StackColumn{});
      cols.back().name = t.tag_value;
      cols.back().oldest_started_at = t.started_at;
      it = cols.end() - 1;
    }
    if (std::find(it->runs.begin(), it->runs.end(), t.run_id) == it->runs.end())
      it->runs.push_back(t.run_id);
  }
  if (baseline.empty()) return cols;
  auto it = std::find_if(cols.begin(), cols.end(),
                         [&](const StackColumn& c) { return c.name == baseline; });
  if (it == cols.end()) {
    return harness::NotFound(
        "--baseline-stack '" + baseline +
        "' is not a stack of the store's completed runs; its stacks are: " + Names(cols));
  }
  std::rotate(cols.begin(), it, it + 1);
  return cols;
}

// The rows of one suite, cases in the order the stacks recorded them
// (baseline first), grouped by op in order of first appearance.
StackSuite BuildSuite(const std::string& suite, const std::map<std::string, int64_t>& runs,
                      const std::vector<StackColumn>& cols,
                      const std::map<int64_t, harness::RunRecord>& records) {
  std::vector<StackCaseRow> rows;
  std::map<std::string, size_t> index;
  std::map<std::string, std::string> op_of;
  for (const StackColumn& col : cols) {
    auto run = runs.find(col.name);
    if (run == runs.end()) continue;
    for (const CaseResult& r : records.at(run->second).cases) {
      if (r.suite != suite) continue;
      auto [it, added] = index.emplace(r.case_id, rows.size());
      if (added) rows.push_back(StackCaseRow{r.case_id, {}, false});
      rows[it->second].cells.emplace(col.name, CellOf(r, run->second));
      if (op_of[r.case_id].empty()) op_of[r.case_id] = CaseOpOf(r);
    }
  }
  const std::string& base = cols.front().name;
  for (StackCaseRow& row : rows) {
    auto b = row.cells.find(base);
    std::set<CaseStatus> statuses;
    for (auto& [stack, cell] : row.cells) {
      statuses.insert(cell.status);
      if (Fails(cell.status)) row.attention = true;
      if (b == row.cells.end()) continue;
      cell.wall_ratio = Ratio(cell.wall_us, b->second.wall_us);
      cell.modeled_ratio = Ratio(cell.modeled_us, b->second.modeled_us);
    }
    row.attention = row.attention || statuses.size() > 1 || row.cells.size() < cols.size();
  }
  StackSuite out;
  out.suite = suite;
  for (StackCaseRow& row : rows) {
    const std::string& op = op_of[row.case_id];
    auto g = std::find_if(out.ops.begin(), out.ops.end(),
                          [&](const StackOpGroup& x) { return x.op == op; });
    if (g == out.ops.end()) {
      out.ops.push_back(StackOpGroup{op, {}});
      g = out.ops.end() - 1;
    }
    g->cases.push_back(std::move(row));
  }
  return out;
}

void Count(const StackMatrix& m, StackColumn* col) {
  for (const StackSuite& s : m.suites) {
    for (const StackOpGroup& g : s.ops) {
      for (const StackCaseRow& row : g.cases) {
        auto it = row.cells.find(col->name);
        if (it == row.cells.end()) {
          ++col->counts.missing;
        } else if (it->second.status == CaseStatus::kPassed) {
          ++col->counts.passed;
        } else if (it->second.status == CaseStatus::kSkipped) {
          ++col->counts.skipped;
        } else {
          ++col->counts.failed;
        }
      }
    }
  }
}

}  // namespace

StatusOr<StackMatrix> Build(harness::Store& store, const StackOptions& options) {
  SPYRE_ASSIGN_OR_RETURN(auto selected, harness::LatestRunsPerTagValue(store, kStackTag));
  if (selected.empty()) {
    return harness::NotFound(std::string("no completed run carries a `") + kStackTag +
                             "` tag, so there are no stacks to compare: record each stack's "
                             "runs with `spyre-regress run --tag " +
                             kStackTag + "=NAME` (e.g. --tag " + kStackTag + "=debian-12)");
  }
  StackMatrix m;
  SPYRE_ASSIGN_OR_RETURN(m.stacks, Columns(selected, options.baseline_stack));
  m.baseline = m.stacks.front().name;
  m.baseline_chosen = !options.baseline_stack.empty();

  Selection selection;
  std::map<int64_t, harness::RunRecord> records;
  std::map<std::string, int64_t> latest;  // stack -> its newest selected run
  for (const harness::TaggedRun& t : selected) {
    selection[t.suite][t.tag_value] = t.run_id;
    latest[t.tag_value] = t.run_id;  // oldest first: the last one wins
    if (records.count(t.run_id) != 0) continue;
    SPYRE_ASSIGN_OR_RETURN(auto rec, harness::LoadRunRecord(store, t.run_id));
    records.emplace(t.run_id, std::move(rec));
  }
  SPYRE_ASSIGN_OR_RETURN(auto listing, harness::ListRuns(store, harness::RunListQuery{}));
  std::map<int64_t, int64_t> findings;
  for (const harness::RunListing& l : listing) findings[l.id] = l.regressions;

  const std::string tag_component = std::string("tag:") + kStackTag;
  for (StackColumn& col : m.stacks) {
    std::sort(col.runs.begin(), col.runs.end());
    col.env = records.at(latest.at(col.name)).env;
    col.components = StackComponents(col.env);
    for (int64_t run : col.runs) col.counts.regressions += findings[run];
    if (col.name == m.baseline) continue;
    for (harness::EnvChange& e : harness::DiffEnvironments(m.stacks.front().env, col.env)) {
      if (e.component != tag_component) col.changes.push_back(std::move(e));
    }
  }
  for (const auto& [suite, runs] : selection)
    m.suites.push_back(BuildSuite(suite, runs, m.stacks, records));
  for (StackColumn& col : m.stacks) Count(m, &col);
  return m;
}

}  // namespace stack_build

std::string CaseOpOf(const harness::CaseResult& r) {
  auto op = r.extra.find("op");
  if (r.extra.is_object() && op != r.extra.end() && op->is_string()) return op->get<std::string>();
  const std::string kind = CaseKindOf(r);
  return kind == "op" ? "" : kind;
}

std::vector<StackComponent> StackComponents(const nlohmann::json& env) {
  // A store is a file anyone can edit: a member of an unexpected type is
  // shown as its JSON, never thrown on.
  auto text = [](const nlohmann::json& j, const char* key) -> std::string {
    if (!j.is_object() || !j.contains(key) || j[key].is_null()) return "";
    const nlohmann::json& v = j[key];
    return v.is_string() ? v.get<std::string>()
                         : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  const nlohmann::json none;
  const nlohmann::json& b = env.is_object() && env.contains("blas") ? env["blas"] : none;
  std::string blas = b.is_object() ? text(b, "name") : text(env, "blas");
  const std::string version = text(b, "version");
  if (!version.empty()) blas += (blas.empty() ? "" : " ") + version;
  std::vector<StackComponent> out = {
      {"libtorch", text(env, "libtorch")}, {"blas", blas}, {"compiler", text(env, "compiler")}};
  if (env.is_object() && env.contains("libc")) out.push_back({"libc", text(env, "libc")});
  out.push_back({"os", text(env, "os")});
  return out;
}

const StackColumn* StackMatrix::FindStack(const std::string& name) const {
  for (const StackColumn& c : stacks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

int StackMatrix::CaseCount() const {
  int n = 0;
  for (const StackSuite& s : suites) {
    for (const StackOpGroup& g : s.ops) n += static_cast<int>(g.cases.size());
  }
  return n;
}

harness::StatusOr<StackMatrix> BuildStackMatrix(harness::Store& store,
                                                const StackOptions& options) {
  return stack_build::Build(store, options);
}

}  // namespace reports
