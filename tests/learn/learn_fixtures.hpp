// Shared by the Learner tests: a small four-worker job with the proxy on, one analytical run of it
// with the Learner trained along, and exact comparisons of curves.
#pragma once

#include <string>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "learn/learner.hpp"
#include "sim/analytical/engine.hpp"

namespace dtsim::test {

// Four workers of a small synthetic model over 10 Gbps; softmax proxy on the synthetic task.
inline const char* const kLearnJob =
    "name: t\n"
    "model:\n  name: synthetic\n  synthetic: {params: 10e6, flops_per_sample: 2GFLOP, layers: 4}\n"
    "cluster:\n  nodes: 4\n  device: a100_40gb\n  nic: {rate: 10Gbps, latency: 5us}\n"
    "run:\n  iterations: 200\n  warmup: 0\n  engine: analytical\n"
    "  convergence: {enabled: true, eval_every: 5}\n";

struct LearnRun {
  Plan plan;
  std::vector<OpRecord> records;
  std::vector<learn::ConvergenceResult> results;
};

inline Scenario learn_scenario(const std::string& text, const std::vector<std::string>& sets) {
  return load_scenario_text(text, std::string(DTSIM_SOURCE_DIR) + "/tests/learn/x.yaml", sets);
}

inline LearnRun learn_run(const std::string& text, const std::vector<std::string>& sets) {
  const Scenario s = learn_scenario(text, sets);
  LearnRun r{compile_plan(s), {}, {}};
  Recorder rec;
  analytical::AnalyticalExecutor(s.cluster).run(r.plan, rec);
  r.records = rec.records();
  r.results = learn::train_jobs(s, r.plan, r.records, learn::load_split(s));
  return r;
}

inline const learn::ConvergenceResult& only(const LearnRun& r) { return r.results.front(); }

// The same losses and accuracies after the same updates (and, with `times`, at the same simulated times).
inline bool same_curve(const learn::ConvergenceResult& a, const learn::ConvergenceResult& b, bool times = true) {
  if (a.curve.size() != b.curve.size()) return false;
  for (size_t i = 0; i < a.curve.size(); ++i) {
    if (a.curve[i].loss != b.curve[i].loss || (times && a.curve[i].time_s != b.curve[i].time_s) ||
        a.curve[i].accuracy != b.curve[i].accuracy || a.curve[i].updates != b.curve[i].updates) {
      return false;
    }
  }
  return true;
}

}  // namespace dtsim::test
