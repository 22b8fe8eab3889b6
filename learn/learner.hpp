// The Learner of a convergence-aware run (docs/architecture.md): after an engine has run the Plan, it replays
// each job's op records in simulated-time order and trains the proxy model along them: the
// gradients, compressed exchanges, stale pushes and pulls happen in the order the simulation
// produced them. It reads records only, so it can never change the timeline.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/scenario.hpp"
#include "learn/dataset.hpp"
#include "learn/training.hpp"

namespace dtsim::learn {

// Trains the proxy along job `job`'s records on `data` (load_dataset + split_dataset of the scenario's spec).
ConvergenceResult train_along(const Scenario& s, const Plan& plan, int job, const std::vector<OpRecord>& records,
                              const Split& data);
// The scenario's data set split into training and held-out samples (throws InputError for a bad file).
Split load_split(const Scenario& s);
// Every job of the scenario on `data`; empty when run.convergence.enabled is off.
std::vector<ConvergenceResult> train_jobs(const Scenario& s, const Plan& plan, const std::vector<OpRecord>& records,
                                          const Split& data);

// metrics.json's "convergence" section of one job.
nlohmann::json convergence_json(const Scenario& s, const ConvergenceResult& r);
// Puts each job's section in metrics.json (jobs[j].convergence, and job 0's at the top as "convergence"): the one
// writer of the block, for `dtsim run`, sweep points and the Python module.
void attach_convergence(const Scenario& s, const std::vector<ConvergenceResult>& results, nlohmann::json& metrics);
// With run.convergence on, trains every job along the run's records (on load_split's data) and attaches the results:
// a sweep point's hook (sim/sweep/point_runner.hpp), in the process that simulated it. Nothing otherwise.
void add_convergence(const Scenario& s, const Plan& plan, const std::vector<OpRecord>& records,
                     nlohmann::json& metrics);
// convergence.csv: job, updates, time_s, loss, accuracy (one line per evaluation).
std::string convergence_csv(const std::vector<ConvergenceResult>& results);

}  // namespace dtsim::learn
