#pragma once
// How a finding's values read in every format (private to spyre_reports).
#include <string>

#include "detect/detect.h"
#include "base/human_format.h"
#include "reports/escape.h"
#include "reports/report_model.h"

namespace reports::internal {

// A finding's baseline or candidate value as people read it, in the
// metric's unit ("35.9 ms", "256 KiB", "16"). Status findings carry an
// internal ranking of statuses as numbers; they are shown as the statuses
// themselves, read from the case rows.
inline std::string FindingValue(const ReportModel& m, const harness::Finding& f, bool baseline) {
  if (f.kind == harness::FindingKind::kStatus) {
    const CaseRow* row = m.FindCase(f.suite, f.case_id);
    if (row != nullptr && (!baseline || row->in_baseline)) {
      return harness::CaseStatusName(baseline ? row->base_status : row->result.status);
    }
  }
  return harness::HumanMetric(f.metric, baseline ? f.baseline : f.candidate);
}

// An environment value as shown: "none" rather than a blank cell.
inline std::string EnvValue(const std::string& v) { return harness::EnvValueText(v); }

// "mm (+2.5 us), add" or "" when no op was blamed.
inline std::string BlamedOps(const harness::Finding& f) {
  std::string s;
  for (const harness::BlamedOp& op : f.blamed_ops) s += (s.empty() ? "" : ", ") + harness::BlamedOpText(op);
  return s;
}

}  // namespace reports::internal
