// Shared test inputs: a real run of scenarios/quickstart.yaml made with `dtsim run` (once per
// test process, in its own folder), the sample sweep, hybrid run and tune, and generators of a
// random trace and of a pipeline trace.
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

// A hybrid run (tensor 2 x pipeline 2 x data 2, 4 micro-batches, full recompute) made by
// `dtsim run tests/gui/data/hybrid_tiny.yaml --out tests/gui/data/hybrid`.
inline std::string sample_hybrid() { return DTSIM_SOURCE_DIR "/tests/gui/data/hybrid"; }

// A tune of GPT-3 175B on its 64 GPUs: `dtsim tune scenarios/gpt3_175b_megatron.yaml --screen 8 --top 1
// --out tests/gui/data/tune` (its pareto.svg and pareto.png left out).
inline std::string sample_tune() { return DTSIM_SOURCE_DIR "/tests/gui/data/tune"; }

// A pipeline trace as dtsim writes one: a process per stage ("pipeline stage S"), `ranks_per_stage`
// ranks each with a compute and a comm lane; each rank runs forward then backward of `micro_batches`
// micro-batches (two ops each, a tensor-parallel all-reduce between them) and a gradient
// all-reduce without a micro-batch on its comm lane.
inline std::string pipeline_trace_text(int stages, int ranks_per_stage, int micro_batches) {
  std::string out = "{\"traceEvents\":[";
  bool first = true;
  auto add = [&](const std::string& e) {
    out += first ? "" : ",";
    first = false;
    out += e;
  };
  for (int s = 0; s < stages; ++s) {
    add("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(s) +
        ",\"args\":{\"name\":\"pipeline stage " + std::to_string(s) + "\"}}");
    for (int k = 0; k < ranks_per_stage; ++k) {
      const int rank = s * ranks_per_stage + k;
      const std::string args_tail = ",\"stage\":" + std::to_string(s);
      double t = 100.0 * s;
      auto op = [&](const std::string& name, const char* cat, const char* kind, int tid, double dur, int mb) {
        add("{\"name\":\"" + name + "\",\"cat\":\"" + cat + "\",\"ph\":\"X\",\"ts\":" + std::to_string(t) +
            ",\"dur\":" + std::to_string(dur) + ",\"pid\":" + std::to_string(s) + ",\"tid\":" + std::to_string(tid) +
            ",\"args\":{\"rank\":" + std::to_string(rank) + ",\"iteration\":0,\"kind\":\"" + kind + "\"" + args_tail +
            (mb >= 0 ? ",\"micro_batch\":" + std::to_string(mb) : std::string()) + "}}");
        t += dur;
      };
      for (const char* pass : {"fwd", "bwd"}) {
        const bool fwd = pass[0] == 'f';
        for (int mb = 0; mb < micro_batches; ++mb) {
          const std::string suffix = " mb" + std::to_string(mb);
          op(std::string(pass) + " L0 qkv" + suffix, fwd ? "forward" : "backward", "compute", 2 * rank, 40, mb);
          op(std::string(pass) + " L0 allreduce" + suffix, "communication", "allreduce", 2 * rank, 10, mb);
          op(std::string(pass) + " L0 fc1" + suffix, fwd ? "forward" : "backward", "compute", 2 * rank, 40, mb);
        }
      }
      op("data grads L0-L0", "communication", "allreduce", 2 * rank + 1, 200, -1);
    }
  }
  return out + "]}";
}

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
