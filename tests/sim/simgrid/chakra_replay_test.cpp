// Chakra traces replayed on both engines: hand-built traces with known answers (a chain of compute
// nodes, a send/recv pair, ring AllReduces on named groups against the alpha-beta closed form) and
// dtsim's own scenarios exported and imported back (same ops, same iteration time).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "core/plan/chakra/export.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "models/cost/cost_model.hpp"
#include "tests/support/both_engines.hpp"
#include "tests/support/chakra_traces.hpp"

namespace dtsim::test {
namespace {

using T = EtNodeType;

// The star of replay_scenario: 5 us per message, 100 Gbit/s.
constexpr double kAlpha = 5e-6;
constexpr double kBandwidth = 100e9 / 8;

EtNode coll(std::uint64_t id, std::vector<std::uint64_t> deps, double bytes, const std::string& pg) {
  return et_node(
      id, T::Collective, std::move(deps),
      {et_int("comm_type", 0), et_int("comm_size", static_cast<std::int64_t>(bytes)), et_text("pg_name", pg)});
}

void check_both(const Scenario& s, double expected, double tolerance) {
  const BothEngines t = iteration_on_both(s);
  INFO("expected " << expected << " s");
  CHECK(t.analytical == Approx(expected).epsilon(tolerance));
  CHECK(t.simgrid == Approx(expected).epsilon(tolerance));
}

// Exports the scenario's plan as traces, imports them on the same cluster (and `replay_keys`) and compares.
void round_trip(const std::string& name, const std::string& yaml, const std::string& replay_keys = "") {
  const Scenario original = load_scenario_text(yaml, name + ".yaml");
  const Plan plan = compile_plan(original);
  const cost::CostModel model(original.cluster, plan);
  const std::string dir = chakra_folder(name);
  for (const RankProgram& r : plan.ranks) {
    const EtTrace t = export_chakra_rank(plan, r.rank, [&](const RankProgram& rank, const Op& op) {
      const auto* c = std::get_if<ComputeOp>(&op.body);
      return c != nullptr ? model.compute_time(rank, *c) : 0.0;
    });
    write_et(fmt::format("{}/{}.{}.et", dir, name, r.rank), t);
  }
  // The same cluster and run, the workload from the traces.
  const std::string cluster = yaml.substr(yaml.find("cluster:"));
  const Scenario replay = load_scenario_text(
      fmt::format("name: {}\nworkload: {{chakra: {}, chakra_timing: roofline}}\n{}{}", name, dir, replay_keys, cluster),
      "rt.yaml");
  const Plan imported = compile_plan(replay);
  CHECK(imported.total_ops() == plan.total_ops());
  CHECK(imported.groups.size() == plan.groups.size());
  CHECK(imported.warnings.empty());
  const BothEngines a = iteration_on_both(original);
  const BothEngines b = iteration_on_both(replay);
  CHECK(b.analytical == Approx(a.analytical).epsilon(1e-3));
  CHECK(b.simgrid == Approx(a.simgrid).epsilon(1e-3));
}

}  // namespace

TEST_CASE("a chain of Chakra compute nodes lasts the sum of its durations, or of its rooflines", "[chakra]") {
  if (!chakra_supported()) return;
  const std::string prefix =
      write_set("chain", {et_trace({et_node(1, T::Compute, {}, {et_int("num_ops", 2'000'000'000)}, 100),
                                    et_node(2, T::Compute, {1}, {et_int("num_ops", 4'000'000'000)}, 200),
                                    et_node(3, T::MemLoad, {2}, {et_int("tensor_size", 1'000'000'000)}, 300)})});
  check_both(replay_scenario(prefix, 1, "duration"), 600e-6, 1e-9);
  const Scenario roofline = replay_scenario(prefix, 1, "roofline");
  const DeviceSpec& d = roofline.cluster.device;
  const double flops_rate = d.peak(Dtype::Fp32) * roofline.cluster.efficiency;
  check_both(roofline, 6e9 / flops_rate + 1e9 / d.mem_bandwidth, 1e-9);
}

TEST_CASE("a Chakra send/recv pair: the sender's compute and the transfer, the receiver's compute overlapped",
          "[chakra]") {
  if (!chakra_supported()) return;
  const double bytes = 10e6;
  const auto size = static_cast<std::int64_t>(bytes);
  const std::string prefix = write_set(
      "pair",
      {et_trace({et_node(1, T::Compute, {}, {}, 100),
                 et_node(2, T::Send, {1}, {et_int("comm_dst", 1), et_int("comm_size", size), et_int("comm_tag", 7)})}),
       et_trace({et_node(5, T::Recv, {}, {et_int("comm_src", 0), et_int("comm_size", size), et_int("comm_tag", 7)}),
                 et_node(6, T::Compute, {5}, {}, 50)})});
  // Each iteration, rank 0 computes then sends; rank 1 computes while rank 0 computes the next.
  check_both(replay_scenario(prefix, 2), 100e-6 + kAlpha + bytes / kBandwidth, 1e-6);
}

TEST_CASE("a ring AllReduce on a named Chakra group matches the alpha-beta closed form", "[chakra]") {
  if (!chakra_supported()) return;
  const double bytes = 64e6;
  SECTION("the group of every rank, described in the metadata") {
    const EtAttr members{"pg_ranks.dp", std::vector<std::int64_t>{0, 1, 2, 3}};
    std::vector<EtTrace> ranks;
    for (int r = 0; r < 4; ++r) ranks.push_back(et_trace({coll(1, {}, bytes, "dp")}, {members}));
    const int n = 4;
    // 2 (N - 1) steps of S / N each: 2 (N - 1) alpha + 2 (N - 1) / N x S / B.
    check_both(replay_scenario(write_set("ring4", ranks), n),
               2 * (n - 1) * kAlpha + 2.0 * (n - 1) / n * bytes / kBandwidth, 1e-6);
  }
  SECTION("a group of two of four ranks, named only by their nodes") {
    std::vector<EtTrace> ranks;
    for (int r = 0; r < 4; ++r) {
      ranks.push_back(r % 2 == 0 ? et_trace({coll(1, {}, bytes, "even")})
                                 : et_trace({et_node(1, T::Compute, {}, {}, 1)}));
    }
    check_both(replay_scenario(write_set("ring2", ranks), 4), 2 * kAlpha + bytes / kBandwidth, 1e-6);
  }
}

TEST_CASE("dtsim's data-parallel, parameter-server and hybrid plans export to Chakra and replay the same", "[chakra]") {
  if (!chakra_supported()) return;
  const std::string cluster = R"(cluster:
  nodes: 2
  devices_per_node: 2
  device: a100_40gb
  intra_node: {kind: nvlink, rate: 300GB/s, latency: 2us}
  nic: {rate: 100Gbps, latency: 5us}
run: {iterations: 3, warmup: 1}
)";
  round_trip("dp", "model: {name: resnet50, batch_per_worker: 32, dtype: fp16}\n" + cluster);
  // torch.optim's for-loop Adam issues 9 kernels per parameter tensor (1,449 for ResNet-50), 20 us each: the trace
  // keeps the step's launches, or the replay would floor it at one.
  round_trip("dp_unfused",
             "model: {name: resnet50, batch_per_worker: 32, dtype: fp16, optimizer: adam}\n"
             "framework: {optimizer_kernels: per_tensor, kernel_launch: 20us}\n" +
                 cluster,
             "framework: {kernel_launch: 20us}\n");
  round_trip("ps", R"(model: {name: resnet50, batch_per_worker: 32, dtype: fp16}
strategy: {kind: parameter_server, parameter_server: {shards: 2}}
cluster:
  nodes: 4
  devices_per_node: 1
  device: v100
  nic: {rate: 25Gbps, latency: 10us}
  servers: {placement: dedicated, nic_rate: 100Gbps}
run: {iterations: 3, warmup: 1}
)");
  round_trip("hybrid", R"(model:
  name: transformer
  transformer: {layers: 4, hidden: 1024, heads: 16, seq_len: 1024, vocab: 32000}
  dtype: bf16
  grad_dtype: bf16
  optimizer: adam
strategy: {kind: hybrid, tensor: 2, pipeline: 2, micro_batch: 1, global_batch: 8}
cluster:
  nodes: 2
  devices_per_node: 4
  device: a100_80gb
  nic: {rate: 200Gbps, latency: 5us}
run: {iterations: 3, warmup: 1}
)");
  // Two-pass LayerNorms on rows that miss L2: their second read travels in the trace (dtsim.reread).
  round_trip("hybrid_two_pass", R"(model:
  name: transformer
  transformer: {layers: 2, hidden: 8192, heads: 64, seq_len: 512, vocab: 32000}
  dtype: bf16
  optimizer: adam
strategy: {kind: hybrid, tensor: 2, pipeline: 2, micro_batch: 1, global_batch: 4}
framework: {norm_kernel: two_pass}
cluster:
  nodes: 2
  devices_per_node: 2
  device: a100_80gb
  nic: {rate: 200Gbps, latency: 5us}
run: {iterations: 3, warmup: 1}
)");
}

}  // namespace dtsim::test
