// A scenario's mean iteration time on both engines (SimGrid at flow fidelity, analytical), for the
// tests that hold the engines to each other or to a closed form.
#pragma once

#include "core/plan/compiler.hpp"
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
  out.simgrid = compute_job_metrics(plan, records, RunInfo{"simgrid", "flow", 0}).front().iteration_time.mean;
  out.analytical = run_analytical(s).front().iteration_time.mean;
  return out;
}

}  // namespace dtsim::test
