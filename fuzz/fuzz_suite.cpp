// Fuzz entry: the suite loader (harness/src/suite: JSON parse, schema check,
// sweep expansion, defaults, each case kind's validation). The input is the
// whole suite file, loaded from a scratch suites directory that holds nothing
// else, so a case naming a file gets "not found" or "outside the root".
// Errors are values: the loader must never throw, and its one-line message
// must name the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "suite_file/suite_file.h"
#include "scratch_dir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = spyre_fuzz::ScratchDir();
  const std::string file = dir + "/fuzz.json";
  spyre_fuzz::WriteFile(file, reinterpret_cast<const char*>(data), size);
  auto suite = harness::LoadSuite(dir, "fuzz");
  if (!suite.ok()) {
    const std::string& m = suite.status().message();
    FUZZ_CHECK(m.rfind(file, 0) == 0, m);
    return 0;
  }
  FUZZ_CHECK(suite->name == "fuzz", suite->name);
  for (const harness::CaseSpec& c : suite->cases) {
    FUZZ_CHECK(!c.id.empty() && !c.kind.empty(), "case without id or kind");
    FUZZ_CHECK(c.suite == "fuzz", c.id);
  }
  return 0;
}
