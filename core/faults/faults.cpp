// The pure math of failures and checkpoints, and failure traces.
#include "core/faults/faults.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/base/available_memory.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"

namespace dtsim {

double checkpoint_bytes(double params, double optimizer_states) { return params * 4.0 * (1.0 + optimizer_states); }

double young_daly_interval(double checkpoint_cost_s, double mtbf_s) {
  return std::sqrt(2.0 * checkpoint_cost_s * mtbf_s);
}

double young_daly_waste(double checkpoint_cost_s, double interval_s, double mtbf_s, double restart_s) {
  return checkpoint_cost_s / interval_s + interval_s / (2.0 * mtbf_s) + restart_s / mtbf_s;
}

// Bytes held per byte of a failure trace (its times, grown by doubling): measured 1.10 on 8e6 lines of 7.9 B
// (docs/PERFORMANCE.md).
constexpr double kBytesPerTraceByte = 1.1;

std::vector<double> load_failure_trace(const std::string& path) {
  refuse_if_too_big_to_read(path, "the failure trace", kBytesPerTraceByte, "failure trace");
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path}, fmt::format("cannot read the failure trace '{}'", path));
  std::vector<double> times;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = line.substr(0, line.find('#'));
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    const std::string text = line.substr(first, last - first + 1);
    double t = 0;
    try {
      const bool bare = text.find_first_not_of("0123456789.eE+-") == std::string::npos;
      t = bare ? parse_quantity(text, Quantity::Number) : parse_quantity(text, Quantity::Time);
    } catch (const InputError&) {
      throw InputError(SourceLocation{path, n, static_cast<int>(first) + 1},
                       fmt::format("'{}' is not a failure time (use seconds or e.g. 3.5h)", text));
    }
    if (t < 0) {
      throw InputError(SourceLocation{path, n, static_cast<int>(first) + 1},
                       fmt::format("failure time '{}' is negative", text));
    }
    times.push_back(t);
  }
  std::sort(times.begin(), times.end());
  return times;
}

nlohmann::json fault_report_json(const FaultReport& r) {
  return nlohmann::json{{"recovery", r.recovery},
                        {"scope", r.scope},
                        {"trials", r.trials},
                        {"horizon_s", r.horizon_s},
                        {"job_mtbf_s", r.job_mtbf_s},
                        {"checkpoint_bytes", r.checkpoint_bytes},
                        {"checkpoint_cost_s", r.checkpoint_cost_s},
                        {"checkpoint_interval_s", r.checkpoint_interval_s},
                        {"checkpoint_interval_iterations", r.checkpoint_interval_iterations},
                        {"young_daly_interval_s", r.young_daly_interval_s},
                        {"throughput_samples_per_s", r.throughput},
                        {"goodput_samples_per_s", r.goodput},
                        {"failures", r.failures},
                        {"useful_s", r.useful_s},
                        {"lost_s",
                         {{"checkpoint", r.checkpoint_s},
                          {"lost_work", r.lost_work_s},
                          {"detection", r.detection_s},
                          {"restart", r.restart_s},
                          {"no_workers", r.idle_s}}},
                        {"workers_at_end", r.workers_at_end}};
}

}  // namespace dtsim
