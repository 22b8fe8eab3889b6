// A scenario's mean iteration time on both engines (SimGrid at flow fidelity, analytical), for the
// tests that hold the engines to each other or to a closed form.
#pragma once

#include "core/plan/compiler.hpp"
#include "models/cost/cost_model.hpp"
#include "tests/support/run_analytical.hpp"
#include "tests/support/simulate.hpp"

namespace dtsim::test {

struct BothEngines {
  double simgrid = 0;
  double analytical = 0;
};

inline BothEngines iteration_on_both(const Scenario& s) {
  const Plan plan = compile_plan(s);
  BothEngines out;
  const auto records = simulate(s.cluster, plan, Fidelity::Flow).records;
  const RunInfo info{"simgrid", "flow", 0, cost::CostModel(s.cluster, plan).composite_timings()};
  out.simgrid = compute_job_metrics(plan, records, info).front().iteration_time.mean;
  out.analytical = run_analytical(s).front().iteration_time.mean;
  return out;
}

}  // namespace dtsim::test
