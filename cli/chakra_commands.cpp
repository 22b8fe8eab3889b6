// `dtsim export-chakra` and `dtsim import-chakra` (docs/chakra.md): a scenario's Plan written as
// Chakra execution traces, one file per rank, and a set of traces made into a scenario folder that
// replays them (workload.chakra).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "core/chakra/et_file.hpp"
#include "core/plan/chakra/export.hpp"
#include "core/plan/compiler.hpp"
#include "core/plan/hybrid/job.hpp"
#include "core/scenario/loader.hpp"
#include "models/cost/cost_model.hpp"

namespace dtsim::cli {

namespace fs = std::filesystem;

int export_chakra_command(const ExportChakraOptions& o) {
  const Scenario s = load_scenario(o.scenario, o.sets);
  if (!chakra_supported()) write_et(o.out, EtTrace{});  // refuses with the build's reason
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    if (!tp_comm_overlap_applies(s.jobs[j])) continue;
    const std::string key = s.job_key(j, "framework.tp_comm_overlap");
    throw InputError(s.location_of(key),
                     fmt::format("{}: a Chakra trace has no node for a collective running beside its GEMM in pieces; "
                                 "export with --set {}=false",
                                 key, key));
  }
  const Plan plan = compile_plan(s);
  // duration_micros: what each op lasts alone on the scenario's cluster (the cost model both engines use).
  const cost::CostModel model(s.cluster, plan);
  const OpDuration duration = [&model](const RankProgram& r, const Op& op) {
    if (const auto* c = std::get_if<ComputeOp>(&op.body)) return model.compute_time(r, *c);
    if (const auto* u = std::get_if<UpdateOp>(&op.body)) return model.update_time(r, *u);
    if (const auto* c = std::get_if<CollectiveOp>(&op.body)) return model.collective_time(*c);
    return 0.0;
  };
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec) throw RuntimeError(fmt::format("cannot create output folder {}: {}", o.out, ec.message()));
  size_t nodes = 0;
  for (const RankProgram& r : plan.ranks) {
    const EtTrace trace = export_chakra_rank(plan, r.rank, duration);
    nodes += trace.nodes.size();
    write_et(fmt::format("{}/{}.{}.et{}", o.out, s.name, r.rank, o.gzip ? ".gz" : ""), trace, o.gzip);
  }
  std::cout << fmt::format("wrote {} Chakra traces ({} nodes) as {}/{}.<rank>.et{}\n", plan.ranks.size(), nodes, o.out,
                           s.name, o.gzip ? ".gz" : "");
  return 0;
}

int import_chakra_command(const ImportChakraOptions& o) {
  const std::vector<std::string> files = et_files(o.traces);
  const int ranks = static_cast<int>(files.size());
  // Traces that place their ranks (dtsim's own, dtsim.node and dtsim.local) size the cluster; others
  // run rank r on node r / devices_per_node.
  int per_node = 0, placed_nodes = 0;
  for (int r = 0; r < ranks; ++r) {
    const EtTrace meta = read_et_metadata(files[static_cast<size_t>(r)], r);
    const auto node = attr_number(meta.metadata, "dtsim.node");
    const auto local = attr_number(meta.metadata, "dtsim.local");
    if (!node || !local || attr_text(meta.metadata, "dtsim.role") == "server") continue;
    placed_nodes = std::max(placed_nodes, static_cast<int>(*node) + 1);
    per_node = std::max(per_node, static_cast<int>(*local) + 1);
  }
  if (o.devices_per_node > 0) per_node = o.devices_per_node;
  if (per_node == 0) per_node = std::min(ranks, 8);
  const int nodes = std::max(placed_nodes, (ranks + per_node - 1) / per_node);
  // The scenario folder holds its own copy of the traces, named <name>.<rank>.et(.gz). The originals
  // are replayed first, so that a bad trace is refused naming its own file, before anything is written.
  const std::string first = fs::path(files.front()).filename().string();
  const std::string name = first.substr(0, first.rfind(".0.et"));
  const std::string original = fs::absolute(fs::path(files.front()).parent_path() / name).string();
  const auto scenario_text = [&](const std::string& prefix) {
    return fmt::format(R"(# Replays the Chakra traces {} ({} ranks), copied into traces/ by dtsim import-chakra.
# Rank r runs on node r / devices_per_node unless the traces place it (docs/chakra.md).
name: {}
workload:
  chakra: {}
  chakra_timing: {}
cluster:
  nodes: {}
  devices_per_node: {}
  device: {}
run:
  engine: {}
  iterations: 3
  warmup: 1
)",
                       o.traces, ranks, name, prefix, o.timing, nodes, per_node, o.device, o.engine);
  };
  const Plan plan = compile_plan(load_scenario_text(scenario_text(original), "import-chakra"));
  for (const std::string& w : plan.warnings) std::cerr << w << "\n";
  const fs::path traces = fs::path(o.out) / "traces";
  std::error_code ec;
  fs::create_directories(traces, ec);
  if (ec) throw RuntimeError(fmt::format("cannot create output folder {}: {}", traces.string(), ec.message()));
  for (const std::string& f : files) {
    fs::copy_file(f, traces / fs::path(f).filename(), fs::copy_options::overwrite_existing, ec);
    if (ec) throw RuntimeError(fmt::format("cannot copy {} to {}: {}", f, traces.string(), ec.message()));
  }
  const std::string scenario = (fs::path(o.out) / "scenario.yaml").string();
  write_file_atomic(scenario, scenario_text("traces/" + name));
  std::cout << fmt::format("wrote {} ({} ranks, {} ops per iteration); run it with: dtsim run {}\n", scenario, ranks,
                           plan.total_ops(), scenario);
  return 0;
}

}  // namespace dtsim::cli
