// LoadSuite / ListSuites: parse suites/<name>.json, check the top level,
// expand sweeps, merge defaults and per-op tolerances into each case, and let
// each case's kind validate its body, so that a bad suite fails before
// anything runs.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "harness/execute.h"
#include "harness/suite.h"
#include "schema_check.h"
#include "sweep.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

Status Bad(const std::string& file, const std::string& pointer, const std::string& what) {
  return InvalidInput(file + ": " + (pointer.empty() ? "/" : pointer) + ": " + what);
}

// The suite-wide defaults merged into each case: seed, tags, and the per-op
// tolerance overrides (the case's own "tolerance" wins).
void MergeDefaults(const nlohmann::json& doc, nlohmann::json* c) {
  const nlohmann::json defaults = doc.value("defaults", nlohmann::json::object());
  if (!c->contains("kind")) (*c)["kind"] = "op";
  if (!c->contains("seed")) (*c)["seed"] = defaults.value("seed", 0);
  if (doc.contains("tolerances") && c->contains("op") && (*c)["op"].is_string()) {
    const std::string op = (*c)["op"].get<std::string>();
    if (doc["tolerances"].contains(op)) {
      nlohmann::json merged = doc["tolerances"][op];
      if (c->contains("tolerance") && (*c)["tolerance"].is_object()) {
        merged.update((*c)["tolerance"]);
      }
      (*c)["tolerance"] = merged;
    }
  }
}

std::vector<std::string> Tags(const nlohmann::json& doc, const nlohmann::json& c) {
  std::set<std::string> tags;
  const nlohmann::json defaults = doc.value("defaults", nlohmann::json::object());
  for (const nlohmann::json* src : {&defaults, &c}) {
    if (src->is_object() && src->contains("tags")) {
      for (const auto& t : src->at("tags")) tags.insert(t.get<std::string>());
    }
  }
  return {tags.begin(), tags.end()};
}

}  // namespace

StatusOr<SuiteSpec> LoadSuite(const std::string& suites_dir, const std::string& name) {
  static const std::regex kName("[A-Za-z0-9_][A-Za-z0-9_.-]*");
  if (!std::regex_match(name, kName) || name == "schema") {
    return UsageError("'" + name + "' is not a suite name (see 'spyre-regress list')");
  }
  const std::string file = (fs::path(suites_dir) / (name + ".json")).string();
  std::ifstream in(file);
  if (!in) {
    return NotFound(file + ": no such suite file (see 'spyre-regress list' for the suites in " +
                    suites_dir + ")");
  }
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range: 1e999
    return Bad(file, "", std::string("not valid JSON: ") + e.what());
  }
  Status schema = CheckAgainstSchema(doc, suites_dir);
  if (!schema.ok()) return InvalidInput(file + ": " + schema.message());
  if (doc.value("name", name) != name) {
    return Bad(file, "/name", "\"" + doc["name"].get<std::string>() +
                                  "\" differs from the file name; rename one of them");
  }

  SuiteSpec suite;
  suite.name = name;
  suite.path = file;
  suite.root = suites_dir;
  suite.description = doc.value("description", "");
  suite.latency = doc.value("latency", false);
  const nlohmann::json defaults = doc.value("defaults", nlohmann::json::object());
  suite.warmup = defaults.value("warmup", suite.warmup);
  suite.repeat = defaults.value("repeat", suite.repeat);
  suite.min_sample_us = defaults.value("min_sample_us", suite.min_sample_us);
  suite.timeout_s = defaults.value("timeout_s", suite.timeout_s);

  static const std::regex kId("[A-Za-z0-9_][A-Za-z0-9_.+-]*");
  std::set<std::string> ids;
  const nlohmann::json& cases = doc["cases"];
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string pointer = "/cases/" + std::to_string(i);
    auto expanded = ExpandSweep(cases[i], pointer);
    if (!expanded.ok()) return InvalidInput(file + ": " + expanded.status().message());
    for (nlohmann::json& body : *expanded) {
      MergeDefaults(doc, &body);
      CaseSpec c;
      c.suite = name;
      c.id = body["id"].get<std::string>();
      c.kind = body["kind"].get<std::string>();
      c.tags = Tags(doc, body);
      if (!std::regex_match(c.id, kId)) {
        return Bad(file, pointer + "/id", "'" + c.id + "' is not a usable case id (letters, digits, _ . + -)");
      }
      if (!ids.insert(c.id).second) {
        return Bad(file, pointer + "/id", "case id '" + c.id + "' is used twice");
      }
      const CaseKind* kind = FindCaseKind(c.kind);
      if (kind == nullptr) {
        return Bad(file, pointer + "/kind", "unknown case kind '" + c.kind + "' (known: " +
                                                CaseKindNames() + ")");
      }
      c.body = std::move(body);
      c.body["pointer"] = pointer;
      // A kind that reads a member of the wrong type through nlohmann throws;
      // that is still a bad suite file, named as such.
      Status valid = Status::Ok();
      try {
        valid = kind->Validate(suite, c);
      } catch (const nlohmann::json::exception& e) {
        return Bad(file, pointer, std::string("a member has the wrong type: ") + e.what());
      }
      if (!valid.ok()) return InvalidInput(file + ": " + valid.message());
      suite.cases.push_back(std::move(c));
    }
  }
  return suite;
}

std::vector<std::string> ListSuites(const std::string& suites_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(suites_dir, ec)) {
    const fs::path p = entry.path();
    if (p.extension() == ".json" && p.stem() != "schema") names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace harness
