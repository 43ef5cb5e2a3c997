// A worker whose cases do nothing: what remains is the harness's own cost.
#include "harness/runner/worker_loop.h"

int main() {
  return harness::ServeWorker(harness::kWorkerRequestFd, harness::kWorkerResultFd, 1,
                              [](const std::string& suite, const std::string& id, bool /*timed*/,
                                 bool /*judged*/) {
                                harness::CaseResult r;
                                r.suite = suite;
                                r.case_id = id;
                                r.status = harness::CaseStatus::kPassed;
                                r.wall_us = {1, 2, 3, 4, 5};
                                r.metrics.assign(8, {"out0", "max_ulp", 1, 2, false});
                                r.ops = {{"mm", 1, 1, 1, 0}, {"add", 1, 1, 1, 0},
                                         {"_softmax", 1, 1, 1, 0}, {"gelu", 1, 1, 1, 0}};
                                return r;
                              });
}
