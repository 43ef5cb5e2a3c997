// LoadSuite: the suite file as ReadSuiteFile reads it, then each case parsed
// and checked by its kind (harness/case_kinds/case_kinds.h), so that a bad
// suite fails before anything runs. The case kinds work on tensors: this is
// the part of loading a suite that needs the torch side of the engine.
#include "harness/case_kinds/case_kinds.h"
#include "suite_file/suite_file.h"

namespace harness {

StatusOr<SuiteSpec> LoadSuite(const std::string& suites_dir, const std::string& name) {
  SPYRE_ASSIGN_OR_RETURN(SuiteSpec suite, ReadSuiteFile(suites_dir, name));
  const std::string& file = suite.path;
  for (CaseSpec& c : suite.cases) {
    const std::string pointer = c.body["pointer"].get<std::string>();
    const CaseKind* kind = FindCaseKind(c.kind);
    if (kind == nullptr) {
      return InvalidInput(file + ": " + pointer + "/kind: unknown case kind '" + c.kind +
                          "' (known: " + CaseKindNames() + ")");
    }
    // A kind that reads a member of the wrong type through nlohmann throws;
    // that is still a bad suite file, named as such.
    Status valid = Status::Ok();
    try {
      valid = kind->Parse(suite, &c);
    } catch (const nlohmann::json::exception& e) {
      return InvalidInput(file + ": " + pointer + ": a member has the wrong type: " + e.what());
    }
    if (!valid.ok()) return InvalidInput(file + ": " + valid.message());
  }
  return suite;
}

}  // namespace harness
