#pragma once
// A served request's latencies from the end times of its trace's steps,
// torch-free: the serving kind reads them off the wall clock and the
// device's modeled clock, the timing kind's serving traces off the cost
// model alone.
//
//   RequestTimes t = TimesOf(scheduler.record(i), trace[i], step_end_us);
//   t.ttft_us;  t.itl_us;  t.itl_p50_us;  t.itl_max_us
//
// step_end[s] is the time from the start of the trace to the end of step s.
// A request's time to first token runs from the start of its arrival step
// (the end of the step before it, 0 for step 0) to the end of the step that
// yielded its first token; its gaps are the times between the ends of the
// steps that yielded two consecutive tokens. A request of one token has no
// gaps (NaN), one that yielded nothing no times at all.
#include <cmath>
#include <vector>

#include "serving_scheduler.h"

namespace suites {

struct RequestTimes {
  double ttft_us = std::nan("");
  double itl_us = std::nan("");      // the mean gap: first to last token, per token after the first
  double itl_p50_us = std::nan("");  // the median gap
  double itl_max_us = std::nan("");  // the longest gap
};

RequestTimes TimesOf(const RequestRecord& rec, const ServingRequest& req,
                     const std::vector<double>& step_end);

// The gaps between the request's consecutive tokens, in order.
std::vector<double> TokenGaps(const RequestRecord& rec, const std::vector<double>& step_end);

}  // namespace suites
