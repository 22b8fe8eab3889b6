// Runs a scenario on the analytical engine (every rank evaluated) and returns each job's metrics.
#pragma once

#include <vector>

#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/scenario/scenario.hpp"
#include "sim/analytical/engine.hpp"

namespace dtsim::test {

inline std::vector<Metrics> run_analytical(const Scenario& s) {
  const Plan plan = compile_plan(s);
  Recorder rec;
  analytical::AnalyticalExecutor engine(s.cluster);
  const RunInfo info = engine.run(plan, rec);
  return compute_job_metrics(plan, rec.records(), info);
}

}  // namespace dtsim::test
