// A served request's latencies from its steps' end times (serving_times.h).
#include "serving_times.h"

#include <algorithm>

#include "base/stats.h"

namespace suites {

std::vector<double> TokenGaps(const RequestRecord& rec, const std::vector<double>& step_end) {
  std::vector<double> gaps;
  for (size_t k = 1; k < rec.token_steps.size(); ++k) {
    gaps.push_back(step_end[rec.token_steps[k]] - step_end[rec.token_steps[k - 1]]);
  }
  return gaps;
}

RequestTimes TimesOf(const RequestRecord& rec, const ServingRequest& req,
                     const std::vector<double>& step_end) {
  RequestTimes t;
  if (rec.token_steps.empty()) return t;
  const double start = req.arrival_step == 0 ? 0.0 : step_end[req.arrival_step - 1];
  const double first = step_end[rec.token_steps.front()];
  t.ttft_us = first - start;
  const std::vector<double> gaps = TokenGaps(rec, step_end);
  if (gaps.empty()) return t;
  t.itl_us = (step_end[rec.token_steps.back()] - first) / static_cast<double>(gaps.size());
  t.itl_p50_us = harness::Median(gaps);
  t.itl_max_us = *std::max_element(gaps.begin(), gaps.end());
  return t;
}

}  // namespace suites
