#pragma once
// A small store for the report tests, built through the Store API: suite
// "ops" and suite "decode" over eight completed runs. Runs 1-5 share one
// environment; from run 6 the BLAS changed and mm's modeled time grew, so
// mm/64x64 has a change point and a version change at run 6. Run 8 is the
// candidate, with detection's baseline recorded as run 5, and it has a failed
// case named "<script>alert(1)</script>", a crashed case, a skipped case and
// a case that fell back to the CPU.
#include <cstdint>
#include <string>

namespace reports_test {

struct FixtureRuns {
  int64_t baseline = 0;
  int64_t candidate = 0;
};

// Creates the store at `path` (which must not exist). Aborts the test on error.
FixtureRuns BuildFixtureStore(const std::string& path);

}  // namespace reports_test

#include "reports/report_model.h"

namespace reports_test {

// Builds the fixture store at `path` and the report model of its candidate.
reports::ReportModel FixtureModel(const std::string& path);

// Replaces ISO-8601 timestamps ("2026-11-29T14:35:34.123Z" and the like) with
// "<time>", so golden text does not depend on when the test ran.
std::string NormaliseTimes(const std::string& text);

// Compares `actual` with the golden file tests/reports/golden/<name>; with
// SPYRE_UPDATE_GOLDEN=1 in the environment it rewrites the file instead.
void ExpectGolden(const std::string& name, const std::string& actual);

}  // namespace reports_test
