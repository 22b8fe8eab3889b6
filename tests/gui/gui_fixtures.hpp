// Shared test inputs: a real run of scenarios/quickstart.yaml made with `dtsim run` (once per
// test process, in its own folder), the sample sweep, and a random trace generator.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <random>
#include <string>

#include "gui/model/trace_model.hpp"

namespace dtsim::test {

inline std::string quickstart_run() {
  static const std::string dir = [] {
    const std::string d = std::string(DTSIM_BINARY_DIR) + "/test-output/gui-quickstart-" + std::to_string(getpid());
    const std::string cmd = "cd '" DTSIM_SOURCE_DIR "' && rm -rf '" + d +
                            "' && '" DTSIM_BINARY_DIR "/bin/dtsim' run scenarios/quickstart.yaml --out '" + d +
                            "' >/dev/null";
    if (std::system(cmd.c_str()) != 0) return std::string();
    return d;
  }();
  return dir;
}

inline std::string sample_sweep() { return DTSIM_SOURCE_DIR "/tests/gui/data/sweep"; }

// A trace text with `lanes` lanes of `per_lane` ops of random kinds and lengths (a few overlap).
inline std::string random_trace_text(unsigned seed, int lanes, int per_lane) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> len(0, 50), gap(0, 20), big(0, 1);
  const char* kinds[] = {"compute", "allreduce", "send", "recv", "mystery"};
  std::string out = "{\"traceEvents\":[";
  bool first = true;
  for (int l = 0; l < lanes; ++l) {
    double t = 0;
    for (int i = 0; i < per_lane; ++i) {
      const double d = big(rng) < 0.05 ? len(rng) * 100 : (big(rng) < 0.1 ? 0.0 : len(rng));
      out += first ? "" : ",";
      first = false;
      out += "{\"name\":\"op" + std::to_string(i % 7) +
             "\",\"cat\":\"forward\",\"ph\":\"X\",\"ts\":" + std::to_string(t) + ",\"dur\":" + std::to_string(d) +
             ",\"pid\":" + std::to_string(l / 2) + ",\"tid\":" + std::to_string(l) +
             ",\"args\":{\"rank\":" + std::to_string(l) + ",\"iteration\":" + std::to_string(i / 10) + ",\"kind\":\"" +
             kinds[rng() % 5] + "\"}}";
      t += big(rng) < 0.1 ? d * 0.5 : d + gap(rng);  // sometimes overlap the previous op
    }
  }
  return out + "]}";
}

}  // namespace dtsim::test
