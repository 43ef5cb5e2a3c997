#include "base/case_filter.h"

#include <algorithm>

#include "base/suggest.h"

namespace harness {
namespace {

// The deepest nesting of groups in an ECMAScript pattern, skipping escaped
// characters and bracket expressions, where parentheses are literal.
int GroupNesting(const std::string& p) {
  int depth = 0, deepest = 0;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      if (c == ']') in_class = false;
    } else if (c == '[') {
      in_class = true;
      if (i + 1 < p.size() && p[i + 1] == ']') ++i;  // "[]...]": the first ] is literal
    } else if (c == '(') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ')' && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

StatusOr<std::regex> CompileUserRegex(const std::string& pattern, const std::string& what) {
  if (pattern.size() > kMaxUserRegexLength) {
    return UsageError(what + " is " + std::to_string(pattern.size()) +
                      " characters long; a pattern may have at most " +
                      std::to_string(kMaxUserRegexLength) +
                      ": match on a shorter part of the names");
  }
  if (const int nesting = GroupNesting(pattern); nesting > kMaxUserRegexNesting) {
    return UsageError(what + " nests groups " + std::to_string(nesting) +
                      " deep; at most " + std::to_string(kMaxUserRegexNesting) +
                      " levels of parentheses are accepted");
  }
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return UsageError(what + " '" + pattern + "' is not a valid regular expression (" + e.what() +
                      ")");
  }
}

StatusOr<CaseFilter> CaseFilter::Compile(const std::string& pattern) {
  CaseFilter f;
  f.pattern_ = pattern;
  if (pattern.empty()) return f;
  SPYRE_ASSIGN_OR_RETURN(f.re_, CompileUserRegex(pattern, "--filter"));
  return f;
}

bool CaseFilter::Matches(const std::string& suite, const std::string& case_id) const {
  return pattern_.empty() || std::regex_search(suite + "/" + case_id, re_);
}

Status NoCaseMatched(const std::vector<std::string>& suites, const std::string& pattern,
                     const std::vector<std::string>& case_ids) {
  // A pattern that is a mistyped case id, perhaps anchored or with its
  // suite, gets the closest id.
  std::string plain = pattern;
  if (!plain.empty() && plain.front() == '^') plain.erase(0, 1);
  if (!plain.empty() && plain.back() == '$') plain.pop_back();
  if (const size_t slash = plain.rfind('/'); slash != std::string::npos) plain.erase(0, slash + 1);
  std::string names;
  for (const std::string& s : suites) names += (names.empty() ? "" : ", ") + s;
  return UsageError("no case of " + names +
                    (pattern.empty() ? std::string(" (the suite is empty)")
                                     : " matches --filter '" + pattern + "'" +
                                           DidYouMean(plain, case_ids)) +
                    " (see `spyre-regress list" + (suites.empty() ? "" : " --suite " + suites.front()) +
                    "`)");
}

}  // namespace harness
