// Close-match suggestions: a typist's slips, swapped letters included.
#include "base/suggest.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(SuggestTest, TwoSwappedLettersAreOneEdit) {
  EXPECT_EQ(EditDistance("suiet", "suite"), 1u);
  EXPECT_EQ(EditDistance("suiet", "quiet"), 1u);
  EXPECT_EQ(EditDistance("abc", "abc"), 0u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("ca", "abc"), 3u);  // no edit of a swapped pair again
}

TEST(SuggestTest, OfEquallyCloseNamesTheFirstWins) {
  EXPECT_EQ(ClosestName("--suiet", {"--suite", "--quiet"}), "--suite");
  EXPECT_EQ(ClosestName("--suiet", {"--quiet", "--suite"}), "--quiet");
  EXPECT_EQ(DidYouMean("smok", {"smoke", "decode"}), "; did you mean 'smoke'?");
}

}  // namespace
}  // namespace harness
