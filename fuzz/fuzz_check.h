#pragma once
// FUZZ_CHECK(cond, what): an invariant of a fuzz entry function. A violation
// prints what was violated and aborts, which libFuzzer reports as a crash
// (saving the input) and the seed runner reports as a failed test.
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, what)                                                      \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: invariant violated: %s (%s)\n", __FILE__, __LINE__, \
                   #cond, std::string(what).c_str());                               \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)
