// How steady this machine's cores are: one thread pinned to each core runs the GEMMs dtsim-real
// runs for an op of --flops FLOPs (real/gemm.hpp, the same Eigen product) for --seconds, and
// reports per core the mean op time of every second, then how far those per-second means stray.
// A validation error smaller than this spread cannot be told apart from the machine's drift
// (docs/VALIDATION.md, which bench/validation/run_suite opens with it).
//   build/bin/bench_steadiness [--seconds 10] [--flops 1e7] [--json]
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "real/cpu/eigen_gemms.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// The mean op time (s) of each whole second, on core `core`.
std::vector<double> run_core(int core, int seconds, double flops) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  dtsim::real::EigenGemms gemms(dtsim::real::kMaxGemmDim);
  const auto shapes = dtsim::real::gemm_shapes(flops, dtsim::real::kMaxGemmDim);
  std::vector<double> means;
  for (int s = 0; s < seconds; ++s) {
    const auto start = Clock::now();
    long ops = 0;
    while (Clock::now() - start < std::chrono::seconds(1)) {
      gemms.run(shapes);
      ++ops;
    }
    means.push_back(std::chrono::duration<double>(Clock::now() - start).count() / static_cast<double>(ops));
  }
  return means;
}

double arg(int argc, char** argv, const char* name, double fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atof(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int seconds = std::max(2, static_cast<int>(arg(argc, argv, "--seconds", 10)));
  const double flops = arg(argc, argv, "--flops", 1e7);
  const bool json = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::strcmp(a, "--json") == 0; });
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::vector<double>> means(static_cast<size_t>(cores));
  std::vector<std::thread> threads;
  for (int c = 0; c < cores; ++c) {
    threads.emplace_back([&, c] { means[static_cast<size_t>(c)] = run_core(c, seconds, flops); });
  }
  for (auto& t : threads) t.join();
  // Per core: mean, smallest and largest per-second mean, and the spread (largest - smallest) / mean.
  double worst_spread = 0, spread_sum = 0, cv_sum = 0;
  std::string rows;
  for (int c = 0; c < cores; ++c) {
    const auto& m = means[static_cast<size_t>(c)];
    const double mean = std::accumulate(m.begin(), m.end(), 0.0) / static_cast<double>(m.size());
    double var = 0;
    for (double x : m) var += (x - mean) * (x - mean);
    const double cv = std::sqrt(var / static_cast<double>(m.size() - 1)) / mean;
    const auto [lo, hi] = std::minmax_element(m.begin(), m.end());
    const double spread = (*hi - *lo) / mean;
    worst_spread = std::max(worst_spread, spread);
    spread_sum += spread;
    cv_sum += cv;
    char line[256];
    std::snprintf(line, sizeof(line),
                  json ? "%s{\"core\": %d, \"mean_s\": %.9g, \"min_s\": %.9g, \"max_s\": %.9g, \"cv\": %.6g}"
                       : "%s  core %2d  mean %8.1f us  per second %8.1f to %8.1f us  sd %5.1f %%\n",
                  json && c > 0 ? ", " : "", c, json ? mean : mean * 1e6, json ? *lo : *lo * 1e6,
                  json ? *hi : *hi * 1e6, json ? cv : cv * 100);
    rows += line;
  }
  if (json) {
    std::printf(
        "{\"seconds\": %d, \"flops\": %.6g, \"cores\": [%s], \"mean_cv\": %.6g, \"mean_spread\": %.6g, "
        "\"worst_spread\": %.6g}\n",
        seconds, flops, rows.c_str(), cv_sum / cores, spread_sum / cores, worst_spread);
  } else {
    std::printf("GEMM ops of %.3g FLOPs, one thread pinned per core, %d s: mean op time of each second\n%s", flops,
                seconds, rows.c_str());
    std::printf("second-to-second standard deviation: %.1f %% (mean over cores); largest spread %.1f %%\n",
                100 * cv_sum / cores, 100 * worst_spread);
  }
  return 0;
}
