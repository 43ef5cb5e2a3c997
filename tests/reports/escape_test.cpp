#include "reports/escape.h"

#include <gtest/gtest.h>

#include <cmath>

namespace reports {
namespace {

TEST(EscapeTest, HtmlEscapesTextAndAttributeCharacters) {
  EXPECT_EQ(EscapeHtml("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  EXPECT_EQ(EscapeHtml("plain µs"), "plain µs");
  EXPECT_EQ(EscapeHtml(std::string("a\x01"
                                   "b\tc",
                                   5)),
            "a\\x01b\tc");
}

TEST(EscapeTest, XmlReplacesControlCharactersAndInvalidUtf8) {
  EXPECT_EQ(EscapeXml("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  EXPECT_EQ(EscapeXml(std::string("x\x01y\x1Fz\tw\n", 8)), "x\\x01y\\x1Fz\tw\n");
  EXPECT_EQ(EscapeXml("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(EscapeXml("bad\xFF"
                      "byte"),
            "bad\xEF\xBF\xBD"
            "byte");
  EXPECT_EQ(EscapeXml("trunc\xE2\x80"), "trunc\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(EscapeTest, JsonForScriptCannotCloseTheScriptElement) {
  EXPECT_EQ(EscapeJsonForScript(R"({"c":"</script><b>&"})"),
            R"({"c":"\u003c/script\u003e\u003cb\u003e\u0026"})");
  EXPECT_EQ(EscapeJsonForScript("\"a\xE2\x80\xA8"
                                "b\xE2\x80\xA9\""),
            "\"a\\u2028b\\u2029\"");
}

TEST(EscapeTest, NumbersForPeople) {
  EXPECT_EQ(FormatNumber(NAN), "-");
  EXPECT_EQ(FormatNumber(INFINITY), "inf");
  EXPECT_EQ(FormatNumber(16), "16");
  EXPECT_EQ(FormatNumber(12.3456), "12.3");
  EXPECT_EQ(FormatNumber(1.5e-5), "0.000015");  // never an exponent
  EXPECT_EQ(FormatChange(1.25), "+25.0%");
  EXPECT_EQ(FormatChange(0.9), "-10.0%");
  EXPECT_EQ(FormatChange(NAN), "-");
}

}  // namespace
}  // namespace reports
