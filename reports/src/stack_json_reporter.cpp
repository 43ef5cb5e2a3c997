// stacks.json: the stack matrix for scripts, in the shape docs/reports.md
// documents ("Stack matrix"). Every stack has a cell in every case, so a
// script can index cells by stack name without checking for the key.
#include <cmath>

#include "reports/stack_reporter.h"

namespace reports {
namespace stack_json {
namespace {

nlohmann::json Num(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

nlohmann::json ComponentsJson(const std::vector<StackComponent>& components) {
  nlohmann::json j = nlohmann::json::object();
  for (const StackComponent& c : components) {
    j[c.name] = c.value.empty() ? nlohmann::json() : nlohmann::json(c.value);
  }
  return j;
}

nlohmann::json StackJson(const StackColumn& c) {
  nlohmann::json changes = nlohmann::json::array();
  for (const harness::EnvChange& e : c.changes) {
    changes.push_back(
        {{"component", e.component}, {"baseline", e.baseline}, {"candidate", e.candidate}});
  }
  return {{"name", c.name},
          {"env", ComponentsJson(c.components)},
          {"changes", changes},
          {"counts",
           {{"passed", c.counts.passed},
            {"failed", c.counts.failed},
            {"skipped", c.counts.skipped},
            {"missing", c.counts.missing},
            {"regressions", c.counts.regressions}}},
          {"runs", c.runs}};
}

nlohmann::json CellJson(const StackCell* cell) {
  if (cell == nullptr) {
    return {{"status", "missing"}, {"max_ulp", nullptr},    {"rel_l2", nullptr},
            {"wall_us", nullptr},  {"wall_ratio", nullptr}, {"modeled_ratio", nullptr},
            {"run_id", nullptr}};
  }
  return {{"status", harness::CaseStatusName(cell->status)},
          {"max_ulp", Num(cell->max_ulp)},
          {"rel_l2", Num(cell->rel_l2)},
          {"wall_us", Num(cell->wall_us)},
          {"wall_ratio", Num(cell->wall_ratio)},
          {"modeled_ratio", Num(cell->modeled_ratio)},
          {"run_id", cell->run_id}};
}

class StackJsonReporter : public StackReporter {
 public:
  std::string FileName() const override { return "stacks.json"; }
  std::string Render(const StackMatrix& m) const override {
    nlohmann::json j;
    j["format"] = "spyre-regress-stacks/1";
    j["baseline_stack"] = m.baseline;
    j["stacks"] = nlohmann::json::array();
    for (const StackColumn& c : m.stacks) j["stacks"].push_back(StackJson(c));
    j["suites"] = nlohmann::json::array();
    for (const StackSuite& s : m.suites) {
      nlohmann::json ops = nlohmann::json::array();
      for (const StackOpGroup& g : s.ops) {
        nlohmann::json cases = nlohmann::json::array();
        for (const StackCaseRow& row : g.cases) {
          nlohmann::json cells = nlohmann::json::object();
          for (const StackColumn& c : m.stacks) {
            auto it = row.cells.find(c.name);
            cells[c.name] = CellJson(it == row.cells.end() ? nullptr : &it->second);
          }
          cases.push_back({{"case", row.case_id}, {"cells", std::move(cells)}});
        }
        ops.push_back({{"op", g.op}, {"cases", std::move(cases)}});
      }
      j["suites"].push_back({{"suite", s.suite}, {"ops", std::move(ops)}});
    }
    // Names and messages from a store may hold stray bytes: replace, never throw.
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
};

}  // namespace
}  // namespace stack_json

std::unique_ptr<StackReporter> MakeStackJsonReporter() {
  return std::make_unique<stack_json::StackJsonReporter>();
}

}  // namespace reports
