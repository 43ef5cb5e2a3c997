#pragma once
// Regular expressions a user types (`--filter`, a thresholds file's `match`).
//
// libstdc++'s std::regex compiles and matches by recursion, one stack frame
// per element and per step: a pattern of tens of thousands of characters, or
// one nested a few thousand parentheses deep, ends the program with a stack
// overflow instead of an error. A user's pattern is therefore bounded before
// it is compiled; within the bounds, and against names of a few hundred
// characters, the recursion stays far inside the stack.
#include <regex>
#include <string>
#include <vector>

#include "base/status.h"

namespace harness {

// The bounds (see CompileUserRegex).
constexpr size_t kMaxUserRegexLength = 512;
constexpr int kMaxUserRegexNesting = 16;

// Compiles an ECMAScript pattern, or says in one line why it will not:
// longer than kMaxUserRegexLength characters, groups nested deeper than
// kMaxUserRegexNesting, or not a regular expression. `what` names where the
// pattern came from ("--filter", "thresholds.json: rule 3's match").
StatusOr<std::regex> CompileUserRegex(const std::string& pattern, const std::string& what);

// Which cases a `--filter` chooses, with one meaning for every verb that
// takes one (run, golden generate): the pattern is searched for anywhere in
// "SUITE/CASE_ID". An empty pattern chooses every case.
class CaseFilter {
 public:
  CaseFilter() = default;
  static StatusOr<CaseFilter> Compile(const std::string& pattern);

  bool Matches(const std::string& suite, const std::string& case_id) const;
  bool empty() const { return pattern_.empty(); }
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::regex re_;
};

// The error when a filter chose no case of `suites`: the closest case id
// when the pattern looks like a mistyped one, and where to see the ids.
Status NoCaseMatched(const std::vector<std::string>& suites, const std::string& pattern,
                     const std::vector<std::string>& case_ids);

}  // namespace harness
