#pragma once
// Escaping for each output format. Everything user-controlled (case ids,
// labels, tags, messages, environment values) goes through one of these.
#include <string>

namespace reports {

// Text and attribute values in HTML: & < > " ' become entities; control
// characters other than tab, LF and CR become "\xNN" text.
std::string EscapeHtml(const std::string& s);

// XML 1.0 text and attributes: & < > " ' become entities; control characters
// XML 1.0 cannot carry (below 0x20 except tab, LF, CR) become "\xNN" text;
// invalid UTF-8 bytes become U+FFFD.
std::string EscapeXml(const std::string& s);

// One Markdown table cell: | ` < > & [ ] escaped or replaced by entities so
// the cell neither splits nor opens code spans, HTML, links or images;
// newlines and other control characters become spaces.
std::string EscapeMarkdownCell(const std::string& s);

// JSON text made safe inside an HTML <script> element: < > & and U+2028/2029
// become \u escapes (still valid JSON and JavaScript).
std::string EscapeJsonForScript(const std::string& json);

// A number for people (harness::HumanNumber): "12.3", "0.0000123", "-" for
// NaN, "inf"; never an exponent.
std::string FormatNumber(double v);
// A ratio as a signed percentage change (harness::HumanChange): 1.123 ->
// "+12.3%"; "-" for NaN.
std::string FormatChange(double ratio);

}  // namespace reports
