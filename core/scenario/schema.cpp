// The scenario key table. Defaults are text parsed exactly like a user's value.
#include "core/scenario/schema.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <span>

#include "core/base/executors.hpp"
#include "core/calibration/calibration.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/scenario/chakra_keys.hpp"
#include "core/scenario/cluster_preset.hpp"
#include "core/scenario/convergence_keys.hpp"
#include "core/scenario/fault_keys.hpp"
#include "core/scenario/framework_keys.hpp"
#include "core/scenario/hybrid_keys.hpp"
#include "core/scenario/key_table.hpp"
#include "core/scenario/sync_policy.hpp"
#include "core/scenario/transformer_keys.hpp"
#include "core/scenario/tune_keys.hpp"

namespace dtsim {
namespace {

using S = Scenario;
using J = JobSpec;
using V = ScalarValue;

constexpr StrategyKind kStrategies[] = {StrategyKind::AllReduce, StrategyKind::ParameterServer, StrategyKind::Hybrid};

// A fraction in (0, 1], or 0 for the device zoo's figure (cluster.efficiency, cluster.contention.compute).
double zoo_fraction(const V& v) {
  const double f = v.quantity(Quantity::Number);
  if (f < 0 || f > 1) v.fail(fmt::format("must be in (0, 1], or 0 for the device zoo's figure (got {})", v.text()));
  return f;
}

// A choice key's type text from a traits table: "one of: " and each row's `name`.
template <typename Row>
std::string one_of(std::span<const Row> rows) {
  std::vector<std::string_view> names;
  for (const Row& row : rows) names.push_back(row.name);
  return fmt::format("one of: {}", fmt::join(names, ", "));
}

std::vector<std::string_view> strategy_names() {
  std::vector<std::string_view> names;
  for (StrategyKind k : kStrategies) names.push_back(strategy_name(k));
  return names;
}

std::vector<std::string_view> policy_names() {
  std::vector<std::string_view> names;
  for (const SyncPolicyTraits& p : sync_policies()) names.push_back(p.name);
  return names;
}

const std::vector<std::pair<std::string, Dtype>> kDtypes{
    {"fp32", Dtype::Fp32}, {"tf32", Dtype::Tf32}, {"fp16", Dtype::Fp16}, {"bf16", Dtype::Bf16}};

// cluster.calibration: the profile named relative to the scenario file (or to the working folder
// for --set); its own errors point into the profile.
std::shared_ptr<const CalibrationProfile> load_calibration(const V& v) {
  namespace fs = std::filesystem;
  fs::path path(v.text());
  const std::string& file = v.where().file;
  if (path.is_relative() && !file.empty() && file.rfind("--set", 0) != 0) path = fs::path(file).parent_path() / path;
  if (!fs::is_regular_file(path)) {
    v.fail(
        fmt::format("calibration profile '{}' not found (make one with: mpirun -np 2 dtsim calibrate --backend cpu "
                    "--out {})",
                    path.string(), v.text()));
  }
  return load_calibration_profile(path.string());
}

std::vector<ScenarioKey> build_keys() {
  KeyTable keys;
  keys.run("name", "string", "", "A name for the run, shown in summaries and metrics.",
           [](S& s, const V& v) { s.name = v.text(); });

  // model
  keys.job("model.name", "string", "",
           "A zoo model (`dtsim models list`), `transformer` (see model.transformer.*) or `synthetic` (see "
           "model.synthetic.*). Give this or model.file. A zoo model defined by its shape (e.g. llama3_70b) takes "
           "model.transformer.* over its own values.",
           [](J& j, const V& v) { j.model.name = v.text(); });
  keys.job("model.file", "path", "",
           "A layer table in the zoo's format (docs/models.md), relative to the scenario file.",
           [](J& j, const V& v) { j.model.file = v.text(); });
  keys.job("model.hf_config", "path", "",
           "A Hugging Face config.json (model_type llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, gpt2, gpt_neox or "
           "falcon), relative to the scenario file: the transformer's shape read from it (docs/models.md), which "
           "model.transformer.* change. Its sequence is the config's max_position_embeddings unless "
           "model.transformer.seq_len is set. Give this, model.name or model.file.",
           [](J& j, const V& v) { j.model.hf_config = v.text(); });
  keys.job("model.batch_per_worker", "count", "32", "Samples each worker processes per iteration.",
           [](J& j, const V& v) { j.model.batch_per_worker = v.count(1); });
  keys.job("model.dtype", "one of: fp32, tf32, fp16, bf16", "fp32", "Compute dtype (picks the device's peak FLOP/s).",
           [](J& j, const V& v) { j.model.dtype = v.choice(kDtypes); });
  keys.job("model.grad_dtype", "one of: fp32, tf32, fp16, bf16", "fp32",
           "Dtype of gradients and parameters on the wire.",
           [](J& j, const V& v) { j.model.grad_dtype = v.choice(kDtypes); });
  keys.job("model.fp8", "one of: none, delayed, current", "none",
           "A transformer's linear layers (qkv, proj, fc1, fc2, the experts') run their GEMMs forward and backward in "
           "fp8 at the device's fp8 peak, with Transformer Engine's casts (models/parallel/transformer_ops.hpp, FP8); "
           "attention, the router and the output layer stay in model.dtype. delayed: scales from the amax history "
           "(TE DelayedScaling); current: from each tensor's own amax, one more read of it (TE Float8CurrentScaling, "
           "torchao's dynamic float8). Needs a device with fp8 tensor cores and a 16-bit model.dtype.",
           [](J& j, const V& v) {
             j.model.fp8 = v.choice<Fp8Scaling>(
                 {{"none", Fp8Scaling::None}, {"delayed", Fp8Scaling::Delayed}, {"current", Fp8Scaling::Current}});
           });
  keys.job("model.optimizer", "one of: sgd, momentum, adam, lamb", "sgd",
           "Optimizer; sets the state kept (0, 1, 2 and 2 extra copies of the weights) and the memory traffic of the "
           "update step (12, 20, 28 and 48 bytes per parameter: apex's fused kernels; core/plan/worker.cpp).",
           [](J& j, const V& v) {
             j.model.optimizer = v.choice<Optimizer>({{"sgd", Optimizer::Sgd},
                                                      {"momentum", Optimizer::Momentum},
                                                      {"adam", Optimizer::Adam},
                                                      {"lamb", Optimizer::Lamb}});
           });
  add_transformer_keys(keys);
  keys.job("model.synthetic.params", "number", "0", "Synthetic workload: total trainable parameters (at most 1e15).",
           [](J& j, const V& v) { j.model.synthetic_params = v.between(0, 1e15); });
  keys.job("model.synthetic.flops_per_sample", "FLOP count", "0", "Synthetic workload: forward FLOPs per sample.",
           [](J& j, const V& v) { j.model.synthetic_flops = v.quantity(Quantity::Flops); });
  keys.job("model.synthetic.layers", "count", "1",
           "Synthetic workload: equal layers the totals are spread over (at most 10000, as model.transformer.layers).",
           [](J& j, const V& v) { j.model.synthetic_layers = v.count(1, 10000); });
  add_chakra_keys(keys);

  // cluster
  keys.run("cluster.nodes", "count", "1", "Nodes (hosts) in the cluster.",
           [](S& s, const V& v) { s.cluster.nodes = v.count(1); });
  keys.run("cluster.devices_per_node", "count", "1", "Devices (GPUs or CPU sockets) per node.",
           [](S& s, const V& v) { s.cluster.devices_per_node = v.count(1); });
  keys.run(
      "cluster.preset", one_of(cluster_presets()), "none",
      "A system as its data sheet describes it (docs/collectives.md, Cluster presets): its device, devices per node, "
      "intra-node link and NIC kinds, NIC count and CPU, for the cluster keys this scenario leaves unset, each with "
      "its source. A key the scenario or --set gives wins over its preset.",
      [](S& s, const V& v) {
        s.cluster_preset = v.choice(choices_from(cluster_presets(), &ClusterPresetTraits::preset));
      });
  keys.required(
      "cluster.device", "string",
      "A device from the zoo (`dtsim devices`); cluster.preset may give it. Without one, an H100, H200 or B200 "
      "brings its DGX node's links.",
      [](S& s, const V& v) { s.cluster.device = v.device(); });
  keys.run("cluster.efficiency", "number", "0",
           "Achieved fraction of peak FLOP/s of every kernel, in (0, 1]; 0 takes the device zoo's figures: per kernel "
           "class (GEMM by shape, attention, memory-bound) for transformer plans on devices that have them, else its "
           "typical value.",
           [](S& s, const V& v) { s.cluster.efficiency = zoo_fraction(v); });
  keys.run("cluster.contention.compute", "number", "0",
           "The fraction of its compute rate a device keeps while it also communicates (a collective's or a "
           "transfer's kernels take its SMs and memory bandwidth), in (0, 1]; 1: overlapped communication is free for "
           "the compute (on a cpu calibration profile too: communication no longer waits for the cores); 0 takes a "
           "cuda calibration profile's measured figure, else the device zoo's (docs/engines.md, Contention).",
           [](S& s, const V& v) { s.cluster.compute_under_comm = zoo_fraction(v); });
  keys.run("cluster.device_mix", "device:nodes list", "",
           "Heterogeneous cluster: device types node by node, e.g. a100_40gb:2,v100_16gb:2 (the counts sum to "
           "cluster.nodes); each node computes at its own device's peak and efficiency (cluster.efficiency, when set, "
           "applies to all). Unset: every node has cluster.device.",
           [](S& s, const V& v) {
             s.cluster.node_devices.clear();
             for (const auto& [name, count] : v.device_counts()) {
               const DeviceSpec d = ScalarValue("cluster.device_mix", name, v.where()).device();
               s.cluster.node_devices.insert(s.cluster.node_devices.end(), static_cast<size_t>(count), d);
             }
           });
  keys.run(
      "cluster.intra_node.kind", one_of(intra_link_kinds()), "nvlink",
      "The link between devices of one node: NVLink through NVSwitch or PCIe, of the device's generation (nvlink, "
      "pcie) or of a named one, whose data sheet rate is cluster.intra_node.rate's default (nvlink3 300GB/s, nvlink4 "
      "450GB/s, nvlink5 900GB/s, pcie3 15.75GB/s, pcie4 31.5GB/s, pcie5 63GB/s per direction; docs/collectives.md, "
      "Cluster presets).",
      [](S& s, const V& v) {
        s.cluster.intra_kind = v.choice(choices_from(intra_link_kinds(), &IntraLinkTraits::kind));
      });
  keys.run("cluster.intra_node.rate", "rate", "300GB/s",
           "Per-device, per-direction bandwidth inside a node; unset, a named cluster.intra_node.kind gives it.",
           [](S& s, const V& v) { s.cluster.intra.rate = v.positive(Quantity::Rate); });
  keys.run("cluster.intra_node.latency", "time", "2us", "Latency of one message inside a node.",
           [](S& s, const V& v) { s.cluster.intra.latency = v.quantity(Quantity::Time); });
  keys.run("cluster.intra_node.collective_busbw", "size:rate list", "",
           "The bus bandwidth collectives inside a node reach by buffer size, as nccl-tests reports it (e.g. "
           "16MB:109GB/s,64MB:167GB/s,8GB:232GB/s, interpolated in log size): collectives over devices of one node "
           "run their intra-node bandwidth term at it instead of cluster.intra_node.rate (docs/engines.md).",
           [](S& s, const V& v) { s.cluster.intra_busbw = v.size_rates(); });
  keys.run("cluster.cpu", "one of: intel, amd, arm", "intel",
           "The nodes' host CPUs: NCCL's cost model (strategy.allreduce.algorithm: nccl) charges its per-step network "
           "overhead and caps its LL protocol across nodes by CPU vendor (AMD: 2 us, Intel and Arm: 1 us).",
           [](S& s, const V& v) {
             s.cluster.host_cpu =
                 v.choice<HostCpu>({{"intel", HostCpu::Intel}, {"amd", HostCpu::Amd}, {"arm", HostCpu::Arm}});
           });
  keys.run(
      "cluster.nic.kind", one_of(nic_kinds()), "custom",
      "The nodes' NICs: custom (at cluster.nic.rate), or a kind whose line rate is cluster.nic.rate's default "
      "(ib_hdr 200Gbps, ib_ndr 400Gbps, ib_xdr 800Gbps, roce_100/200/400, omnipath_100, efa_100, tcpx_200, tcpxo_200; "
      "docs/collectives.md, Cluster presets).",
      [](S& s, const V& v) { s.cluster.nic_kind = v.choice(choices_from(nic_kinds(), &NicTraits::kind)); });
  keys.run("cluster.nic.count", "count", "1", "NICs per node.", [](S& s, const V& v) { s.cluster.nics = v.count(1); });
  keys.run("cluster.nic.rate", "rate", "100Gbps",
           "Per-NIC, per-direction bandwidth; unset, a named cluster.nic.kind gives it.",
           [](S& s, const V& v) { s.cluster.nic.rate = v.positive(Quantity::Rate); });
  keys.run("cluster.nic.latency", "time", "5us", "NIC-to-NIC latency of one message (excluding switch hops).",
           [](S& s, const V& v) { s.cluster.nic.latency = v.quantity(Quantity::Time); });
  keys.run("cluster.nic_profile", "profile", "",
           "Slow or flapping NICs: a bandwidth profile, a file of `time factor` lines or inline "
           "period=2s,duty=0.5,factor=0.25 (full rate for duty x period, then factor x rate); factors in (0, 1] of "
           "the NIC rate; a period of at least 1ms (docs/stragglers.md).",
           [](S& s, const V& v) { s.cluster.nic_profile.source = v.text(); });
  keys.run("cluster.nic_profile_nodes", "indices", "",
           "Nodes whose NICs follow cluster.nic_profile (empty: every node).",
           [](S& s, const V& v) { s.cluster.nic_profile_nodes = v.indices(); });
  keys.run("cluster.topology.kind", "one of: star, fat_tree, torus, dragonfly", "star",
           "How nodes are connected: one switch, a fat-tree, a torus or a dragonfly.", [](S& s, const V& v) {
             s.cluster.topology.kind = v.choice<TopologyKind>({{"star", TopologyKind::Star},
                                                               {"fat_tree", TopologyKind::FatTree},
                                                               {"torus", TopologyKind::Torus},
                                                               {"dragonfly", TopologyKind::Dragonfly}});
           });
  keys.run("cluster.topology.switch_latency", "time", "0.5us", "Latency added per switch or router hop.",
           [](S& s, const V& v) { s.cluster.topology.switch_latency = v.quantity(Quantity::Time); });
  keys.run("cluster.topology.nodes_per_switch", "count", "0", "Fat-tree: nodes under one leaf switch (0 = all).",
           [](S& s, const V& v) { s.cluster.topology.nodes_per_switch = v.count(0); });
  keys.run("cluster.topology.oversubscription", "number", "1",
           "Fat-tree: leaf downlink to uplink capacity ratio (1 to 1000).",
           [](S& s, const V& v) { s.cluster.topology.oversubscription = v.between(1, 1000); });
  keys.run("cluster.topology.dims", "dimensions", "",
           "Torus: dimensions such as 4x4x2 (their product is the node count).",
           [](S& s, const V& v) { s.cluster.topology.dims = v.dims(); });
  keys.run("cluster.topology.groups", "count", "0", "Dragonfly: groups.",
           [](S& s, const V& v) { s.cluster.topology.groups = v.count(0); });
  keys.run("cluster.topology.routers_per_group", "count", "0", "Dragonfly: routers per group.",
           [](S& s, const V& v) { s.cluster.topology.routers_per_group = v.count(0); });
  keys.run("cluster.topology.nodes_per_router", "count", "0", "Dragonfly: nodes per router.",
           [](S& s, const V& v) { s.cluster.topology.nodes_per_router = v.count(0); });
  keys.run("cluster.transport", "one of: rdma, tcp", "rdma",
           "RDMA-like fabric (no slow-start penalty) or TCP (the SimGrid engine applies TCP factors).",
           [](S& s, const V& v) {
             s.cluster.transport = v.choice<Transport>({{"rdma", Transport::Rdma}, {"tcp", Transport::Tcp}});
           });
  keys.run("cluster.servers.placement", "one of: dedicated, colocated", "dedicated",
           "Parameter servers on their own hosts, or sharing worker nodes (one shard per node, round robin).",
           [](S& s, const V& v) {
             s.cluster.server_placement = v.choice<ServerPlacement>(
                 {{"dedicated", ServerPlacement::Dedicated}, {"colocated", ServerPlacement::Colocated}});
           });
  keys.run("cluster.servers.device", "string", "cpu_socket", "The device a parameter server aggregates and updates on.",
           [](S& s, const V& v) { s.cluster.server_device = v.device(); });
  keys.run("cluster.servers.nic_rate", "rate", "100Gbps", "NIC bandwidth of a dedicated server host.",
           [](S& s, const V& v) { s.cluster.server_nic.rate = v.positive(Quantity::Rate); });
  keys.run("cluster.servers.nic_latency", "time", "5us",
           "NIC latency of a dedicated server host: a server and a node are (this + cluster.nic.latency) / 2 apart, "
           "as two nodes are cluster.nic.latency apart (each end's NIC takes half).",
           [](S& s, const V& v) { s.cluster.server_nic.latency = v.quantity(Quantity::Time); });
  keys.run(
      "cluster.calibration", "file", "",
      "A calibration profile from `dtsim calibrate` (relative to the scenario file): compute, link and compression "
      "costs come from its fitted parameters instead of the device and link figures (docs/calibration.md).",
      [](S& s, const V& v) { s.cluster.calibration = load_calibration(v); });

  // strategy
  keys.job("strategy.kind", fmt::format("one of: {}", fmt::join(strategy_names(), ", ")), "allreduce",
           "How gradients are combined.", [](J& j, const V& v) {
             std::vector<std::pair<std::string, StrategyKind>> strategies;
             for (StrategyKind kind : kStrategies) strategies.emplace_back(strategy_name(kind), kind);
             j.strategy.kind = v.choice(strategies);
           });
  keys.job("strategy.workers", "count", "0", "Data-parallel workers; 0 means one per device of the cluster.",
           [](J& j, const V& v) { j.strategy.workers = v.count(0); });
  keys.job("strategy.allreduce.algorithm", "collective algorithm", "",
           "Collective algorithm: ring, double_binary_tree, halving_doubling, hierarchical, direct, or nccl: NCCL's "
           "own choice and time by its cost model on the cluster's GPUs (docs/collectives.md; a measured "
           "cluster.intra_node.collective_busbw or a calibration profile overrides it). Unset: nccl where every "
           "device of the cluster is a GPU, ring otherwise.",
           [](J& j, const V& v) { j.strategy.algorithm = v.text(); });
  keys.job("strategy.allreduce.bucket_size", "bytes", "",
           "Gradient bucket size; a bucket's AllReduce starts when its last gradient is ready. Unset: 25MB (PyTorch "
           "DDP's bucket_cap_mb), and for hybrid jobs Megatron-core's max(40M, 1M x data-parallel size) parameters "
           "of gradients.",
           [](J& j, const V& v) {
             j.strategy.bucket_size = v.positive(Quantity::Bytes);
             j.strategy.bucket_size_given = true;
           });
  keys.job("strategy.allreduce.overlap", "bool", "true", "Overlap bucket AllReduces with the backward pass.",
           [](J& j, const V& v) { j.strategy.overlap = v.boolean(); });
  keys.job("strategy.dynamic_batch", "bool", "false",
           "Dynamic batch sizing (BSP): each worker takes a share of the global batch proportional to its speed, "
           "known in the first iteration (device peak, slow_factor), measured in the previous one afterwards.",
           [](J& j, const V& v) { j.strategy.dynamic_batch = v.boolean(); });
  keys.job("strategy.parameter_server.shards", "count", "1",
           "Parameter-server shards (one server rank each; at most 4096: each shard is a host, and 4096 shards of 4 "
           "workers already take 20 s per run on SimGrid here).",
           [](J& j, const V& v) { j.strategy.ps_shards = v.count(1, 4096); });
  keys.job("strategy.parameter_server.split", "one of: even, by_layer", "even",
           "Parameters split evenly across shards, or whole layers assigned to shards (greedy balance).",
           [](J& j, const V& v) {
             j.strategy.ps_split = v.choice<PsSplit>({{"even", PsSplit::Even}, {"by_layer", PsSplit::ByLayer}});
           });
  keys.job("strategy.parameter_server.overlap", "bool", "true",
           "Each worker pushes a shard as soon as the backward ops of its layers have ended, while the backward pass "
           "goes on (as ps-lite and BytePS push per key); false: every push after the whole backward pass.",
           [](J& j, const V& v) { j.strategy.ps_overlap = v.boolean(); });

  // gradient compression (docs/compression.md)
  keys.job("compression.method", fmt::format("one of: {}", fmt::join(compressor_names(), ", ")), "none",
           "Gradient compressor. Dense ones (fp16, bf16, int8, qsgd) are AllReduced; topk, randomk and sign are "
           "AllGathered (their size grows with the workers); powersgd runs two AllReduces (P and Q).",
           [](J& j, const V& v) {
             j.compression.method = v.choice(choices_from(compression_methods(), &MethodTraits::method));
           });
  keys.job("compression.levels", "count", "127", "qsgd: quantisation levels s (ceil(log2(s+1)) + 1 bits per element).",
           [](J& j, const V& v) { j.compression.levels = v.count(1); });
  keys.job("compression.ratio", "number", "0.01", "topk and randomk: fraction of the elements sent, in (0, 1].",
           [](J& j, const V& v) {
             const double r = v.quantity(Quantity::Number);
             if (!(r > 0) || r > 1) v.fail(fmt::format("must be in (0, 1] (got {})", v.text()));
             j.compression.ratio = r;
           });
  keys.job("compression.error_feedback", "bool", "true",
           "Keep what was not sent and add it to the next gradient (costs 2 FLOPs and 6 element passes per "
           "element; fp16 and bf16 ignore it).",
           [](J& j, const V& v) { j.compression.error_feedback = v.boolean(); });
  keys.job("compression.rank", "count", "4", "powersgd: rank r of the factors P and Q.",
           [](J& j, const V& v) { j.compression.rank = v.count(1); });
  keys.job("compression.min_size", "bytes", "0B", "Buckets (or layers) smaller than this go uncompressed.",
           [](J& j, const V& v) { j.compression.min_size = v.quantity(Quantity::Bytes); });
  keys.job("compression.granularity", "one of: bucket, layer", "bucket",
           "Compress each gradient bucket, or each layer's gradient on its own (parameter server: each shard).",
           [](J& j, const V& v) {
             j.compression.granularity = v.choice<CompressionGranularity>(
                 {{"bucket", CompressionGranularity::Bucket}, {"layer", CompressionGranularity::Layer}});
           });
  keys.job("compression.cost_scale", "number", "1",
           "Advanced: multiplies every compress and decompress cost (0 makes compression free, for what-if runs "
           "and calibration).",
           [](J& j, const V& v) { j.compression.cost_scale = v.between(0, 1e6); });

  // placement of the job on the cluster
  keys.job("placement.first_node", "count", "0", "First node the job runs on.",
           [](J& j, const V& v) { j.placement.first_node = v.count(0); });
  keys.job("placement.nodes", "count", "0", "Nodes the job runs on; 0 means all from first_node on.",
           [](J& j, const V& v) { j.placement.nodes = v.count(0); });
  keys.job("placement.first_local", "count", "0", "First device within each node the job uses.",
           [](J& j, const V& v) { j.placement.first_local = v.count(0); });
  keys.job("placement.devices_per_node", "count", "0",
           "Devices per node the job uses; 0 means all from first_local on.",
           [](J& j, const V& v) { j.placement.devices_per_node = v.count(0); });

  // stragglers
  keys.job("stragglers.slow_workers", "indices", "",
           "Which workers are slow, by their indices within the job (2: worker 2, not two workers; 0,5: workers 0 and "
           "5): their compute is always slower by slow_factor. The summary's stragglers row names them.",
           [](J& j, const V& v) { j.stragglers.slow_workers = v.indices(); });
  keys.job("stragglers.slow_factor", "number", "1", "How many times slower the slow workers compute (1 to 1000).",
           [](J& j, const V& v) { j.stragglers.slow_factor = v.between(1, 1000); });
  keys.job("stragglers.jitter", "one of: none, lognormal, exponential, hiccup", "none",
           "Per-iteration random slowdown of every worker's compute, seeded by run.seed.", [](J& j, const V& v) {
             j.stragglers.jitter = v.choice<Jitter>({{"none", Jitter::None},
                                                     {"lognormal", Jitter::Lognormal},
                                                     {"exponential", Jitter::Exponential},
                                                     {"hiccup", Jitter::Hiccup}});
           });
  keys.job("stragglers.sigma", "number", "0.1",
           "lognormal: standard deviation of the factor's logarithm (median 1; 0 to 5).",
           [](J& j, const V& v) { j.stragglers.sigma = v.between(0, 5); });
  keys.job("stragglers.tail_mean", "number", "0.1",
           "exponential: the factor is 1 + an exponential of this mean (0 to 1000).",
           [](J& j, const V& v) { j.stragglers.tail_mean = v.between(0, 1000); });
  keys.job("stragglers.hiccup_probability", "number", "0.01", "hiccup: chance per worker and iteration of a hiccup.",
           [](J& j, const V& v) {
             const double p = v.at_least(0.0);
             if (p > 1) v.fail(fmt::format("must be at most 1 (got {})", v.text()));
             j.stragglers.hiccup_probability = p;
           });
  keys.job("stragglers.hiccup_factor", "number", "3",
           "hiccup: how many times slower a hiccuping iteration computes (1 to 1000).",
           [](J& j, const V& v) { j.stragglers.hiccup_factor = v.between(1, 1000); });

  keys.job("stragglers.speed_profile", "profile", "",
           "Time-varying device speed: a file of `time factor` lines (optionally `period 60s`) or inline "
           "period=10s,duty=0.5,factor=0.5; factors > 0 multiply the device's speed; a period of at least 1ms "
           "(docs/stragglers.md).",
           [](J& j, const V& v) { j.stragglers.speed_profile.source = v.text(); });
  keys.job("stragglers.profile_workers", "indices", "",
           "Workers (indices within the job) whose device follows stragglers.speed_profile (empty: every worker).",
           [](J& j, const V& v) { j.stragglers.profile_workers = v.indices(); });

  // sync and run
  keys.job("sync.policy", fmt::format("one of: {}", fmt::join(policy_names(), ", ")), "bsp",
           "Bulk-synchronous; asynchronous (parameter server: each push applied at once, the worker pulls the "
           "latest); stale-synchronous (as asp, but a worker waits while more than sync.staleness iterations ahead); "
           "local SGD (AllReduce: workers step alone and average their models every sync.period iterations); "
           "backup workers (AllReduce: each iteration keeps the first gradients and drops the sync.backup_workers "
           "slowest); gossip (AD-PSGD: each worker averages its model with one random peer after each step, no "
           "barrier).",
           [](J& j, const V& v) { j.sync.kind = v.choice(choices_from(sync_policies(), &SyncPolicyTraits::kind)); });
  keys.job("sync.period", "count", "1", "local SGD: iterations between two model averages (H >= 1).",
           [](J& j, const V& v) { j.sync.period = v.count(1); });
  keys.job("sync.staleness", "count", "0", "SSP: the staleness bound s (s = 0 waits for every worker each iteration).",
           [](J& j, const V& v) { j.sync.staleness = v.count(0); });
  keys.job("sync.backup_workers", "count", "0",
           "backup: b of the job's workers are spares; each iteration keeps the first (workers - b) gradients and "
           "drops the b slowest (Chen et al. 2016).",
           [](J& j, const V& v) { j.sync.backup_workers = v.count(0); });
  keys.run("run.iterations", "count", "10", "Iterations to run (after warm-up).",
           [](S& s, const V& v) { s.run.iterations = v.count(1); });
  keys.run("run.warmup", "count", "1", "Warm-up iterations, run first and left out of the statistics.",
           [](S& s, const V& v) { s.run.warmup = v.count(0); });
  keys.run("run.engine", "one of: " + engine_names(), std::string(engine_name(Engine::SimGrid)),
           "The executor: discrete events on SimGrid (contention is real), or closed forms (fast, no contention).",
           [](S& s, const V& v) {
             std::vector<std::pair<std::string, Engine>> named;
             for (const EngineTraits& e : engines()) named.emplace_back(e.name, e.engine);
             s.run.engine = v.choice(named);
           });
  keys.run("run.fidelity", "one of: flow, step", "flow",
           "SimGrid detail: one flow per link per collective phase, or every round of the algorithm as a message.",
           [](S& s, const V& v) {
             s.run.fidelity = v.choice<Fidelity>({{"flow", Fidelity::Flow}, {"step", Fidelity::Step}});
           });
  keys.run("run.fuse_compute", "bool", "true",
           "SimGrid: issue consecutive compute ops nothing else waits on as one activity (same results, faster).",
           [](S& s, const V& v) { s.run.fuse_compute = v.boolean(); });
  keys.run("run.seed", "count", "1", "Seed of every random choice in the run.",
           [](S& s, const V& v) { s.run.seed = v.count(0); });
  add_hybrid_keys(keys);
  add_fault_keys(keys);
  add_framework_keys(keys);
  add_tune_keys(keys);
  add_convergence_keys(keys);
  return std::move(keys).take();
}

}  // namespace

const std::vector<ScenarioKey>& scenario_keys() {
  static const std::vector<ScenarioKey> keys = build_keys();
  return keys;
}

const ScenarioKey* find_scenario_key(const std::string& path) {
  for (const auto& key : scenario_keys()) {
    if (key.path == path) return &key;
  }
  return nullptr;
}

std::string scenario_keys_markdown() {
  std::string out =
      "# Scenario keys\n\n"
      "Generated by `dtsim keys --markdown` from the loader's key table (core/scenario/schema.cpp); a test keeps\n"
      "this file in step. Units: sizes B, KB, MB, GB, TB, KiB, MiB, GiB, TiB; rates bps, Kbps, Mbps, Gbps, Tbps,\n"
      "B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s; times ns, us, ms, s, min, h; FLOP counts FLOP, GFLOP,\n"
      "TFLOP, ...; FLOP rates GFLOPS, TFLOPS, PFLOPS. Any key can be overridden with `--set key=value`.\n"
      "Values outside what is physically meaningful are refused with the bound: times from 0 to 1e9 s, sizes from\n"
      "0 to 1 PB, rates 0 or from 1 B/s to 100 TB/s, FLOP counts up to 1 EFLOP, FLOP rates 0 or from 1 FLOP/s to 1\n"
      "EFLOP/s, counts up to 1e9 (model shapes less: their keys say so);\n"
      "numbers as each key's meaning says. A key given twice in one mapping is refused with both lines.\n\n"
      "Job keys (`model.*`, `strategy.*`, `compression.*`, `placement.*`, `sync.*`, `stragglers.*`, `faults.*`,\n"
      "`framework.*`) "
      "describe one training job. For one job they go at the top level. For several jobs sharing the cluster,\n"
      "give a `jobs:` list instead; each entry holds a `name` and its own job keys, and `--set jobs.N.key=value`\n"
      "reaches job N (from 0). Two jobs may not share a device. See `scenarios/two_jobs.yaml` and\n"
      "`scenarios/ps_vs_allreduce.yaml`.\n\n"
      "| key | type | default | meaning |\n|---|---|---|---|\n";
  for (const auto& key : scenario_keys()) {
    const std::string def = key.required ? "(required)" : (key.default_value.empty() ? "-" : key.default_value);
    out += fmt::format("| `{}` | {} | {} | {} |\n", key.path, key.type, def, key.doc);
  }
  return out;
}

}  // namespace dtsim
