// junit.xml: one <testcase> per case, classname = suite, in the dialect the
// Jenkins, GitLab and GitHub test reporters read. Failed cases carry their
// metrics and tolerances; crashed/timeout/error cases are <error>; skipped
// cases <skipped/>; a passed case with regressions against the baseline is a
// <failure type="regression"> so CI shows it where people look.
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "finding_text.h"
#include "reports/escape.h"
#include "reports/reporter.h"

namespace reports {
namespace {

using harness::CaseStatus;
using harness::Finding;

std::string Attr(const std::string& s) { return "\"" + EscapeXml(s) + "\""; }

// JUnit time: the device time of the timed repeats, in seconds.
// A test case's time is the whole case as the supervisor saw it (inputs,
// device, reference, comparison, every timed repeat): what a CI dashboard
// adds up. Results recorded without it give the sum of their timed repeats.
double Seconds(const harness::CaseResult& r) {
  if (r.extra.is_object() && r.extra.contains("harness") && r.extra["harness"].is_object()) {
    const nlohmann::json& h = r.extra["harness"];
    for (const char* key : {"elapsed_us", "execute_us"}) {
      if (h.contains(key) && h[key].is_number() && h[key].get<double>() >= 0) return h[key].get<double>() / 1e6;
    }
  }
  double us = 0;
  for (double w : r.wall_us) {
    if (std::isfinite(w)) us += w;
  }
  return us / 1e6;
}

std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6f", s);
  return buf;
}

std::string MetricLines(const harness::CaseResult& r) {
  std::string s;
  for (const harness::Metric& m : r.metrics) {
    s += (m.failed ? "FAILED " : "ok     ") + m.output + " " + m.name + " = " +
         harness::HumanMetric(m.name, m.value);
    if (!std::isnan(m.limit)) s += " (tolerance " + harness::HumanMetric(m.name, m.limit) + ")";
    s += "\n";
  }
  return s;
}

// "regression status: passed -> failed: message", each figure once
// (harness::FindingSummary).
std::string FindingLine(const Finding& f) {
  return "regression " + harness::FindingSummary(f) + "\n";
}

struct Totals {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
};

class JunitReporter : public Reporter {
 public:
  std::string FileName() const override { return "junit.xml"; }
  std::string Render(const ReportModel& m) const override {
    std::map<std::pair<std::string, std::string>, std::vector<const Finding*>> findings;
    if (m.comparison) {
      for (const Finding& f : m.comparison->regressions)
        findings[{f.suite, f.case_id}].push_back(&f);
    }
    Totals all;
    std::ostringstream suites;
    for (const SuiteSection& s : m.suites) {
      Totals t;
      std::ostringstream cases;
      for (const CaseRow& row : s.cases) {
        const harness::CaseResult& r = row.result;
        const auto it = findings.find({r.suite, r.case_id});
        std::string regs;
        if (it != findings.end()) {
          for (const Finding* f : it->second) regs += FindingLine(*f);
        }
        ++t.tests;
        t.seconds += Seconds(r);
        cases << "    <testcase name=" << Attr(r.case_id) << " classname=" << Attr(s.name)
              << " time=\"" << FormatSeconds(Seconds(r)) << "\"";
        const std::string status = harness::CaseStatusName(r.status);
        const std::string message = r.message.empty() ? status : r.message;
        if (r.status == CaseStatus::kPassed && regs.empty()) {
          cases << "/>\n";
          continue;
        }
        cases << ">\n";
        switch (r.status) {
          case CaseStatus::kSkipped:
            ++t.skipped;
            cases << "      <skipped message=" << Attr(message) << "/>\n";
            break;
          case CaseStatus::kError:
          case CaseStatus::kCrashed:
          case CaseStatus::kTimeout:
            ++t.errors;
            cases << "      <error message=" << Attr(message) << " type=" << Attr(status) << ">"
                  << EscapeXml(MetricLines(r) + regs) << "</error>\n";
            break;
          case CaseStatus::kFailed:
            ++t.failures;
            cases << "      <failure message=" << Attr(message) << " type=\"failed\">"
                  << EscapeXml(MetricLines(r) + regs) << "</failure>\n";
            break;
          case CaseStatus::kPassed: {
            ++t.failures;
            const std::string summary =
                harness::Plural(static_cast<int64_t>(it->second.size()), "regression") +
                " against baseline run " + std::to_string(m.baseline->run_id);
            cases << "      <failure message=" << Attr(summary) << " type=\"regression\">"
                  << EscapeXml(regs + MetricLines(r)) << "</failure>\n";
            break;
          }
        }
        cases << "    </testcase>\n";
      }
      suites << "  <testsuite name=" << Attr(s.name) << " tests=\"" << t.tests << "\" failures=\""
             << t.failures << "\" errors=\"" << t.errors << "\" skipped=\"" << t.skipped
             << "\" time=\"" << FormatSeconds(t.seconds)
             << "\" timestamp=" << Attr(m.run.started_at) << ">\n"
             << "    <properties>\n"
             << "      <property name=\"run_id\" value=\"" << m.run.run_id << "\"/>\n"
             << "      <property name=\"fingerprint\" value=" << Attr(m.run.fingerprint) << "/>\n";
      if (m.baseline) {
        suites << "      <property name=\"baseline_run_id\" value=\"" << m.baseline->run_id
               << "\"/>\n";
      }
      suites << "    </properties>\n" << cases.str() << "  </testsuite>\n";
      all.tests += t.tests;
      all.failures += t.failures;
      all.errors += t.errors;
      all.skipped += t.skipped;
      all.seconds += t.seconds;
    }
    // A run that did not complete is an error of its own, so that no CI
    // reporter shows its recorded cases as a clean pass.
    if (!m.incomplete.empty()) {
      ++all.tests;
      ++all.errors;
      suites << "  <testsuite name=\"spyre-regress\" tests=\"1\" failures=\"0\" errors=\"1\""
             << " skipped=\"0\" time=\"0.000000\" timestamp=" << Attr(m.run.started_at) << ">\n"
             << "    <testcase name=" << Attr("run " + std::to_string(m.run.run_id))
             << " classname=\"spyre-regress\" time=\"0.000000\">\n"
             << "      <error message=" << Attr(m.incomplete)
             << " type=" << Attr(VerdictName(m.verdict)) << "/>\n    </testcase>\n  </testsuite>\n";
    }
    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<testsuites name=" << Attr("spyre-regress run " + std::to_string(m.run.run_id))
        << " tests=\"" << all.tests << "\" failures=\"" << all.failures << "\" errors=\""
        << all.errors << "\" skipped=\"" << all.skipped << "\" time=\""
        << FormatSeconds(all.seconds) << "\">\n"
        << suites.str() << "</testsuites>\n";
    return out.str();
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeJunitReporter() { return std::make_unique<JunitReporter>(); }

}  // namespace reports
