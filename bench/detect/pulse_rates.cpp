// How often `history`'s change-point search finds a pulse (a slowdown that
// lasted a few runs and was then fixed) at both of its edges, and how often
// it finds anything in a series that never changed, on synthetic series of
// one value per run with log-normal spread. Deterministic (fixed seed); it
// reports the rates and asserts nothing (bench/README.md has the figures).
//
//   build/pulse_rates [--runs N] [--pulse K] [--factor F] [--sigma S]
//                     [--series M] [--odd] [--step G]
//
// Defaults: 12 runs, a 4-run pulse at 2x starting at run 5, spread 0.15 (the
// standard deviation of the logs), 2,000 series each. --odd adds to every
// series one clean run at the pulse's level, at a random place beside it
// (a run just after the fix that still ran slow, a busy moment); one
// right beside the pulse makes it a run longer, and is counted so. --step
// moves every run after the pulse to G times the level before it, in the
// pulse series and in the others (which then hold one real change point, a
// step, and "two or more" counts the false ones).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "detect/changepoint.h"

namespace {

struct Options {
  size_t runs = 12, pulse = 4;
  double factor = 2, sigma = 0.15, step = 1;
  int series = 2000;
  bool odd = false;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "pulse_rates: %s\nusage: pulse_rates [--runs N] [--pulse K] [--factor F] "
               "[--sigma S] [--series M] [--odd] [--step G]\n",
               why);
  std::exit(2);
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--odd") {
      o.odd = true;
      continue;
    }
    if (i + 1 >= argc) Usage(("missing value after " + a).c_str());
    const char* v = argv[++i];
    if (a == "--runs") o.runs = std::strtoul(v, nullptr, 10);
    else if (a == "--pulse") o.pulse = std::strtoul(v, nullptr, 10);
    else if (a == "--factor") o.factor = std::strtod(v, nullptr);
    else if (a == "--sigma") o.sigma = std::strtod(v, nullptr);
    else if (a == "--series") o.series = std::atoi(v);
    else if (a == "--step") o.step = std::strtod(v, nullptr);
    else Usage(("unknown option " + a).c_str());
  }
  // The pulse sits after a third of the runs; both sides need three runs.
  if (o.runs < o.pulse + 6 || o.pulse < 1 || o.factor <= 0 || o.sigma < 0 || o.series < 1 ||
      o.step <= 0) {
    Usage("need --runs >= --pulse + 6, --pulse >= 1, --factor > 0, --sigma >= 0, --series >= 1, "
          "--step > 0");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  const size_t start = std::max<size_t>(3, (o.runs - o.pulse) / 2);
  const size_t stop = start + o.pulse;
  harness::ChangePointOptions cpo;
  cpo.log_scale = true;
  cpo.min_relative_shift = 0.05;  // as `history` judges wall time
  std::mt19937_64 rng(20261203);
  std::normal_distribution<double> noise(0, o.sigma);
  std::uniform_int_distribution<size_t> before(0, start - 1), after(stop, o.runs - 1);
  std::bernoulli_distribution side(0.5);
  int both = 0, any_pulse = 0, aa_any = 0, aa_two = 0;
  for (int m = 0; m < o.series; ++m) {
    std::vector<double> shifted(o.runs), flat(o.runs);
    for (size_t i = 0; i < o.runs; ++i) {
      flat[i] = noise(rng) + (i >= stop ? std::log(o.step) : 0);
      shifted[i] = flat[i] + (i >= start && i < stop ? std::log(o.factor) : 0);
    }
    size_t odd = o.runs;
    if (o.odd) {
      odd = side(rng) ? before(rng) : after(rng);
      shifted[odd] += std::log(o.factor);
      flat[odd] += std::log(o.factor);
    }
    const auto found = harness::DetectChangePoints(shifted, cpo);
    // An odd run right beside the pulse is one more run at its level: the
    // pulse then starts a run early or ends a run late, and is found so.
    const size_t rise = odd + 1 == start ? odd : start, fall = odd == stop ? stop + 1 : stop;
    bool in = false, back = false;
    for (const auto& cp : found) {
      in = in || cp.index == rise;
      back = back || cp.index == fall;
    }
    both += in && back ? 1 : 0;
    any_pulse += found.empty() ? 0 : 1;
    const auto aa = harness::DetectChangePoints(flat, cpo);
    aa_any += aa.empty() ? 0 : 1;
    aa_two += aa.size() >= 2 ? 1 : 0;
  }
  const double n = o.series;
  std::printf("%zu runs, a %zu-run pulse at x%g (runs %zu-%zu), spread %.3g, %d series%s",
              o.runs, o.pulse, o.factor, start + 1, stop, o.sigma, o.series,
              o.odd ? ", one clean run at the pulse's level beside it" : "");
  if (o.step != 1) std::printf(", the runs after it at x%g", o.step);
  std::printf("\n");
  std::printf("pulse found at both edges      %6.2f%%\n", 100 * both / n);
  std::printf("pulse series with any point    %6.2f%%\n", 100 * any_pulse / n);
  std::printf("unchanged: any change point    %6.2f%%\n", 100 * aa_any / n);
  std::printf("unchanged: two or more         %6.2f%%\n", 100 * aa_two / n);
  return 0;
}
