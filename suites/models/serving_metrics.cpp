// Latency and KV metrics of a serving trace (serving_metrics.h).
#include "serving_metrics.h"

#include <algorithm>

#include "decode_verdict.h"
#include "kv_blocks.h"

namespace suites {
namespace {

using harness::CaseResult;

std::vector<double> CumulativeModeledUs(const std::vector<DeviceProfile>& steps) {
  std::vector<double> out;
  double total = 0;
  for (const DeviceProfile& p : steps) out.push_back(total += p.modeled_us);
  return out;
}

double MeanOf(const std::vector<double>& v) {
  double sum = 0;
  int64_t n = 0;
  for (const double x : v) {
    if (std::isnan(x)) continue;
    sum += x;
    ++n;
  }
  return n == 0 ? std::nan("") : sum / static_cast<double>(n);
}

int64_t TokenCount(const ServingRun& run) {
  int64_t n = 0;
  for (const RequestRecord& rec : run.records) n += static_cast<int64_t>(rec.tokens.size());
  return n;
}

}  // namespace

ServingLatency MeasureLatency(const ServingCase& sc, const std::vector<ServingRun>& timed,
                              const ServingRun& profiled) {
  ServingLatency l;
  const std::vector<double> modeled_end = CumulativeModeledUs(profiled.step_profiles);
  std::vector<double> tps;
  for (size_t r = 0; r < sc.requests.size(); ++r) {
    std::vector<double> ttft, itl;
    for (const ServingRun& run : timed) {
      const RequestTimes t = TimesOf(run.records[r], sc.requests[r], run.step_end_us);
      ttft.push_back(t.ttft_us);
      itl.push_back(t.itl_us);
    }
    RequestTimes median;
    median.ttft_us = Median(ttft);
    itl.erase(std::remove_if(itl.begin(), itl.end(), [](double x) { return std::isnan(x); }),
              itl.end());
    median.itl_us = Median(itl);  // NaN for a request of one token
    l.wall.push_back(median);
    l.modeled.push_back(TimesOf(profiled.records[r], sc.requests[r], modeled_end));
    const std::vector<int64_t>& steps = profiled.records[r].token_steps;
    l.first_token_step.push_back(steps.empty() ? -1 : steps.front());
  }
  for (const ServingRun& run : timed) {
    tps.push_back(static_cast<double>(TokenCount(run)) / (run.wall_us * 1e-6));
  }
  l.tokens_per_s = Median(tps);
  if (!modeled_end.empty() && modeled_end.back() > 0) {
    l.modeled_tokens_per_s =
        static_cast<double>(TokenCount(profiled)) / (modeled_end.back() * 1e-6);
  }
  return l;
}

void AddServingLatencyMetrics(const ServingCase& sc, const ServingLatency& l, CaseResult* r) {
  std::vector<double> ttft, itl, mttft, mitl;
  for (size_t i = 0; i < sc.requests.size(); ++i) {
    const std::string& id = sc.requests[i].id;
    AddMetric(r, "latency", id + ".ttft_us", l.wall[i].ttft_us);
    AddMetric(r, "latency", id + ".itl_us", l.wall[i].itl_us);
    AddMetric(r, "latency", id + ".modeled_ttft_us", l.modeled[i].ttft_us);
    AddMetric(r, "latency", id + ".modeled_itl_us", l.modeled[i].itl_us);
    AddMetric(r, "latency", id + ".first_token_step", static_cast<double>(l.first_token_step[i]));
    ttft.push_back(l.wall[i].ttft_us);
    itl.push_back(l.wall[i].itl_us);
    mttft.push_back(l.modeled[i].ttft_us);
    mitl.push_back(l.modeled[i].itl_us);
  }
  AddMetric(r, "latency", "ttft_us", MeanOf(ttft));
  AddMetric(r, "latency", "itl_us", MeanOf(itl));
  AddMetric(r, "latency", "tokens_per_s", l.tokens_per_s);
  AddMetric(r, "latency", "modeled_ttft_us", MeanOf(mttft));
  AddMetric(r, "latency", "modeled_itl_us", MeanOf(mitl));
  AddMetric(r, "latency", "modeled_tokens_per_s", l.modeled_tokens_per_s);
}

void AddKvMetrics(const ServingCase& sc, const ServingRun& run, CaseResult* r) {
  KvBlockShape shape;
  shape.layers = sc.model.config.layers;
  shape.kv_heads = sc.model.config.kv_heads;
  shape.head_dim = sc.model.config.head_dim();
  shape.block_size = sc.limits.block_size;
  shape.elem_bytes = sc.model.dtype == at::kFloat ? 4 : 2;
  std::vector<double> in_use(run.blocks_in_use.begin(), run.blocks_in_use.end());
  AddMetric(r, "kv", "kv_blocks_peak", static_cast<double>(run.peak_blocks));
  AddMetric(r, "kv", "kv_blocks_mean", MeanOf(in_use));
  AddMetric(r, "kv", "kv_peak_bytes", static_cast<double>(run.peak_blocks * KvBlockBytes(shape)));
}

}  // namespace suites
