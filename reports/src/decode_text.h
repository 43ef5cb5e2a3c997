#pragma once
// The decoded text of a decode case with text prompts (its result's
// extra["text"], written by the decode case kind): per sequence the prompt,
// the golden continuation and the device's top-1 token at each step
// (teacher forced: each given the golden text before it), and the flips.
// Rendered beside the case tables of index.html and summary.md with the
// first divergence marked and near ties labelled. Private to spyre_reports.
#include <string>
#include <vector>

#include "reports/report_model.h"

namespace reports::internal {

struct DecodeTextCase {
  std::string suite, case_id;
  bool failed = false;
  struct Sequence {
    int64_t index = 0;
    std::string prompt;
    std::vector<std::string> golden, device;  // one token's text per step
    // Per step: 0 agrees, 1 near-tie flip, 2 hard flip.
    std::vector<int> flip;
    int64_t first_divergence = -1;
  };
  std::vector<Sequence> sequences;
};

// The cases of the report that carry decoded text, in report order;
// malformed extra["text"] entries are skipped.
std::vector<DecodeTextCase> DecodeTexts(const ReportModel& m);

// index.html's "Decoded text" section (empty when no case has text).
std::string HtmlDecodeText(const ReportModel& m);
// summary.md's "Decoded text" lines for the failed cases (empty when none).
std::string MarkdownDecodeText(const ReportModel& m);

}  // namespace reports::internal
