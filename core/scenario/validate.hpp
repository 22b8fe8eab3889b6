// Checks across keys once a scenario is read, and resolution of its workload.
#pragma once

#include "core/scenario/scenario.hpp"

namespace dtsim {

// Throws InputError pointing at the key to change; fills each job's workload and defaults that depend on other keys.
void finish_scenario(Scenario& s);

// The `faults.*` checks of job `index` (core/scenario/fault_keys.cpp): loads faults.trace.
void finish_faults(const Scenario& s, size_t index, JobSpec& job);

// The `run.convergence.*` checks (core/scenario/convergence_keys.cpp): resolves and checks the data files.
void finish_convergence(Scenario& s);

}  // namespace dtsim
