// The scenario key table. Defaults are text parsed exactly like a user's value.
#include "models/scenario_schema.hpp"

#include <fmt/format.h>

namespace dtsim {
namespace {

using S = Scenario;
using V = ScalarValue;

const std::vector<std::pair<std::string, Dtype>> kDtypes{
    {"fp32", Dtype::Fp32}, {"tf32", Dtype::Tf32}, {"fp16", Dtype::Fp16}, {"bf16", Dtype::Bf16}};

std::vector<ScenarioKey> build_keys() {
  std::vector<ScenarioKey> k;
  auto add = [&k](std::string path, std::string type, std::string def, std::string doc,
                  std::function<void(S&, const V&)> set) {
    k.push_back(ScenarioKey{std::move(path), std::move(type), std::move(def), false, std::move(doc), std::move(set)});
  };
  auto required = [&k](std::string path, std::string type, std::string doc, std::function<void(S&, const V&)> set) {
    k.push_back(ScenarioKey{std::move(path), std::move(type), "", true, std::move(doc), std::move(set)});
  };

  add("name", "string", "", "A name for the run, shown in summaries and metrics.", [](S& s, const V& v) {
    s.name = v.text();
  });

  // model
  add("model.name", "string", "",
      "A zoo model (`dtsim models list`), `transformer` (see model.transformer.*) or `synthetic` (see "
      "model.synthetic.*). Give this or model.file.",
      [](S& s, const V& v) { s.model.name = v.text(); });
  add("model.file", "path", "", "A layer table in the zoo's format (docs/models.md), relative to the scenario file.",
      [](S& s, const V& v) { s.model.file = v.text(); });
  add("model.batch_per_worker", "count", "32", "Samples each worker processes per iteration.",
      [](S& s, const V& v) { s.model.batch_per_worker = v.count(1); });
  add("model.dtype", "one of: fp32, tf32, fp16, bf16", "fp32", "Compute dtype (picks the device's peak FLOP/s).",
      [](S& s, const V& v) { s.model.dtype = v.choice(kDtypes); });
  add("model.grad_dtype", "one of: fp32, tf32, fp16, bf16", "fp32", "Dtype of gradients and parameters on the wire.",
      [](S& s, const V& v) { s.model.grad_dtype = v.choice(kDtypes); });
  add("model.optimizer", "one of: sgd, momentum, adam", "sgd",
      "Optimizer; sets the state read and written by the update step (0, 1 or 2 extra copies of the weights).",
      [](S& s, const V& v) {
        s.model.optimizer = v.choice<Optimizer>(
            {{"sgd", Optimizer::Sgd}, {"momentum", Optimizer::Momentum}, {"adam", Optimizer::Adam}});
      });
  add("model.transformer.layers", "count", "12", "Transformer blocks.",
      [](S& s, const V& v) { s.model.transformer.layers = v.count(1); });
  add("model.transformer.hidden", "count", "768", "Hidden size d_model.",
      [](S& s, const V& v) { s.model.transformer.hidden = v.count(1); });
  add("model.transformer.heads", "count", "12", "Attention heads (must divide hidden).",
      [](S& s, const V& v) { s.model.transformer.heads = v.count(1); });
  add("model.transformer.seq_len", "count", "1024", "Tokens per sample (sequence length).",
      [](S& s, const V& v) { s.model.transformer.seq_len = v.count(1); });
  add("model.transformer.vocab", "count", "50257", "Vocabulary size.",
      [](S& s, const V& v) { s.model.transformer.vocab = v.count(1); });
  add("model.transformer.ffn", "count", "0", "Feed-forward width; 0 means 4 x hidden.",
      [](S& s, const V& v) { s.model.transformer.ffn = v.count(0); });
  add("model.transformer.encoder", "bool", "false", "BERT-style encoder (token types, pooler) instead of GPT-style.",
      [](S& s, const V& v) { s.model.transformer.encoder = v.boolean(); });
  add("model.synthetic.params", "number", "0", "Synthetic workload: total trainable parameters.",
      [](S& s, const V& v) { s.model.synthetic_params = v.quantity(Quantity::Number); });
  add("model.synthetic.flops_per_sample", "FLOP count", "0", "Synthetic workload: forward FLOPs per sample.",
      [](S& s, const V& v) { s.model.synthetic_flops = v.quantity(Quantity::Flops); });
  add("model.synthetic.layers", "count", "1", "Synthetic workload: equal layers the totals are spread over.",
      [](S& s, const V& v) { s.model.synthetic_layers = v.count(1); });

  // cluster
  add("cluster.nodes", "count", "1", "Nodes (hosts) in the cluster.", [](S& s, const V& v) {
    s.cluster.nodes = v.count(1);
  });
  add("cluster.devices_per_node", "count", "1", "Devices (GPUs or CPU sockets) per node.",
      [](S& s, const V& v) { s.cluster.devices_per_node = v.count(1); });
  required("cluster.device", "string", "A device from the zoo (`dtsim devices`).",
           [](S& s, const V& v) { s.cluster.device = v.device(); });
  add("cluster.efficiency", "number", "0",
      "Achieved fraction of peak FLOP/s, in (0, 1]; 0 takes the device zoo's typical value.",
      [](S& s, const V& v) {
        const double e = v.quantity(Quantity::Number);
        if (e < 0 || e > 1) v.fail(fmt::format("must be in (0, 1] (got {})", v.text()));
        s.cluster.efficiency = e;
      });
  add("cluster.intra_node.kind", "one of: nvlink, pcie", "nvlink", "The link between devices of one node.",
      [](S& s, const V& v) {
        s.cluster.intra_kind = v.choice<IntraLinkKind>({{"nvlink", IntraLinkKind::NvLink}, {"pcie", IntraLinkKind::Pcie}});
      });
  add("cluster.intra_node.rate", "rate", "300GB/s", "Per-device, per-direction bandwidth inside a node.",
      [](S& s, const V& v) { s.cluster.intra.rate = v.positive(Quantity::Rate); });
  add("cluster.intra_node.latency", "time", "2us", "Latency of one message inside a node.",
      [](S& s, const V& v) { s.cluster.intra.latency = v.quantity(Quantity::Time); });
  add("cluster.nic.count", "count", "1", "NICs per node.", [](S& s, const V& v) { s.cluster.nics = v.count(1); });
  add("cluster.nic.rate", "rate", "100Gbps", "Per-NIC, per-direction bandwidth.",
      [](S& s, const V& v) { s.cluster.nic.rate = v.positive(Quantity::Rate); });
  add("cluster.nic.latency", "time", "5us", "NIC-to-NIC latency of one message (excluding switch hops).",
      [](S& s, const V& v) { s.cluster.nic.latency = v.quantity(Quantity::Time); });
  add("cluster.topology.kind", "one of: star, fat_tree, torus, dragonfly", "star",
      "How nodes are connected: one switch, a fat-tree, a torus or a dragonfly.", [](S& s, const V& v) {
        s.cluster.topology.kind = v.choice<TopologyKind>({{"star", TopologyKind::Star},
                                                          {"fat_tree", TopologyKind::FatTree},
                                                          {"torus", TopologyKind::Torus},
                                                          {"dragonfly", TopologyKind::Dragonfly}});
      });
  add("cluster.topology.switch_latency", "time", "0.5us", "Latency added per switch or router hop.",
      [](S& s, const V& v) { s.cluster.topology.switch_latency = v.quantity(Quantity::Time); });
  add("cluster.topology.nodes_per_switch", "count", "0", "Fat-tree: nodes under one leaf switch (0 = all).",
      [](S& s, const V& v) { s.cluster.topology.nodes_per_switch = v.count(0); });
  add("cluster.topology.oversubscription", "number", "1", "Fat-tree: leaf downlink to uplink capacity ratio (>= 1).",
      [](S& s, const V& v) {
        const double o = v.quantity(Quantity::Number);
        if (o < 1) v.fail(fmt::format("must be at least 1 (got {})", v.text()));
        s.cluster.topology.oversubscription = o;
      });
  add("cluster.topology.dims", "dimensions", "", "Torus: dimensions such as 4x4x2 (their product is the node count).",
      [](S& s, const V& v) { s.cluster.topology.dims = v.dims(); });
  add("cluster.topology.groups", "count", "0", "Dragonfly: groups.",
      [](S& s, const V& v) { s.cluster.topology.groups = v.count(0); });
  add("cluster.topology.routers_per_group", "count", "0", "Dragonfly: routers per group.",
      [](S& s, const V& v) { s.cluster.topology.routers_per_group = v.count(0); });
  add("cluster.topology.nodes_per_router", "count", "0", "Dragonfly: nodes per router.",
      [](S& s, const V& v) { s.cluster.topology.nodes_per_router = v.count(0); });
  add("cluster.transport", "one of: rdma, tcp", "rdma",
      "RDMA-like fabric (no slow-start penalty) or TCP (the SimGrid engine applies TCP factors).",
      [](S& s, const V& v) {
        s.cluster.transport = v.choice<Transport>({{"rdma", Transport::Rdma}, {"tcp", Transport::Tcp}});
      });
  add("cluster.servers.placement", "one of: dedicated, colocated", "dedicated",
      "Parameter servers on their own hosts, or sharing worker nodes (one shard per node, round robin).",
      [](S& s, const V& v) {
        s.cluster.server_placement =
            v.choice<ServerPlacement>({{"dedicated", ServerPlacement::Dedicated}, {"colocated", ServerPlacement::Colocated}});
      });
  add("cluster.servers.device", "string", "cpu_socket", "The device a parameter server aggregates and updates on.",
      [](S& s, const V& v) { s.cluster.server_device = v.device(); });
  add("cluster.servers.nic_rate", "rate", "100Gbps", "NIC bandwidth of a dedicated server host.",
      [](S& s, const V& v) { s.cluster.server_nic.rate = v.positive(Quantity::Rate); });
  add("cluster.servers.nic_latency", "time", "5us", "NIC latency of a dedicated server host.",
      [](S& s, const V& v) { s.cluster.server_nic.latency = v.quantity(Quantity::Time); });

  // strategy
  add("strategy.kind", "one of: allreduce, parameter_server", "allreduce", "How gradients are combined.",
      [](S& s, const V& v) {
        s.strategy.kind = v.choice<StrategyKind>(
            {{"allreduce", StrategyKind::AllReduce}, {"parameter_server", StrategyKind::ParameterServer}});
      });
  add("strategy.workers", "count", "0", "Data-parallel workers; 0 means one per device of the cluster.",
      [](S& s, const V& v) { s.strategy.workers = v.count(0); });
  add("strategy.allreduce.algorithm", "collective algorithm", "ring",
      "AllReduce algorithm: ring, double_binary_tree, halving_doubling, hierarchical.",
      [](S& s, const V& v) { s.strategy.algorithm = v.text(); });
  add("strategy.allreduce.bucket_size", "bytes", "25MB",
      "Gradient bucket size (PyTorch DDP's bucket_cap_mb); a bucket's AllReduce starts when its last gradient is ready.",
      [](S& s, const V& v) { s.strategy.bucket_size = v.positive(Quantity::Bytes); });
  add("strategy.allreduce.overlap", "bool", "true", "Overlap bucket AllReduces with the backward pass.",
      [](S& s, const V& v) { s.strategy.overlap = v.boolean(); });
  add("strategy.parameter_server.shards", "count", "1", "Parameter-server shards (one server rank each).",
      [](S& s, const V& v) { s.strategy.ps_shards = v.count(1); });
  add("strategy.parameter_server.split", "one of: even, by_layer", "even",
      "Parameters split evenly across shards, or whole layers assigned to shards (greedy balance).",
      [](S& s, const V& v) { s.strategy.ps_split = v.choice<PsSplit>({{"even", PsSplit::Even}, {"by_layer", PsSplit::ByLayer}}); });

  // sync and run
  add("sync.policy", "one of: bsp", "bsp", "Synchronisation between iterations: bulk-synchronous.",
      [](S& s, const V& v) { s.sync.kind = v.choice<SyncKind>({{"bsp", SyncKind::Bsp}}); });
  add("run.iterations", "count", "10", "Iterations to run (after warm-up).",
      [](S& s, const V& v) { s.run.iterations = v.count(1); });
  add("run.warmup", "count", "1", "Warm-up iterations, run first and left out of the statistics.",
      [](S& s, const V& v) { s.run.warmup = v.count(0); });
  add("run.engine", "one of: analytical, simgrid", "analytical", "The executor: closed forms or discrete events.",
      [](S& s, const V& v) { s.run.engine = v.choice<Engine>({{"analytical", Engine::Analytical}, {"simgrid", Engine::SimGrid}}); });
  add("run.fidelity", "one of: flow, step", "flow",
      "SimGrid detail: one flow per link per collective phase, or every round of the algorithm as a message.",
      [](S& s, const V& v) { s.run.fidelity = v.choice<Fidelity>({{"flow", Fidelity::Flow}, {"step", Fidelity::Step}}); });
  add("run.seed", "count", "1", "Seed of every random choice in the run.",
      [](S& s, const V& v) { s.run.seed = v.count(0); });
  return k;
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
      "Generated by `dtsim keys --markdown` from the loader's key table (models/scenario_schema.cpp); a test keeps\n"
      "this file in step. Units: sizes B, KB, MB, GB, TB, KiB, MiB, GiB, TiB; rates bps, Kbps, Mbps, Gbps, Tbps,\n"
      "B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s; times ns, us, ms, s, min, h; FLOP counts FLOP, GFLOP,\n"
      "TFLOP, ...; FLOP rates GFLOPS, TFLOPS, PFLOPS. Any key can be overridden with `--set key=value`.\n\n"
      "| key | type | default | meaning |\n|---|---|---|---|\n";
  for (const auto& key : scenario_keys()) {
    const std::string def = key.required ? "(required)" : (key.default_value.empty() ? "-" : key.default_value);
    out += fmt::format("| `{}` | {} | {} | {} |\n", key.path, key.type, def, key.doc);
  }
  return out;
}

}  // namespace dtsim
