#pragma once
// The execution options of a model-kind test: the given suites and golden
// directories, no warm-up, one repeat.
#include <string>

#include "harness/case_kinds/case_kinds.h"

namespace spyre_test {

inline harness::ExecOptions QuickOptions(const std::string& suites, const std::string& golden) {
  harness::ExecOptions o;
  o.suites_dir = suites;
  o.golden_dir = golden;
  o.warmup = 0;
  o.repeat = 1;
  return o;
}

}  // namespace spyre_test
