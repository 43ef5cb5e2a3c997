// junit.xml: golden text over the fixture store, and a schema check (well
// formed, the attributes Jenkins/GitLab/GitHub reporters need, counts that
// add up).
#include <gtest/gtest.h>

#include "fixture_store.h"
#include "reports/reporter.h"
#include "support/temp_dir.h"
#include "xml_check.h"

namespace reports_test {
namespace {

class JunitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = FixtureModel(dir_.File("store.db"));
    xml_ = reports::MakeJunitReporter()->Render(model_);
  }
  spyre_test::TempDir dir_;
  reports::ReportModel model_;
  std::string xml_;
};

TEST_F(JunitTest, MatchesGoldenText) { ExpectGolden("junit.xml", NormaliseTimes(xml_)); }

int Attr(const XmlNode& n, const std::string& name) {
  EXPECT_TRUE(n.Has(name)) << "<" << n.name << "> lacks " << name;
  return n.Has(name) ? std::stoi(n.attrs.at(name)) : -1;
}

TEST_F(JunitTest, IsWellFormedAndCountsAddUp) {
  std::string error;
  auto root = ParseXml(xml_, &error);
  ASSERT_NE(root, nullptr) << error;
  ASSERT_EQ(root->name, "testsuites");
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  for (const XmlNode* suite : root->All("testsuite")) {
    ASSERT_TRUE(suite->Has("name") && suite->Has("time") && suite->Has("timestamp"));
    int t = 0, f = 0, e = 0, s = 0;
    for (const XmlNode* tc : suite->All("testcase")) {
      ++t;
      EXPECT_TRUE(tc->Has("name"));
      EXPECT_EQ(tc->attrs.at("classname"), suite->attrs.at("name"));
      EXPECT_GE(std::stod(tc->attrs.at("time")), 0.0);
      const size_t outcomes =
          tc->All("failure").size() + tc->All("error").size() + tc->All("skipped").size();
      EXPECT_LE(outcomes, 1u) << tc->attrs.at("name");
      for (const XmlNode* x : tc->All("failure")) {
        ++f;
        EXPECT_TRUE(x->Has("message") && x->Has("type"));
      }
      for (const XmlNode* x : tc->All("error")) {
        ++e;
        EXPECT_TRUE(x->Has("message") && x->Has("type"));
      }
      s += static_cast<int>(tc->All("skipped").size());
    }
    EXPECT_EQ(Attr(*suite, "tests"), t);
    EXPECT_EQ(Attr(*suite, "failures"), f);
    EXPECT_EQ(Attr(*suite, "errors"), e);
    EXPECT_EQ(Attr(*suite, "skipped"), s);
    tests += t, failures += f, errors += e, skipped += s;
  }
  EXPECT_EQ(Attr(*root, "tests"), tests);
  EXPECT_EQ(Attr(*root, "failures"), failures);
  EXPECT_EQ(Attr(*root, "errors"), errors);
  EXPECT_EQ(Attr(*root, "skipped"), skipped);
  EXPECT_EQ(tests, 7);
  EXPECT_EQ(errors, 1);  // the crashed case
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(failures, 3);  // the failed case, mm's modeled latency, layer_norm's fallback
}

TEST_F(JunitTest, FailureCarriesMetricsAndToleranceAndEscapesTheName) {
  std::string error;
  auto root = ParseXml(xml_, &error);
  ASSERT_NE(root, nullptr) << error;
  const XmlNode* found = nullptr;
  for (const XmlNode* suite : root->All("testsuite")) {
    for (const XmlNode* tc : suite->All("testcase")) {
      if (tc->attrs.at("name") == "<script>alert(1)</script>") found = tc;
    }
  }
  ASSERT_NE(found, nullptr) << "the case name did not survive escaping";
  ASSERT_EQ(found->All("failure").size(), 1u);
  const XmlNode& f = *found->All("failure")[0];
  EXPECT_EQ(f.attrs.at("message"), "max_ulp 16 > 2 | `tick` <b>bold</b> & more");
  EXPECT_NE(f.text.find("out0 max_ulp = 16 (tolerance 2)"), std::string::npos) << f.text;
  EXPECT_EQ(xml_.find("<script>"), std::string::npos);
}

TEST_F(JunitTest, ControlCharactersInMessagesStayValidXml) {
  EXPECT_EQ(xml_.find('\x01'), std::string::npos);
  EXPECT_NE(xml_.find("SIGSEGV)\\x01"), std::string::npos);
}

// A test case's time is the whole case (what a CI dashboard adds up), not
// one timed call of it.
TEST_F(JunitTest, ATestCasesTimeIsTheWholeCaseNotOneCall) {
  reports::ReportModel m = model_;
  ASSERT_FALSE(m.suites.empty());
  ASSERT_FALSE(m.suites[0].cases.empty());
  harness::CaseResult& r = m.suites[0].cases[0].result;
  r.wall_us = {100, 100, 100};
  r.extra["harness"] = {{"elapsed_us", 2.5e6}, {"execute_us", 2.4e6}};
  const std::string xml = reports::MakeJunitReporter()->Render(m);
  EXPECT_NE(xml.find("name=\"" + r.case_id + "\" classname=\"" + m.suites[0].name + "\" time=\"2.500000\""),
            std::string::npos)
      << xml;
}

}  // namespace
}  // namespace reports_test
