// ReadSuiteFile / ListSuites: parse suites/<name>.json, check the top level,
// expand sweeps, merge defaults and per-op tolerances into each case and
// check the case ids. Torch-free: the case kinds' part of loading a suite
// (LoadSuite) is case_kinds/load_suite.cpp.
#include <filesystem>
#include <regex>
#include <set>

#include "base/input_file.h"
#include "base/suggest.h"
#include "suite_file/suite_file.h"
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

// Where `text` first nests arrays and objects deeper than `limit` (a byte
// offset), or npos. A scan of the text, before it is parsed: a document
// nested 10^5 deep parses, but printing or freeing it recurses once per level.
size_t TooDeepAt(const std::string& text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string::npos;
}

std::string LineColumn(const std::string& text, size_t at) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Counts, from the text alone, the cases each entry of "cases" expands into
// (the sizes of its sweep's "shapes" or "shape" times "dtypes"), and stops
// at the first entry that takes the suite past kMaxSuiteCases. A SAX pass,
// about half the cost of building the JSON tree: a sweep of 10^6 cases is
// refused before it is built. Malformed JSON is left to the real parse.
class CaseCounter : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool over = false;
  size_t case_index = 0;  // of the entry that went over
  uint64_t case_count = 0, total = 0;

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(); }
  bool start_array(std::size_t) override { return Open(); }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool end_array() override { return Close(); }
  bool end_object() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Frame {
    std::string key;  // the member it is the value of ("" in an array)
    uint64_t items = 0;
  };
  bool Value() {
    if (!stack_.empty()) ++stack_.back().items;
    key_.clear();
    return true;
  }
  bool Open() {
    if (!stack_.empty()) ++stack_.back().items;
    stack_.push_back({key_, 0});
    key_.clear();
    return true;
  }
  bool At(size_t depth, const char* key) const {
    return stack_.size() > depth && stack_[depth].key == key;
  }
  bool Close() {
    const Frame f = stack_.back();
    stack_.pop_back();
    // root{} / "cases"[] / case{} / "sweep"{} / "shape"|"shapes"|"dtypes"[]
    if (stack_.size() == 4 && At(1, "cases") && At(3, "sweep") &&
        (f.key == "shape" || f.key == "shapes" || f.key == "dtypes") && f.items > 0) {
      factor_ = factor_ > UINT64_MAX / f.items ? UINT64_MAX : factor_ * f.items;
    } else if (stack_.size() == 2 && At(1, "cases")) {
      total += factor_;
      if (factor_ > kMaxSuiteCases || total > kMaxSuiteCases) {
        over = true;
        case_index = stack_.back().items - 1;
        case_count = factor_;
        return false;  // stop here
      }
      factor_ = 1;
    }
    return true;
  }
  std::vector<Frame> stack_;
  std::string key_;
  uint64_t factor_ = 1;
};

Status CheckCaseCount(const std::string& text, const std::string& file) {
  CaseCounter counter;
  try {
    nlohmann::json::sax_parse(text, &counter);
  } catch (const nlohmann::json::exception&) {
    return Status::Ok();  // the real parse names the problem
  }
  if (!counter.over) return Status::Ok();
  const uint64_t n = counter.case_count;
  return Bad(file, "/cases/" + std::to_string(counter.case_index) + (n > 1 ? "/sweep" : ""),
             (n > 1 ? "this sweep expands into " + std::to_string(n) + " cases"
                    : "the suite reaches " + std::to_string(counter.total) + " cases") +
                 ", over the " + std::to_string(kMaxSuiteCases) +
                 " one suite may hold; narrow the sweep or split the suite");
}

}  // namespace

// The model case kinds take their limits inside "model" (decode's
// max_logprob_diff, prefill's tolerance and min_cosine, ...); the case's own
// "tolerance" is the op kind's. A limit put there is told where it goes,
// ahead of the schema's generic "unknown member".
static Status CheckModelLimitsPlace(const nlohmann::json& doc, const std::string& file) {
  if (!doc.is_object() || !doc.contains("cases") || !doc["cases"].is_array()) return Status::Ok();
  static const std::set<std::string> kModelKinds = {"decode", "prefill", "embed", "serving"};
  static const std::set<std::string> kOwnMembers = {
      "max_logprob_diff", "logprob_m", "logprob_floor", "min_top_k_overlap",
      "near_tie_margin",  "top_k",     "min_cosine"};
  const nlohmann::json& cases = doc["cases"];
  for (size_t i = 0; i < cases.size(); ++i) {
    const nlohmann::json& c = cases[i];
    if (!c.is_object() || !c.contains("kind") || !c["kind"].is_string() ||
        kModelKinds.count(c["kind"].get<std::string>()) == 0 || !c.contains("tolerance") ||
        !c["tolerance"].is_object() || c["tolerance"].empty()) {
      continue;
    }
    const std::string kind = c["kind"].get<std::string>();
    const std::string at = "/cases/" + std::to_string(i);
    const std::string key = c["tolerance"].begin().key();
    const std::string to =
        kOwnMembers.count(key) != 0 ? at + "/model/" + key : at + "/model/tolerance/" + key;
    return Bad(file, at + "/tolerance/" + key,
               "a " + kind + " case's limits belong in its \"model\" member: move it to " + to);
  }
  return Status::Ok();
}

StatusOr<SuiteSpec> ReadSuiteFile(const std::string& suites_dir, const std::string& name) {
  static const std::regex kName("[A-Za-z0-9_][A-Za-z0-9_.-]*");
  if (!std::regex_match(name, kName) || name == "schema") {
    return UsageError("'" + name + "' is not a suite name (see 'spyre-regress list')");
  }
  const std::string file = (fs::path(suites_dir) / (name + ".json")).string();
  StatusOr<std::string> text = ReadInputFile(file, kMaxJsonFileBytes, "suite file");
  if (!text.ok() && text.status().code() == ErrorCode::kNotFound) {
    std::error_code ec;
    if (!fs::is_directory(suites_dir, ec)) {
      return NotFound(file + ": no such suite file: the suites directory " + suites_dir +
                      " does not exist (pass --suites with the directory holding <name>.json)");
    }
    return NotFound(file + ": no such suite file" + DidYouMean(name, ListSuites(suites_dir)) +
                    " (see 'spyre-regress list' for the suites in " + suites_dir + ")");
  }
  if (!text.ok()) return text.status();
  if (const size_t at = TooDeepAt(*text, kMaxSuiteDepth); at != std::string::npos) {
    return InvalidInput(file + ": arrays and objects nested more than " +
                        std::to_string(kMaxSuiteDepth) + " deep at " + LineColumn(*text, at) +
                        " (a suite needs about 8 levels): is it the file you meant?");
  }
  SPYRE_RETURN_IF_ERROR(CheckCaseCount(*text, file));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range: 1e999
    return Bad(file, "", std::string("not valid JSON: ") + e.what());
  }
  text->clear();
  SPYRE_RETURN_IF_ERROR(CheckModelLimitsPlace(doc, file));
  Status schema = CheckAgainstSchema(doc, suites_dir);
  if (!schema.ok()) return InvalidInput(file + ": " + schema.message());
  if (doc.value("name", name) != name) {
    return Bad(file, "/name",
               "\"" + doc["name"].get<std::string>() +
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
    SPYRE_ASSIGN_OR_RETURN_CTX(auto expanded, ExpandSweep(cases[i], pointer), file);
    for (nlohmann::json& body : expanded) {
      MergeDefaults(doc, &body);
      CaseSpec c;
      c.suite = name;
      c.id = body["id"].get<std::string>();
      c.kind = body["kind"].get<std::string>();
      c.tags = Tags(doc, body);
      c.latency = body.value("latency", false);
      if (!std::regex_match(c.id, kId)) {
        return Bad(file, pointer + "/id",
                   "'" + c.id + "' is not a usable case id (letters, digits, _ . + -)");
      }
      if (!ids.insert(c.id).second) {
        return Bad(file, pointer + "/id", "case id '" + c.id + "' is used twice");
      }
      c.body = std::move(body);
      c.body["pointer"] = pointer;
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
