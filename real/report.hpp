// Merging what every rank reports (checks, counters, placement) on rank 0, and the text
// dtsim-real prints: the rank-to-host table and the result.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run/metrics.hpp"
#include "real/executor.hpp"

namespace dtsim::real {

nlohmann::json report_to_json(const RankReport& r);

struct RealSummary {
  nlohmann::json checks;  // metrics.json "checks"
  nlohmann::json ranks;   // metrics.json "real.ranks": host, role, device per rank
  bool exact = true;      // every check held and the workers' models agree
  double flops_planned = 0, flops_executed = 0, bytes_sent = 0;
  double flops_straggler = 0;                 // extra FLOPs the stragglers ran
  std::map<int, std::vector<int>> staleness;  // job -> measured staleness of every measured update
};

// `reports`: report_to_json of each rank in rank order; `mapping`: "host\trole\tnode\tlocal\tdevice".
RealSummary summarize_reports(const Plan& plan, const std::vector<std::string>& reports,
                              const std::vector<std::string>& mapping);

void print_mapping(std::ostream& os, const std::vector<std::string>& mapping);
void print_result(std::ostream& os, const std::vector<Metrics>& jobs, const RealSummary& summary);

}  // namespace dtsim::real
