// Running the points of a sweep. SimGrid keeps process-wide state, so every SimGrid point runs
// in a forked child that sends its metrics back through a pipe; up to `jobs` children at once.
// Analytical points (microseconds each) run in this process unless jobs > 1. The Python module
// (python/) runs its SimGrid runs through the same pool, with a work of its own and a stop check.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/plan/plan.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/scenario.hpp"

namespace dtsim::sweep {

// More work on a finished point, in the process that simulated it, with every rank's records
// (the CLI's Learner adds each job's "convergence" section). With a hook, analytical points run
// every rank (no symmetric fast path).
using PointHook =
    std::function<void(const Scenario&, const Plan&, const std::vector<OpRecord>&, nlohmann::json& metrics)>;

// metrics.json of one point (run_metrics_json), computed in this process. SimGrid: once per process.
nlohmann::json simulate_point(const Scenario& s, const PointHook& hook = {});

// What a failed point does to the others: `Stop` launches no more and throws RuntimeError once the running
// children have finished (a sweep's table is of every point); `Report` hands the failure to `done` as
// failed_point(message) and goes on (a tune's rows are independent: one failed engine run is reported in its row).
enum class OnFailure { Stop, Report };

// A failed point's result under OnFailure::Report: {"failed": message}; point_failure reads it back (nullopt
// for metrics).
nlohmann::json failed_point(const std::string& message);
std::optional<std::string> point_failure(const nlohmann::json& result);

// Runs the points `pending` (indices into `scenarios`), calling `done` in this process as each
// finishes, in completion order. A failed point throws RuntimeError after the running children
// have finished (their results are still handed to `done`), or is handed to `done` (OnFailure::Report).
void run_points(const std::vector<Scenario>& scenarios, const std::vector<size_t>& pending, int jobs,
                const std::function<void(size_t index, const nlohmann::json& metrics)>& done,
                const PointHook& hook = {}, OnFailure on_failure = OnFailure::Stop);

// What one point computes (in a child for SimGrid points): any JSON, handed to `done`.
using PointWork = std::function<nlohmann::json(const Scenario&)>;
// Called in this process after each finished point and each interrupted wait (a signal): it throws
// to stop the points. The running children are then killed and reaped before the exception leaves
// run_points.
using StopCheck = std::function<void()>;

// run_points with `work` instead of simulate_point, and `stop` asked as the points go.
void run_points_with(const std::vector<Scenario>& scenarios, const std::vector<size_t>& pending, int jobs,
                     const std::function<void(size_t index, const nlohmann::json& result)>& done, const PointWork& work,
                     const StopCheck& stop, OnFailure on_failure = OnFailure::Stop);

}  // namespace dtsim::sweep
