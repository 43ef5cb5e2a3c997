#include "decode_text.h"

#include <sstream>

#include "reports/escape.h"

namespace reports::internal {
namespace {

bool IsStringArray(const nlohmann::json& j) {
  if (!j.is_array()) return false;
  for (const auto& e : j) {
    if (!e.is_string()) return false;
  }
  return true;
}

// Up to this many steps are shown.
constexpr size_t kMaxSteps = 200;

// A cell's text with emphasis characters neutralised too (the flips are
// marked in bold).
std::string MdText(const std::string& s) {
  std::string out;
  for (const char c : EscapeMarkdownCell(s)) {
    if (c == '*') {
      out += "&#42;";
    } else if (c == '_') {
      out += "&#95;";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::vector<DecodeTextCase> DecodeTexts(const ReportModel& m) {
  std::vector<DecodeTextCase> out;
  for (const SuiteSection& s : m.suites) {
    for (const CaseRow& row : s.cases) {
      const harness::CaseResult& r = row.result;
      auto it = r.extra.find("text");
      if (it == r.extra.end() || !it->is_array()) continue;
      DecodeTextCase c;
      c.suite = s.name;
      c.case_id = r.case_id;
      c.failed = r.status != harness::CaseStatus::kPassed;
      for (const auto& t : *it) {
        if (!t.is_object() || !t.contains("prompt") || !t["prompt"].is_string() ||
            !IsStringArray(t.value("golden", nlohmann::json())) ||
            !IsStringArray(t.value("device", nlohmann::json())) ||
            t["golden"].size() != t["device"].size()) {
          continue;
        }
        DecodeTextCase::Sequence q;
        q.index = t.value("sequence", int64_t{0});
        q.prompt = t["prompt"].get<std::string>();
        const size_t n = std::min(kMaxSteps, t["golden"].size());
        for (size_t i = 0; i < n; ++i) {
          q.golden.push_back(t["golden"][i].get<std::string>());
          q.device.push_back(t["device"][i].get<std::string>());
          q.flip.push_back(0);
        }
        for (const auto& f : t.value("flips", nlohmann::json::array())) {
          if (!f.is_object() || !f.contains("step") || !f["step"].is_number_integer()) continue;
          const int64_t step = f["step"].get<int64_t>();
          if (step < 0 || step >= static_cast<int64_t>(n)) continue;
          const bool near = f.value("near_tie", false);
          q.flip[step] = near ? 1 : 2;
          if (q.first_divergence < 0 || step < q.first_divergence) q.first_divergence = step;
        }
        c.sequences.push_back(std::move(q));
      }
      if (!c.sequences.empty()) out.push_back(std::move(c));
    }
  }
  return out;
}

std::string HtmlDecodeText(const ReportModel& m) {
  const std::vector<DecodeTextCase> cases = DecodeTexts(m);
  if (cases.empty()) return "";
  std::ostringstream out;
  out << "<section id=\"decode-text\"><h2>Decoded text</h2><p class=\"note\">Per decode case "
         "with text prompts: the prompt, then what the CPU (golden) wrote and what the device "
         "chose at each step given the golden text before it. The first divergence is "
         "<mark class=\"dv\">marked</mark>; later flips are <mark class=\"hf\">highlighted</mark>"
         "; a flip between tokens the golden put closer than a correct device can keep apart "
         "(the near-tie margin in probability, or twice the yardstick in log-probability) is "
         "labelled <span class=\"nt\">near tie</span> and does not fail the case.</p>";
  for (const DecodeTextCase& c : cases) {
    out << "<div class=\"decode-text\" data-case=\"" << EscapeHtml(c.case_id) << "\"><h4>"
        << EscapeHtml(c.suite) << " / " << EscapeHtml(c.case_id)
        << (c.failed ? " <span class=\"tag s-failed\">failed</span>" : "") << "</h4>";
    for (const auto& q : c.sequences) {
      std::ostringstream golden, device;
      for (size_t i = 0; i < q.golden.size(); ++i) {
        const bool first = static_cast<int64_t>(i) == q.first_divergence;
        if (q.flip[i] == 0) {
          golden << EscapeHtml(q.golden[i]);
          device << EscapeHtml(q.device[i]);
          continue;
        }
        const char* cls = first ? "dv" : "hf";
        const std::string label = q.flip[i] == 1 ? "near tie" : "flip";
        golden << "<mark class=\"" << cls << "\">" << EscapeHtml(q.golden[i]) << "</mark>";
        device << "<mark class=\"" << cls << "\" title=\"step " << i << ": " << label << "\">"
               << EscapeHtml(q.device[i]) << "</mark>";
        if (q.flip[i] == 1) device << "<span class=\"nt\">near tie</span>";
      }
      out << "<p class=\"seq\">sequence " << q.index;
      if (q.first_divergence >= 0) {
        out << ", first divergence at step " << q.first_divergence;
      } else {
        out << ", no divergence";
      }
      out << "</p><pre class=\"dtext\"><span class=\"lbl\">golden </span><span class=\"prompt\">"
          << EscapeHtml(q.prompt) << "</span>" << golden.str()
          << "\n<span class=\"lbl\">device </span><span class=\"prompt\">" << EscapeHtml(q.prompt)
          << "</span>" << device.str() << "</pre>";
    }
    out << "</div>";
  }
  out << "</section>";
  return out.str();
}

std::string MarkdownDecodeText(const ReportModel& m) {
  std::ostringstream rows;
  int n = 0;
  for (const DecodeTextCase& c : DecodeTexts(m)) {
    if (!c.failed) continue;
    for (const auto& q : c.sequences) {
      if (q.first_divergence < 0) continue;
      // Golden and device text with each flip in bold brackets, near ties
      // labelled.
      std::string golden = MdText(q.prompt), device = golden;
      for (size_t i = 0; i < q.golden.size(); ++i) {
        if (q.flip[i] == 0) {
          golden += MdText(q.golden[i]);
          device += MdText(q.device[i]);
          continue;
        }
        golden += "**&#91;" + MdText(q.golden[i]) + "&#93;**";
        device +=
            "**&#91;" + MdText(q.device[i]) + "&#93;**" + (q.flip[i] == 1 ? " _(near tie)_ " : "");
      }
      rows << "| " << EscapeMarkdownCell(c.case_id) << " | " << q.index << " | "
           << q.first_divergence << " | " << golden << " | " << device << " |\n";
      ++n;
    }
  }
  if (n == 0) return "";
  return "### Decoded text\n\nThe device's token at each step given the golden text before it; "
         "flips in bold brackets.\n\n| case | sequence | first divergence (step) | golden | "
         "device |\n|---|---:|---:|---|---|\n" +
         rows.str() + "\n";
}

}  // namespace reports::internal
