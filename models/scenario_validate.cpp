// Cross-key validation of a scenario: required keys, model resolution, ranks against devices,
// topology shapes, and the collective algorithm's needs.
#include "models/scenario_validate.hpp"

#include <filesystem>
#include <numeric>

#include <fmt/format.h>

#include "models/collectives/collective.hpp"
#include "models/scenario_schema.hpp"

namespace dtsim {
namespace {

bool is_set(const Scenario& s, const std::string& key) { return s.where.count(key) > 0; }

[[noreturn]] void fail_at(const Scenario& s, const std::string& key, const std::string& message) {
  throw InputError(s.location_of(key), message);
}

void check_required(const Scenario& s) {
  for (const auto& key : scenario_keys()) {
    if (key.required && !is_set(s, key.path)) {
      throw InputError(SourceLocation{s.path}, fmt::format("missing key '{}' ({})", key.path, key.doc));
    }
  }
  if (!is_set(s, "model.name") && !is_set(s, "model.file")) {
    throw InputError(SourceLocation{s.path},
                     "missing key 'model.name' (a zoo model, transformer or synthetic) or 'model.file'");
  }
  if (is_set(s, "model.name") && is_set(s, "model.file")) {
    fail_at(s, "model.file", "give model.name or model.file, not both");
  }
}

void resolve_workload(Scenario& s) {
  const ModelSpec& m = s.model;
  if (!m.file.empty()) {
    std::filesystem::path p(m.file);
    if (p.is_relative()) p = std::filesystem::path(s.path).parent_path() / p;
    if (!std::filesystem::exists(p)) fail_at(s, "model.file", fmt::format("model.file: no such file '{}'", p.string()));
    s.workload = load_model_file(p.string());
  } else if (m.name == "transformer") {
    if (m.transformer.hidden % m.transformer.heads != 0) {
      fail_at(s, "model.transformer.heads", fmt::format("model.transformer.heads: {} does not divide hidden size {}",
                                                        m.transformer.heads, m.transformer.hidden));
    }
    s.workload = make_transformer(m.transformer, "transformer");
  } else if (m.name == "synthetic") {
    if (m.synthetic_params <= 0 || m.synthetic_flops <= 0) {
      fail_at(s, "model.name", "a synthetic model needs model.synthetic.params and model.synthetic.flops_per_sample > 0");
    }
    s.workload = make_synthetic(m.synthetic_params, m.synthetic_flops, m.synthetic_layers);
  } else {
    try {
      s.workload = load_zoo_model(m.name);
    } catch (const InputError& e) {
      fail_at(s, "model.name", fmt::format("model.name: {}", e.message()));
    }
  }
}

void check_topology(const Scenario& s) {
  const TopologySpec& t = s.cluster.topology;
  const int nodes = s.cluster.nodes;
  if (t.kind == TopologyKind::Torus) {
    if (t.dims.empty()) fail_at(s, "cluster.topology.kind", "a torus needs cluster.topology.dims (e.g. 4x4x2)");
    const long product = std::accumulate(t.dims.begin(), t.dims.end(), 1L, std::multiplies<>());
    if (product != nodes) {
      fail_at(s, "cluster.topology.dims", fmt::format("cluster.topology.dims: {} has {} positions but the cluster has {} "
                                                      "nodes", fmt::join(t.dims, "x"), product, nodes));
    }
  }
  if (t.kind == TopologyKind::Dragonfly) {
    const long product = static_cast<long>(t.groups) * t.routers_per_group * t.nodes_per_router;
    if (product != nodes) {
      fail_at(s, "cluster.topology.kind",
              fmt::format("a dragonfly of {} groups x {} routers x {} nodes holds {} nodes but the cluster has {} "
                          "(set cluster.topology.groups, routers_per_group, nodes_per_router)",
                          t.groups, t.routers_per_group, t.nodes_per_router, product, nodes));
    }
  }
}

void check_strategy(const Scenario& s) {
  const int devices = s.cluster.devices();
  if (s.workers() > devices) {
    const std::string key = is_set(s, "strategy.workers") ? "strategy.workers" : "cluster.nodes";
    fail_at(s, key, fmt::format("ranks ({}) exceed devices in the cluster ({})", s.workers(), devices));
  }
  if (s.strategy.kind == StrategyKind::AllReduce) {
    const int per_node = std::min(s.cluster.devices_per_node, s.workers());
    GroupShape group{s.workers(), s.workers() % per_node == 0 ? per_node : 1, 0};
    try {
      const CollectiveAlgorithm& algo = find_algorithm(s.strategy.algorithm);
      if (!algo.supports(CollectiveKind::AllReduce, group)) {
        fail_at(s, "strategy.allreduce.algorithm",
                fmt::format("strategy.allreduce.algorithm: '{}' cannot run an AllReduce over {} ranks ({} per node)",
                            s.strategy.algorithm, group.size, group.per_node));
      }
    } catch (const InputError& e) {
      if (!e.where().file.empty()) throw;
      fail_at(s, "strategy.allreduce.algorithm", fmt::format("strategy.allreduce.algorithm: {}", e.message()));
    }
  } else if (s.strategy.ps_shards > s.workload.total_params()) {
    fail_at(s, "strategy.parameter_server.shards", "strategy.parameter_server.shards: more shards than parameters");
  }
}

}  // namespace

SourceLocation Scenario::location_of(const std::string& key) const {
  const auto it = where.find(key);
  return it != where.end() ? it->second : SourceLocation{path};
}

std::string_view engine_name(Engine e) { return e == Engine::Analytical ? "analytical" : "simgrid"; }
std::string_view fidelity_name(Fidelity f) { return f == Fidelity::Flow ? "flow" : "step"; }
std::string_view strategy_name(StrategyKind k) {
  return k == StrategyKind::AllReduce ? "allreduce" : "parameter_server";
}

void finish_scenario(Scenario& s) {
  check_required(s);
  if (s.cluster.efficiency == 0) s.cluster.efficiency = s.cluster.device.efficiency;
  if (!is_set(s, "cluster.servers.nic_rate")) s.cluster.server_nic.rate = s.cluster.nic.rate;
  if (!is_set(s, "cluster.servers.nic_latency")) s.cluster.server_nic.latency = s.cluster.nic.latency;
  if (s.name.empty()) s.name = std::filesystem::path(s.path).stem().string();
  resolve_workload(s);
  check_topology(s);
  check_strategy(s);
}

}  // namespace dtsim
