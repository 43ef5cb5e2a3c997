#pragma once
// Findings as the store keeps them (the `regressions` table): each finding
// is judged once, when its run is, and stored whole, so every later reader
// (report, bisect) shows the verdict the run gave and the figures it gave
// them with, not a judgement made again with today's thresholds.
#include <optional>
#include <string>
#include <vector>

#include "detect/detect.h"
#include "store/store.h"

namespace harness {

// "status", "accuracy", ... back to the kind; nullopt for a name this
// version does not know.
std::optional<FindingKind> FindingKindFromName(const std::string& name);

// The row that records `f` (its columns, and the whole finding as JSON).
RegressionRow RegressionRowOf(const Finding& f);

// The finding a row records: from its JSON when it has one (rows recorded
// before it was kept have only the columns, and give the columns'
// figures with no op blamed); nullopt for a kind this version does not know.
std::optional<Finding> FindingOfRow(const RegressionRow& row);

}  // namespace harness
