// Cross-key validation of a scenario: required keys, model resolution, placement of each job
// on the cluster, topology shapes, and the collective algorithm's needs.
#include "core/scenario/validate.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "core/calibration/calibration.hpp"
#include "core/chakra/et_file.hpp"
#include "core/scenario/hybrid_keys.hpp"
#include "core/scenario/preset_apply.hpp"
#include "core/scenario/schema.hpp"
#include "core/scenario/sync_policy.hpp"
#include "models/collectives/collective.hpp"
#include "models/zoo/hf_config.hpp"
#include "models/zoo/model_file.hpp"

namespace dtsim {
namespace {

[[noreturn]] void fail_at(const Scenario& s, const std::string& key, const std::string& message) {
  throw InputError(s.location_of(key), message);
}

void check_required(const Scenario& s) {
  for (const auto& key : scenario_keys()) {
    if (key.required && !is_set(s, key.path) && !preset_gives(s, key.path)) {
      throw InputError(SourceLocation{s.path}, fmt::format("missing key '{}' ({})", key.path, key.doc));
    }
  }
}

// workload.chakra: the traces replace the model. Only their files' presence is checked here (reading
// millions of nodes is the plan compiler's work, core/plan/chakra/import.hpp).
void resolve_chakra(const Scenario& s, size_t index, JobSpec& job) {
  const std::string key = s.job_key(index, "workload.chakra");
  for (const char* model : {"model.name", "model.file", "model.hf_config"}) {
    if (is_set(s, s.job_key(index, model))) fail_at(s, key, fmt::format("give {} or {}, not both", key, model));
  }
  if (s.jobs.size() > 1) fail_at(s, key, "a job replaying Chakra traces is its scenario's only job");
  if (job.strategy.kind != StrategyKind::AllReduce || job.sync.kind != SyncKind::Bsp) {
    fail_at(s, key,
            "Chakra traces say their own communication: leave strategy.kind and sync.policy at allreduce and "
            "bsp");
  }
  std::filesystem::path p(job.chakra.prefix);
  const std::string& file = s.location_of(key).file;
  if (p.is_relative() && !file.empty() && file.rfind("--set", 0) != 0)
    p = std::filesystem::path(file).parent_path() / p;
  try {
    et_files(p.string());
  } catch (const InputError& e) {
    fail_at(s, key, fmt::format("{}: {}", key, e.message()));
  }
  job.chakra.prefix = p.string();
  job.workload = Workload{};
  job.workload.name = "chakra";
  job.workload.source = job.chakra.prefix;
}

void resolve_workload(const Scenario& s, size_t index, JobSpec& job) {
  if (is_set(s, s.job_key(index, "workload.chakra"))) return resolve_chakra(s, index, job);
  const ModelSpec& m = job.model;
  const std::string name_key = s.job_key(index, "model.name");
  const std::string file_key = s.job_key(index, "model.file");
  const std::string hf_key = s.job_key(index, "model.hf_config");
  const int given = is_set(s, name_key) + is_set(s, file_key) + is_set(s, hf_key);
  if (given == 0) {
    throw InputError(SourceLocation{s.path}, fmt::format("missing key '{}' (a zoo model, transformer or synthetic), "
                                                         "'{}' or '{}'",
                                                         name_key, file_key, hf_key));
  }
  if (given > 1) {
    fail_at(s, is_set(s, hf_key) ? hf_key : file_key,
            fmt::format("give one of {}, {} and {}", name_key, file_key, hf_key));
  }
  std::optional<TransformerSpec> shape;  // the model's own shape, when it has one
  std::optional<HfModel> hf;
  if (!m.hf_config.empty()) {
    std::filesystem::path p(m.hf_config);
    const std::string& written_in = s.location_of(hf_key).file;  // relative to the scenario; a --set's to here
    if (p.is_relative() && !written_in.empty() && written_in.rfind("--set", 0) != 0) {
      p = std::filesystem::path(written_in).parent_path() / p;
    }
    if (!std::filesystem::exists(p)) fail_at(s, hf_key, fmt::format("{}: no such file '{}'", hf_key, p.string()));
    hf = load_hf_config(p.string());
    job.workload = make_transformer(hf->shape, hf->name);
    job.workload.source = fmt::format("{}; {}", hf->source, job.workload.source);
    shape = hf->shape;
  } else if (!m.file.empty()) {
    std::filesystem::path p(m.file);
    if (p.is_relative()) p = std::filesystem::path(s.path).parent_path() / p;
    if (!std::filesystem::exists(p)) fail_at(s, file_key, fmt::format("{}: no such file '{}'", file_key, p.string()));
    ModelDefinition definition = load_model_definition(p.string());
    job.workload = std::move(definition.workload);
    shape = definition.shape;
  } else if (m.name == "transformer") {
    job.workload = Workload{};
    job.workload.name = "transformer";  // finish_transformer generates the rows
    shape = TransformerSpec{};
  } else if (m.name == "synthetic") {
    if (m.synthetic_params <= 0 || m.synthetic_flops <= 0) {
      fail_at(s, name_key, "a synthetic model needs model.synthetic.params and model.synthetic.flops_per_sample > 0");
    }
    job.workload = make_synthetic(m.synthetic_params, m.synthetic_flops, m.synthetic_layers);
  } else {
    try {
      job.workload = load_zoo_model(m.name);
      shape = zoo_transformer(m.name);
    } catch (const InputError& e) {
      fail_at(s, name_key, fmt::format("{}: {}", name_key, e.message()));
    }
  }
  finish_transformer(s, index, job, shape, !m.hf_config.empty() ? hf_key : m.file.empty() ? name_key : file_key);
  job.model.is_transformer = shape.has_value();
}

// Ranks are 32-bit indices and each costs memory: a cluster is at most 2^24 (16,777,216) devices,
// far beyond any built; whether a smaller one fits in this machine's memory is for
// core/run/footprint.hpp to say.
void check_device_count(const Scenario& s) {
  constexpr double kMaxDevices = 16777216;
  const double devices = static_cast<double>(s.cluster.nodes) * s.cluster.devices_per_node;
  if (devices > kMaxDevices) {
    fail_at(
        s, s.cluster.devices_per_node > s.cluster.nodes ? "cluster.devices_per_node" : "cluster.nodes",
        fmt::format("cluster.nodes x cluster.devices_per_node is {:.0f} devices; at most 16777216 (2^24)", devices));
  }
}

void check_topology(const Scenario& s) {
  const TopologySpec& t = s.cluster.topology;
  const int nodes = s.cluster.nodes;
  if (t.kind == TopologyKind::Torus) {
    if (t.dims.empty()) fail_at(s, "cluster.topology.kind", "a torus needs cluster.topology.dims (e.g. 4x4x2)");
    const long product = std::accumulate(t.dims.begin(), t.dims.end(), 1L, std::multiplies<>());
    if (product != nodes) {
      fail_at(s, "cluster.topology.dims",
              fmt::format("cluster.topology.dims: {} has {} positions but the cluster has {} "
                          "nodes",
                          fmt::join(t.dims, "x"), product, nodes));
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

// The job's devices lie inside the cluster, hold its workers, and no other job uses them.
void check_placement(const Scenario& s, size_t index, std::vector<int>& owner) {
  const JobSpec& job = s.jobs[index];
  const ClusterSpec& c = s.cluster;
  const PlacementSpec& p = job.placement;
  auto key = [&](const char* k) { return s.job_key(index, k); };
  if (p.first_node >= c.nodes) {
    fail_at(s, key("placement.first_node"),
            fmt::format("{}: node {} is outside the cluster ({} nodes)", key("placement.first_node"), p.first_node,
                        c.nodes));
  }
  if (p.first_local >= c.devices_per_node) {
    fail_at(s, key("placement.first_local"),
            fmt::format("{}: device {} is outside a node ({} devices per node)", key("placement.first_local"),
                        p.first_local, c.devices_per_node));
  }
  if (p.first_node + job.node_count(c) > c.nodes) {
    fail_at(s, key("placement.nodes"),
            fmt::format("{}: nodes {}..{} exceed the cluster ({} nodes)", key("placement.nodes"), p.first_node,
                        p.first_node + job.node_count(c) - 1, c.nodes));
  }
  if (p.first_local + job.local_count(c) > c.devices_per_node) {
    fail_at(s, key("placement.devices_per_node"),
            fmt::format("{}: devices {}..{} exceed a node ({} devices per node)", key("placement.devices_per_node"),
                        p.first_local, p.first_local + job.local_count(c) - 1, c.devices_per_node));
  }
  const int devices = job.devices(c);
  if (job.workers(c) > devices) {
    const std::string where_key = is_set(s, key("strategy.workers")) ? key("strategy.workers") : "cluster.nodes";
    fail_at(s, where_key,
            fmt::format("ranks ({}) exceed devices in the {} ({})", job.workers(c),
                        s.jobs.size() > 1 ? "job's placement" : "cluster", devices));
  }
  for (int n = p.first_node; n < p.first_node + job.node_count(c); ++n) {
    for (int l = p.first_local; l < p.first_local + job.local_count(c); ++l) {
      int& o = owner[static_cast<size_t>(n) * c.devices_per_node + l];
      if (o >= 0) {
        std::string at_key = key("name");
        for (const char* k :
             {"placement.devices_per_node", "placement.nodes", "placement.first_local", "placement.first_node"}) {
          if (is_set(s, key(k))) at_key = key(k);
        }
        fail_at(s, at_key,
                fmt::format("job '{}' and job '{}' both use device {} of node {}", s.jobs[o].name, job.name, l, n));
      }
      o = static_cast<int>(index);
    }
  }
}

void check_stragglers(const Scenario& s, size_t index) {
  const JobSpec& job = s.jobs[index];
  const std::string key = s.job_key(index, "stragglers.slow_workers");
  for (int w : job.stragglers.slow_workers) {
    if (w >= job.workers(s.cluster)) {
      fail_at(
          s, key,
          fmt::format("{}: worker {} does not exist (the job has workers 0..{})", key, w, job.workers(s.cluster) - 1));
    }
  }
}

// A profile key's value: an inline spec, or a file relative to the scenario's folder.
Profile resolve_profile(const Scenario& s, const std::string& key, const std::string& text, double max_factor) {
  if (text.empty()) return Profile{};
  if (is_inline_profile(text)) {
    try {
      return parse_inline_profile(text, max_factor);
    } catch (const InputError& e) {
      fail_at(s, key, fmt::format("{}: {}", key, e.message()));
    }
  }
  std::filesystem::path p(text);
  if (p.is_relative()) p = std::filesystem::path(s.path).parent_path() / p;
  if (!std::filesystem::exists(p)) {
    fail_at(s, key,
            fmt::format("{}: no such file '{}' (give a profile file, or e.g. period=2s,duty=0.5,factor=0.25)", key,
                        p.string()));
  }
  return load_profile(p.string(), max_factor);
}

void check_indices(const Scenario& s, const std::string& key, const std::vector<int>& indices, int count,
                   const char* what) {
  for (int i : indices) {
    if (i >= count) fail_at(s, key, fmt::format("{}: {} {} does not exist (valid: 0..{})", key, what, i, count - 1));
  }
}

// Heterogeneous nodes and NIC profiles (cluster keys).
void finish_cluster(Scenario& s) {
  ClusterSpec& c = s.cluster;
  if (!c.node_devices.empty()) {
    if (static_cast<int>(c.node_devices.size()) != c.nodes) {
      fail_at(s, "cluster.device_mix",
              fmt::format("cluster.device_mix: the counts sum to {} nodes but the cluster has {}",
                          c.node_devices.size(), c.nodes));
    }
    c.node_efficiency.clear();
    for (const DeviceSpec& d : c.node_devices) {
      c.node_efficiency.push_back(is_set(s, "cluster.efficiency") ? c.efficiency : d.efficiency);
    }
  }
  c.nic_profile = resolve_profile(s, "cluster.nic_profile", c.nic_profile.source, 1.0);
  if (!c.nic_profile.times.empty() && c.transport == Transport::Tcp && s.run.engine == Engine::SimGrid) {
    fail_at(s, "cluster.nic_profile",
            "cluster.nic_profile: the SimGrid engine applies NIC bandwidth profiles under cluster.transport: rdma only "
            "(SimGrid 3.32 keeps a TCP flow at the rate its route had when it started; the analytical engine takes "
            "both)");
  }
  check_indices(s, "cluster.nic_profile_nodes", c.nic_profile_nodes, c.nodes, "node");
}

void finish_job_profiles(const Scenario& s, size_t index, JobSpec& job) {
  StragglerSpec& st = job.stragglers;
  st.speed_profile = resolve_profile(s, s.job_key(index, "stragglers.speed_profile"), st.speed_profile.source,
                                     std::numeric_limits<double>::infinity());
  check_indices(s, s.job_key(index, "stragglers.profile_workers"), st.profile_workers, job.workers(s.cluster),
                "worker");
  if (job.strategy.dynamic_batch && job.sync.kind != SyncKind::Bsp) {
    const std::string key = s.job_key(index, "strategy.dynamic_batch");
    fail_at(s, key, fmt::format("{}: dynamic batch sizing balances bsp jobs only (set sync.policy: bsp)", key));
  }
}

// strategy.allreduce.algorithm unset: NCCL's own choice where every device of the cluster is a GPU (NCCL runs
// their collectives), a ring otherwise.
void default_algorithm(Scenario& s, size_t index) {
  if (is_set(s, s.job_key(index, "strategy.allreduce.algorithm"))) return;
  bool gpus = true;
  for (int node = 0; node < s.cluster.nodes; ++node) gpus = gpus && s.cluster.device_at(node).compute_capability > 0;
  s.jobs[index].strategy.algorithm = gpus ? "nccl" : "ring";
}

void check_strategy(const Scenario& s, size_t index) {
  const JobSpec& job = s.jobs[index];
  if (job.sync.kind == SyncKind::LocalSgd && job.strategy.kind != StrategyKind::AllReduce) {
    const std::string key = s.job_key(index, "sync.policy");
    fail_at(s, key,
            fmt::format("{}: 'local_sgd' averages models with an AllReduce (set strategy.kind: allreduce)", key));
  }
  if ((job.sync.kind == SyncKind::Asp || job.sync.kind == SyncKind::Ssp) &&
      job.strategy.kind != StrategyKind::ParameterServer) {
    const std::string key = s.job_key(index, "sync.policy");
    fail_at(s, key,
            fmt::format("{}: '{}' needs a parameter server (set strategy.kind: parameter_server); an "
                        "AllReduce job is bsp",
                        key, sync_policy_name(job.sync.kind)));
  }
  if (job.strategy.kind != StrategyKind::AllReduce) return;
  const std::string key = s.job_key(index, "strategy.allreduce.algorithm");
  const int workers = job.workers(s.cluster);
  const int per_node = std::min(job.local_count(s.cluster), workers);
  GroupShape group{workers, workers % per_node == 0 ? per_node : 1, 0};
  try {
    const CollectiveAlgorithm& algo = find_algorithm(job.strategy.algorithm);
    const std::string why = algo.unsupported_reason(CollectiveKind::AllReduce, group);
    if (!why.empty()) fail_at(s, key, fmt::format("{}: {}", key, why));
    for (int node = 0; follows_nccl(algo) && node < s.cluster.nodes; ++node) {
      const DeviceSpec& d = s.cluster.device_at(node);
      if (d.compute_capability == 0) {
        fail_at(s, key,
                fmt::format("{}: nccl models NCCL on GPUs, and device '{}' is not one (use ring, double_binary_tree, "
                            "halving_doubling, hierarchical or direct)",
                            key, d.name));
      }
    }
  } catch (const InputError& e) {
    if (!e.where().file.empty()) throw;
    fail_at(s, key, fmt::format("{}: {}", key, e.message()));
  }
}

// Backup workers and gossip are AllReduce-side policies; backup keeps at least one gradient.
void check_sync(const Scenario& s, size_t index) {
  const JobSpec& job = s.jobs[index];
  const SyncKind kind = job.sync.kind;
  if (kind != SyncKind::Backup && kind != SyncKind::Gossip) return;
  const std::string policy = s.job_key(index, "sync.policy");
  const std::string_view name = sync_policy_name(kind);
  if (job.strategy.kind != StrategyKind::AllReduce) {
    fail_at(s, policy,
            fmt::format("{}: '{}' is modelled for AllReduce jobs (set strategy.kind: allreduce); a parameter "
                        "server's answer to stragglers is asp or ssp",
                        policy, name));
  }
  const int workers = job.workers(s.cluster);
  if (kind == SyncKind::Backup && job.sync.backup_workers >= workers) {
    const std::string key = s.job_key(index, "sync.backup_workers");
    fail_at(s, key,
            fmt::format("{}: {} backup workers leave no gradient to keep (the job has {} workers: use 0..{})", key,
                        job.sync.backup_workers, workers, workers - 1));
  }
  if (kind == SyncKind::Gossip && workers < 2) {
    fail_at(s, policy, fmt::format("{}: 'gossip' needs at least 2 workers (the job has {})", policy, workers));
  }
  if (kind == SyncKind::Gossip && job.compression.method != CompressionMethod::None) {
    const std::string key = s.job_key(index, "compression.method");
    fail_at(s, key, fmt::format("{}: gossip exchanges whole models, uncompressed (use compression.method: none)", key));
  }
}

// PowerSGD's factors must be AllReduced: a parameter server cannot combine them.
// LAMB has no unfused form to cost (core/plan/optimizer_step.hpp): torch.optim has no LAMB, and apex's is fused.
void check_optimizer_kernels(const Scenario& s, size_t index) {
  const JobSpec& job = s.jobs[index];
  if (job.model.optimizer != Optimizer::Lamb || job.framework.optimizer_kernels == OptimizerKernels::Fused) return;
  const std::string key = s.job_key(index, "framework.optimizer_kernels");
  fail_at(s, is_set(s, key) ? key : s.job_key(index, "model.optimizer"),
          fmt::format("{}: model.optimizer lamb runs as one fused kernel only (torch.optim has no LAMB; apex's "
                      "FusedLAMB is fused): valid: fused, or another model.optimizer",
                      key));
}

// tune.*_tokens_per_step: a range, of at least one sequence.
void check_tokens_per_step(const Scenario& s, size_t index) {
  const LayoutLimits& l = s.jobs[index].tune.limits;
  if (l.max_tokens <= 0 && l.min_tokens <= 0) return;
  const std::string key = s.job_key(index, "tune.max_tokens_per_step");
  if (l.max_tokens <= 0) {
    fail_at(s, s.job_key(index, "tune.min_tokens_per_step"),
            fmt::format("{}: a least without tune.max_tokens_per_step, which searches the batch; valid: set both, "
                        "or 0",
                        s.job_key(index, "tune.min_tokens_per_step")));
  }
  if (l.max_tokens < l.min_tokens) {
    fail_at(s, is_set(s, key) ? key : s.job_key(index, "tune.min_tokens_per_step"),
            fmt::format("{}: {:g} is fewer than tune.min_tokens_per_step ({:g}); valid: at least that, or 0 to keep "
                        "the job's global batch",
                        key, l.max_tokens, l.min_tokens));
  }
  const int seq = s.jobs[index].model.transformer.seq_len;
  if (l.max_tokens < seq) {
    fail_at(s, key,
            fmt::format("{}: {:g} tokens is less than one sequence of {} (model.transformer.seq_len); valid: at least "
                        "{}",
                        key, l.max_tokens, seq, seq));
  }
}

// model.fp8 runs a transformer's linear layers in fp8 on top of a 16-bit model (models/parallel/transformer_ops.hpp,
// FP8): it needs the transformer's shape, a 16-bit dtype and fp8 tensor cores on every device the cluster has.
void check_fp8(const Scenario& s, size_t index) {
  const JobSpec& job = s.jobs[index];
  if (job.model.fp8 == Fp8Scaling::None) return;
  const std::string key = s.job_key(index, "model.fp8");
  if (!job.model.is_transformer) {
    fail_at(s, key,
            fmt::format("{}: fp8 runs a transformer's linear layers; this model is a layer table (use model.name: "
                        "transformer or a zoo model given by its shape, or model.fp8: none)",
                        key));
  }
  if (job.model.dtype != Dtype::Bf16 && job.model.dtype != Dtype::Fp16) {
    fail_at(s, key,
            fmt::format("{}: fp8 GEMMs run in a 16-bit model (model.dtype is {}: use bf16 or fp16, or model.fp8: none)",
                        key, dtype_name(job.model.dtype)));
  }
  if (s.cluster.calibration && !s.cluster.calibration->compute.contains(std::string(dtype_name(Dtype::Fp8)))) {
    fail_at(s, key,
            fmt::format("{}: the cluster.calibration profile has no fp8 GEMM curve (dtsim calibrate measures fp32, "
                        "tf32, fp16 and bf16), so its fp8 GEMMs would be costed at fp32's: use model.fp8: none with "
                        "the profile, or no profile",
                        key));
  }
  std::vector<const DeviceSpec*> devices{&s.cluster.device};
  for (const DeviceSpec& d : s.cluster.node_devices) devices.push_back(&d);
  for (const DeviceSpec* d : devices) {
    if (d->peak_fp8 <= 0) {
      fail_at(s, key,
              fmt::format("{}: {} ({}) has no fp8 tensor cores (devices with them: the zoo's entries with an fp8 peak, "
                          "`dtsim devices`; or model.fp8: none)",
                          key, d->name, d->description));
    }
  }
}

void check_compression(const Scenario& s, size_t index) {
  const JobSpec& job = s.jobs[index];
  const MethodTraits& method = method_traits(job.compression.method);
  if (job.strategy.kind == StrategyKind::ParameterServer && method.exchange == Exchange::LowRank) {
    const std::string key = s.job_key(index, "compression.method");
    fail_at(s, key,
            fmt::format("{}: {} needs strategy.kind allreduce (its factors P and Q are AllReduced)", key, method.name));
  }
}

}  // namespace

std::string Scenario::job_key(size_t job, const std::string& key) const {
  return job_list ? fmt::format("jobs.{}.{}", job, key) : key;
}

SourceLocation Scenario::location_of(const std::string& key) const {
  const auto it = where.find(key);
  return it != where.end() ? it->second : SourceLocation{path};
}

std::string_view fidelity_name(Fidelity f) { return f == Fidelity::Flow ? "flow" : "step"; }
std::string_view strategy_name(StrategyKind k) {
  switch (k) {
    case StrategyKind::AllReduce: return "allreduce";
    case StrategyKind::ParameterServer: return "parameter_server";
    case StrategyKind::Hybrid: return "hybrid";
  }
  return "";
}

void finish_scenario(Scenario& s) {
  apply_cluster_preset(s);
  check_required(s);
  // A set cluster.efficiency is the fraction of peak every kernel reaches (kernel.hpp: no classes).
  if (s.cluster.efficiency == 0) {
    s.cluster.efficiency = s.cluster.device.efficiency;
  } else {
    s.cluster.device.kernels = KernelProfile{};
    for (DeviceSpec& d : s.cluster.node_devices) d.kernels = KernelProfile{};
  }
  if (!is_set(s, "cluster.servers.nic_rate")) s.cluster.server_nic.rate = s.cluster.nic.rate;
  if (!is_set(s, "cluster.servers.nic_latency")) s.cluster.server_nic.latency = s.cluster.nic.latency;
  if (s.name.empty()) s.name = std::filesystem::path(s.path).stem().string();
  if (!s.job_list) s.jobs[0].name = s.name;
  check_device_count(s);
  check_topology(s);
  finish_cluster(s);
  std::vector<int> owner(static_cast<size_t>(s.cluster.devices()), -1);
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    apply_framework_preset(s, i);
    resolve_workload(s, i, s.jobs[i]);
    check_placement(s, i, owner);
    default_algorithm(s, i);
    check_strategy(s, i);
    check_hybrid(s, i);
    check_stragglers(s, i);
    finish_job_profiles(s, i, s.jobs[i]);
    finish_faults(s, i, s.jobs[i]);
    check_compression(s, i);
    check_optimizer_kernels(s, i);
    check_fp8(s, i);
    check_tokens_per_step(s, i);
    check_sync(s, i);
  }
  finish_convergence(s);
}

}  // namespace dtsim
