#pragma once
// Reading rendered report text in tests: numbers in exponent notation, and
// the piece of a page between two markers.
#include <string>
#include <vector>

namespace reports_test {

// Every number written as mantissa-e-exponent ("6.44e+04", "1.2e-07"),
// outside words (a hex digest like "3e4f" is not one).
std::vector<std::string> ScientificNumbers(const std::string& text);

// The text from `open` (e.g. `<table id="cases-0"`) to the next `close`; ""
// when `open` is absent.
std::string Slice(const std::string& text, const std::string& open, const std::string& close);

}  // namespace reports_test
