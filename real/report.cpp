// Checks merged across ranks by (job, op): exact when no element on any rank in any iteration
// missed its exact value, and every worker of a job ends with the same model.
#include "real/report.hpp"

#include <map>

#include <fmt/format.h>

#include "core/base/units.hpp"

namespace dtsim::real {

namespace {

// The five tab-separated fields of a rank's mapping line: host, role, node, local, device.
std::vector<std::string> mapping_fields(const std::string& line) {
  std::vector<std::string> f;
  size_t at = 0;
  for (size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1)
    f.push_back(line.substr(at, tab - at));
  f.push_back(line.substr(at));
  f.resize(5);
  return f;
}

}  // namespace

nlohmann::json report_to_json(const RankReport& r) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : r.checks) {
    checks.push_back({{"op", c.op},
                      {"kind", c.kind},
                      {"algorithm", c.algorithm},
                      {"elements", c.elements},
                      {"checked", c.checked},
                      {"mismatched", c.mismatched},
                      {"iterations", c.iterations},
                      {"checksum", c.checksum},
                      {"expected", c.expected}});
  }
  return {{"checks", checks},
          {"model_hash", r.model_hash},
          {"flops_planned", r.flops_planned},
          {"flops_executed", r.flops_executed},
          {"elements_sent", r.elements_sent},
          {"flops_straggler", r.flops_straggler},
          {"staleness", r.staleness}};
}

RealSummary summarize_reports(const Plan& plan, const std::vector<std::string>& reports,
                              const std::vector<std::string>& mapping) {
  RealSummary s;
  std::map<std::pair<int, std::string>, nlohmann::json> merged;
  std::vector<std::pair<int, std::string>> order;
  std::map<int, std::vector<std::uint64_t>> hashes;
  for (size_t rank = 0; rank < reports.size(); ++rank) {
    const auto r = nlohmann::json::parse(reports[rank]);
    const RankProgram& prog = plan.ranks[rank];
    s.flops_planned += r["flops_planned"].get<double>();
    s.flops_executed += r["flops_executed"].get<double>();
    s.bytes_sent += 4.0 * r["elements_sent"].get<double>();
    s.flops_straggler += r["flops_straggler"].get<double>();
    for (const auto& v : r["staleness"]) s.staleness[prog.job].push_back(v.get<int>());
    if (prog.role == Role::Worker) hashes[prog.job].push_back(r["model_hash"].get<std::uint64_t>());
    for (const auto& c : r["checks"]) {
      const auto key = std::make_pair(prog.job, c["op"].get<std::string>() + "/" + c["kind"].get<std::string>());
      auto [it, fresh] = merged.try_emplace(key);
      nlohmann::json& m = it->second;
      if (fresh) {
        order.push_back(key);
        m = {{"job", plan.jobs[prog.job].name},
             {"op", c["op"]},
             {"kind", c["kind"]},
             {"algorithm", c["algorithm"]},
             {"elements", c["elements"]},
             {"ranks", 0},
             {"iterations", c["iterations"]},
             {"checked_elements", 0},
             {"mismatched_elements", 0},
             {"checksum", 0.0},
             {"expected_checksum", 0.0}};
      }
      m["ranks"] = m["ranks"].get<int>() + 1;
      m["checked_elements"] = m["checked_elements"].get<std::int64_t>() + c["checked"].get<std::int64_t>();
      m["mismatched_elements"] = m["mismatched_elements"].get<std::int64_t>() + c["mismatched"].get<std::int64_t>();
      m["checksum"] = m["checksum"].get<double>() + c["checksum"].get<double>();
      m["expected_checksum"] = m["expected_checksum"].get<double>() + c["expected"].get<double>();
      if (c["mismatched"].get<std::int64_t>() != 0) s.exact = false;
    }
  }
  nlohmann::json collectives = nlohmann::json::array();
  for (const auto& key : order) collectives.push_back(merged[key]);
  nlohmann::json models = nlohmann::json::array();
  for (const auto& [job, list] : hashes) {
    bool agree = true;
    for (auto h : list) agree = agree && h == list.front();
    // Asynchronous workers end with the parameters of their own last pull: they need not agree
    // (the servers' shards are checked instead).
    const bool asynchronous = plan.jobs[job].asynchronous;
    if (!agree && !asynchronous) s.exact = false;
    models.push_back({{"job", plan.jobs[job].name},
                      {"hash", fmt::format("{:016x}", list.front())},
                      {"workers", list.size()},
                      {"workers_agree", agree},
                      {"agreement_required", !asynchronous}});
  }
  s.checks = {{"exact", s.exact},
              {"note",
               "checksums: the last iteration's sum over ranks of the checked elements; values are "
               "integer-valued floats so every sum is exact"},
              {"collectives", collectives},
              {"models", models}};
  s.ranks = nlohmann::json::array();
  for (size_t rank = 0; rank < mapping.size(); ++rank) {
    const std::vector<std::string> f = mapping_fields(mapping[rank]);
    s.ranks.push_back({{"rank", rank},
                       {"host", f[0]},
                       {"role", f[1]},
                       {"node", std::stoi(f[2])},
                       {"local", std::stoi(f[3])},
                       {"device", f[4]}});
  }
  return s;
}

void print_mapping(std::ostream& os, const std::vector<std::string>& mapping) {
  os << fmt::format("  {:>5}  {:<20} {:<7} {:>5} {:>6}  {}\n", "rank", "host", "role", "node", "local", "device");
  for (size_t rank = 0; rank < mapping.size(); ++rank) {
    const std::vector<std::string> f = mapping_fields(mapping[rank]);
    os << fmt::format("  {:>5}  {:<20} {:<7} {:>5} {:>6}  {}\n", rank, f[0], f[1], f[2], f[3], f[4]);
  }
}

void print_result(std::ostream& os, const std::vector<Metrics>& jobs, const RealSummary& summary) {
  for (const Metrics& m : jobs) {
    os << fmt::format(
        "  job {}: iteration time mean {} (p50 {}, p95 {}), {:.1f} samples/s, compute {:.1f} %, "
        "exposed comm {:.1f} %, waiting {:.1f} %\n",
        m.job, format_time(m.iteration_time.mean), format_time(m.iteration_time.p50), format_time(m.iteration_time.p95),
        m.throughput_samples_per_s, 100 * m.compute_fraction, 100 * m.exposed_comm_fraction, 100 * m.wait_fraction);
  }
  os << fmt::format("  FLOPs executed {:.4g} of {:.4g} planned; {} sent\n", summary.flops_executed,
                    summary.flops_planned, format_bytes(summary.bytes_sent));
  int checks = 0;
  for (const auto& c : summary.checks["collectives"]) {
    if (c["checked_elements"].get<std::int64_t>() > 0) checks += c["ranks"].get<int>() * c["iterations"].get<int>();
  }
  std::string models = "agree";
  for (const auto& m : summary.checks["models"]) {
    if (m["workers_agree"] == true) continue;
    models = m["agreement_required"] == true ? "DIFFER" : "differ, as asynchronous workers' may";
  }
  os << fmt::format("  checks: {} ({} collective results checked element by element; workers' models {})\n",
                    summary.exact ? "exact" : "FAILED", checks, models);
}

}  // namespace dtsim::real
