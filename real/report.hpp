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
  // metrics.json "real.memory" (hybrid jobs): per rank, the plan buffers' measured peak and the
  // memory model's prediction for its stage, by category
  nlohmann::json memory = nlohmann::json::array();
  bool exact = true;  // every check held and the workers' models agree
  double flops_planned = 0, flops_executed = 0, bytes_sent = 0;
  double flops_straggler = 0;                 // extra FLOPs the stragglers ran
  std::map<int, std::vector<int>> staleness;  // job -> measured staleness of every measured update
};

// `reports`: report_to_json of each rank in rank order; `mapping`: "host\trole\tnode\tlocal\tdevice".
RealSummary summarize_reports(const Plan& plan, const std::vector<std::string>& reports,
                              const std::vector<std::string>& mapping);

// A hybrid plan's stage-to-stage sends start, as the engines time them, when both sides are there:
// each send's record starts no earlier than its matching receive's (same peers, tag and iteration),
// which starts when the message has arrived (cpu_ops.cpp await_message). The wait for the receiver
// before is the sender's, not communication. Records of other plans are left as measured.
void start_sends_at_rendezvous(const Plan& plan, std::vector<OpRecord>& records);

void print_mapping(std::ostream& os, const std::vector<std::string>& mapping);
void print_result(std::ostream& os, const std::vector<Metrics>& jobs, const RealSummary& summary);

}  // namespace dtsim::real
