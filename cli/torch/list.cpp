// `list` in the torch part: each suite loaded as `run` loads it, every case
// parsed and checked by its kind, so a broken suite file is reported here.
#include <filesystem>
#include <iostream>

#include "suite_file/suite_file.h"
#include "torch_verbs.h"

namespace harness::cli {
namespace {

// An op case also shows what it runs (its expanded inputs and attributes),
// so that other tools can run the same cases; `latency` is whether `run`
// times it by default (its own mark or its suite's).
nlohmann::json CaseJson(const SuiteSpec& s, const CaseSpec& c) {
  nlohmann::json j = {{"id", c.id}, {"kind", c.kind}, {"tags", c.tags},
                      {"latency", s.latency || c.latency}};
  for (const char* key : {"op", "dtype", "attrs", "inputs", "seed"}) {
    if (c.body.contains(key)) j[key] = c.body[key];
  }
  return j;
}

}  // namespace

StatusOr<int> TorchList(const ListOptions& opts, const GlobalOptions& global) {
  std::error_code ec;
  if (!std::filesystem::is_directory(global.suites_dir, ec)) {
    return NotFound(
        "--suites " + global.suites_dir +
        ": no such directory: pass --suites with the directory holding your <name>.json "
        "suite files");
  }
  std::vector<std::string> names = opts.suite.empty() ? ListSuites(global.suites_dir)
                                                      : std::vector<std::string>{opts.suite};
  nlohmann::json doc = {{"suites", nlohmann::json::array()}};
  for (const std::string& name : names) {
    SPYRE_ASSIGN_OR_RETURN(auto suite, LoadSuite(global.suites_dir, name));
    nlohmann::json s = {{"name", suite.name},
                        {"description", suite.description},
                        {"latency", suite.latency},
                        {"cases", nlohmann::json::array()}};
    for (const CaseSpec& c : suite.cases) s["cases"].push_back(CaseJson(suite, c));
    if (!opts.json) {
      std::cout << suite.name << " (" << suite.cases.size()
                << (suite.cases.size() == 1 ? " case)" : " cases)")
                << (suite.description.empty() ? "" : ": " + suite.description) << "\n";
      if (!opts.suite.empty() || opts.cases) {
        for (const CaseSpec& c : suite.cases) {
          std::string tags;
          for (const auto& t : c.tags) tags += (tags.empty() ? "" : ",") + t;
          std::cout << "  " << c.id << "  kind=" << c.kind << (tags.empty() ? "" : "  tags=" + tags)
                    << "\n";
        }
      }
    }
    doc["suites"].push_back(std::move(s));
  }
  if (names.empty()) {
    return NotFound("--suites " + global.suites_dir +
                    ": holds no suite files (<name>.json): pass --suites with the directory that "
                    "holds them");
  }
  if (opts.json) {
    std::cout << doc.dump(2) << "\n";
  } else if (opts.suite.empty() && !opts.cases) {
    std::cout << "(list --suite NAME lists a suite's cases; list --cases lists every suite's)\n";
  }
  return 0;
}

}  // namespace harness::cli
