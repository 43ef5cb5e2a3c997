#include "base/suggest.h"

#include <algorithm>
#include <vector>

namespace harness {

size_t EditDistance(const std::string& a, const std::string& b) {
  // Three rows of the table: two letters swapped ("suiet" for "suite") is
  // one edit, as a typist makes it.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    before.swap(prev);
    prev.swap(row);
  }
  return prev[b.size()];
}

std::string ClosestName(const std::string& word, const std::vector<std::string>& names) {
  if (word.empty()) return "";
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& name : names) {
    if (name == word) return name;
    size_t d = EditDistance(word, name);
    // A prefix of a longer name ("--conf" for "--confirm-rounds") is as good
    // as a one-letter typo.
    if (word.size() >= 3 && name.rfind(word, 0) == 0) d = std::min<size_t>(d, 1);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

std::string DidYouMean(const std::string& word, const std::vector<std::string>& names) {
  const std::string best = ClosestName(word, names);
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

}  // namespace harness
