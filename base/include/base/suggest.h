#pragma once
// Close-match suggestions for names a user typed: verbs, flags, suites,
// cases, ops, metrics.
//
//   ClosestName("--repeats", {"--repeat", "--rounds"})  -> "--repeat"
//   DidYouMean("smoek", {"smoke", "decode"})           -> "; did you mean 'smoke'?"
#include <string>
#include <vector>

namespace harness {

// The number of single-character insertions, deletions, substitutions and
// swaps of neighbouring characters that turn `a` into `b`.
size_t EditDistance(const std::string& a, const std::string& b);

// The name in `names` closest to `word`, when it is close enough to be a
// likely typo (a third of the word's length, at least 2 edits, or a name
// that starts with the word); "" otherwise. Of equally close names the
// first in `names` wins.
std::string ClosestName(const std::string& word, const std::vector<std::string>& names);

// "; did you mean 'NAME'?" for the closest name, or "".
std::string DidYouMean(const std::string& word, const std::vector<std::string>& names);

}  // namespace harness
