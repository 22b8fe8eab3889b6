// Checks merged across ranks by (job, op): exact when no element on any rank in any iteration
// missed its exact value, and every worker of a job ends with the same model.
#include "real/report.hpp"

#include <map>
#include <tuple>

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
          {"replica_group", r.replica_group},
          {"agreement_required", r.agreement_required},
          {"memory_peak_bytes", r.memory_peak},
          {"memory_at_peak", r.memory_at_peak},
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
  // job -> replica group -> the parameters' hashes of its workers
  std::map<int, std::map<int, std::vector<std::uint64_t>>> hashes;
  std::map<int, bool> required;  // job -> whether its replicas must agree
  for (size_t rank = 0; rank < reports.size(); ++rank) {
    const auto r = nlohmann::json::parse(reports[rank]);
    const RankProgram& prog = plan.ranks[rank];
    s.flops_planned += r["flops_planned"].get<double>();
    s.flops_executed += r["flops_executed"].get<double>();
    s.bytes_sent += 4.0 * r["elements_sent"].get<double>();
    s.flops_straggler += r["flops_straggler"].get<double>();
    for (const auto& v : r["staleness"]) s.staleness[prog.job].push_back(v.get<int>());
    const auto& stages = plan.jobs[prog.job].memory;
    if (prog.stage >= 0 && static_cast<size_t>(prog.stage) < stages.size() && r.contains("memory_peak_bytes")) {
      const MemoryBreakdown& predicted = stages[static_cast<size_t>(prog.stage)].bytes;
      const auto& at = r["memory_at_peak"];
      s.memory.push_back({{"rank", rank},
                          {"stage", prog.stage},
                          {"measured_peak_bytes", r["memory_peak_bytes"]},
                          {"predicted_peak_bytes", predicted.total()},
                          {"measured_at_peak",
                           {{"parameters_bytes", at[0]},
                            {"gradients_bytes", at[1]},
                            {"activations_bytes", at[2]},
                            {"communication_bytes", at[3]}}},
                          {"predicted",
                           {{"parameters_bytes", predicted.parameters},
                            {"gradients_bytes", predicted.gradients},
                            {"optimizer_bytes", predicted.optimizer},
                            {"activations_bytes", predicted.activations},
                            {"communication_bytes", predicted.communication}}}});
    }
    if (prog.role == Role::Worker) {
      hashes[prog.job][r.value("replica_group", -1)].push_back(r["model_hash"].get<std::uint64_t>());
      required.try_emplace(prog.job, true);
      required[prog.job] = required[prog.job] && r.value("agreement_required", true);
    }
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
  for (const auto& [job, groups] : hashes) {
    bool agree = true;
    size_t workers = 0;
    for (const auto& [group, list] : groups) {
      for (auto h : list) agree = agree && h == list.front();
      workers += list.size();
    }
    // Asynchronous workers end with the parameters of their own last pull: they need not agree
    // (the servers' shards are checked instead). Under ZeRO each rank steps its own shard.
    const bool asynchronous = plan.jobs[job].asynchronous;
    const bool must = !asynchronous && required[job];
    if (!agree && must) s.exact = false;
    nlohmann::json entry = {{"job", plan.jobs[job].name},
                            {"hash", fmt::format("{:016x}", groups.begin()->second.front())},
                            {"workers", workers},
                            {"workers_agree", agree},
                            {"agreement_required", must}};
    if (!must) {
      entry["not_required_because"] = asynchronous
                                          ? "asynchronous workers end with the parameters of their own last pull"
                                          : "under ZeRO each rank steps its own shard of the parameters";
    }
    if (groups.size() > 1 || groups.begin()->first != -1) {
      entry["replica_groups"] = groups.size();
      entry["compared"] = "within each data-parallel group (ranks holding the same shard of the model)";
    }
    models.push_back(entry);
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

void start_sends_at_rendezvous(const Plan& plan, std::vector<OpRecord>& records) {
  // (sender, receiver, tag, iteration) -> the receive's start
  std::map<std::tuple<int, int, int, int>, double> received;
  for (const OpRecord& r : records) {
    if (plan.ranks[r.rank].stage < 0) continue;
    if (const auto* recv = std::get_if<RecvOp>(&plan.ranks[r.rank].ops[r.op].body))
      received[{recv->peer, r.rank, recv->tag, r.iteration}] = r.start;
  }
  for (OpRecord& r : records) {
    if (plan.ranks[r.rank].stage < 0) continue;
    const auto* send = std::get_if<SendOp>(&plan.ranks[r.rank].ops[r.op].body);
    if (!send) continue;
    const auto found = received.find({r.rank, send->peer, send->tag, r.iteration});
    if (found != received.end()) r.start = std::min(r.end, std::max(r.start, found->second));
  }
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
  for (const auto& m : summary.memory) {
    const double measured = m["measured_peak_bytes"].get<double>(), predicted = m["predicted_peak_bytes"].get<double>();
    if (measured <= 0) {  // the cuda backend allocates every buffer up front and meters none (docs/real.md)
      os << fmt::format(
          "  rank {} (stage {}): peak memory not measured on this backend; the memory model predicts {}\n",
          m["rank"].get<int>(), m["stage"].get<int>(), format_bytes(predicted));
      continue;
    }
    os << fmt::format(
        "  rank {} (stage {}): peak memory of the plan's buffers {}, the memory model predicts {} ({:+.1f} %)\n",
        m["rank"].get<int>(), m["stage"].get<int>(), format_bytes(measured), format_bytes(predicted),
        measured > 0 ? 100.0 * (predicted - measured) / measured : 0.0);
  }
  int checks = 0;
  for (const auto& c : summary.checks["collectives"]) {
    if (c["checked_elements"].get<std::int64_t>() > 0) checks += c["ranks"].get<int>() * c["iterations"].get<int>();
  }
  std::string models = "agree";
  for (const auto& m : summary.checks["models"]) {
    if (m["workers_agree"] == true) continue;
    models = m["agreement_required"] == true
                 ? "DIFFER"
                 : fmt::format("differ, as they may: {}", m["not_required_because"].get<std::string>());
  }
  os << fmt::format("  checks: {} ({} collective results checked element by element; workers' models {})\n",
                    summary.exact ? "exact" : "FAILED", checks, models);
}

}  // namespace dtsim::real
