// The symmetric fast path equals the full analytical engine (within 1e-9 relative) on every
// scenario in scenarios/ and on sweeps over cluster size, algorithm, overlap and batch.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/engine.hpp"
#include "sim/analytical/symmetric.hpp"

namespace {

using namespace dtsim;

std::vector<Metrics> full_engine(const Scenario& s) {
  const Plan plan = compile_plan(s);
  Recorder rec;
  analytical::AnalyticalExecutor engine(s.cluster);
  const RunInfo info = engine.run(plan, rec);
  return compute_job_metrics(plan, rec.records(), info);
}

void check_close(double fast, double full, const std::string& what) {
  INFO(what << ": fast " << fast << " full " << full);
  CHECK(std::abs(fast - full) <= 1e-9 * std::max(std::abs(full), 1e-30));
}

void check_same(const Metrics& fast, const Metrics& full) {
  CHECK(fast.workers == full.workers);
  CHECK(fast.servers == full.servers);
  check_close(fast.iteration_time.mean, full.iteration_time.mean, "iteration mean");
  check_close(fast.iteration_time.p99, full.iteration_time.p99, "iteration p99");
  check_close(fast.iteration_time.min, full.iteration_time.min, "iteration min");
  check_close(fast.throughput_samples_per_s, full.throughput_samples_per_s, "throughput");
  check_close(fast.simulated_time_s, full.simulated_time_s, "simulated time");
  check_close(fast.compute_fraction, full.compute_fraction, "compute fraction");
  check_close(fast.comm_fraction, full.comm_fraction, "comm fraction");
  check_close(fast.exposed_comm_fraction, full.exposed_comm_fraction, "exposed fraction");
  check_close(fast.wait_fraction + 1, full.wait_fraction + 1, "wait fraction + 1");
  check_close(fast.bytes_on_wire_per_iteration, full.bytes_on_wire_per_iteration, "bytes on wire");
  REQUIRE(fast.ranks.size() == full.ranks.size());
  for (size_t i = 0; i < full.ranks.size(); ++i) {
    CHECK(fast.ranks[i].rank == full.ranks[i].rank);
    CHECK(fast.ranks[i].node == full.ranks[i].node);
    check_close(fast.ranks[i].compute_s, full.ranks[i].compute_s, "rank compute");
    check_close(fast.ranks[i].exposed_comm_s + 1, full.ranks[i].exposed_comm_s + 1, "rank exposed + 1");
    check_close(fast.ranks[i].bytes_sent + 1, full.ranks[i].bytes_sent + 1, "rank bytes + 1");
  }
}

void check_scenario(const std::string& file, const std::vector<std::string>& sets) {
  INFO(file << " " << (sets.empty() ? "" : sets.back()));
  const Scenario s = load_scenario(file, sets);
  const auto fast = analytical::run_symmetric(s);
  REQUIRE(fast.has_value());
  const auto full = full_engine(s);
  REQUIRE(fast->size() == full.size());
  check_same(fast->front(), full.front());
}

const std::string kScenarios = std::string(DTSIM_SOURCE_DIR) + "/scenarios";

}  // namespace

TEST_CASE("symmetric fast path equals the full analytical engine on every scenario") {
  int fast_count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".yaml") continue;
    // Hybrid jobs without contention: the fast path's composites then equal the kernels exactly
    // (under it they keep an even mix of their parts' rates; bounded below).
    const bool hybrid = load_scenario(entry.path().string()).job().strategy.kind == StrategyKind::Hybrid;
    const Scenario s =
        load_scenario(entry.path().string(),
                      hybrid ? std::vector<std::string>{"cluster.contention.compute=1"} : std::vector<std::string>{});
    INFO(entry.path().string());
    const auto via = analytical::run_analytical(s);
    const auto full = full_engine(s);
    REQUIRE(via.size() == full.size());
    for (size_t j = 0; j < full.size(); ++j) check_same(via[j], full[j]);
    if (analytical::is_symmetric(s)) {
      ++fast_count;
      check_same(analytical::run_symmetric(s)->front(), full.front());
    } else {
      CHECK_FALSE(analytical::run_symmetric(s).has_value());
    }
  }
  CHECK(fast_count >= 3);
}

TEST_CASE("symmetric fast path equals the full engine over a sweep of sizes and algorithms") {
  const std::string quick = kScenarios + "/quickstart.yaml";
  for (const char* algo : {"ring", "halving_doubling", "double_binary_tree", "hierarchical"}) {
    for (int nodes : {1, 2, 3, 4, 8, 16}) {
      if (std::string(algo) == "halving_doubling" && nodes == 3) continue;
      check_scenario(quick,
                     {"cluster.nodes=" + std::to_string(nodes), std::string("strategy.allreduce.algorithm=") + algo});
    }
  }
  for (const char* overlap : {"true", "false"}) {
    for (int batch : {1, 16, 256}) {
      check_scenario(quick, {"cluster.nodes=4", "model.batch_per_worker=" + std::to_string(batch),
                             std::string("strategy.allreduce.overlap=") + overlap});
    }
  }
  check_scenario(quick, {"cluster.devices_per_node=1", "cluster.nodes=5"});
  check_scenario(quick, {"strategy.workers=6"});
  check_scenario(kScenarios + "/gpt2_fat_tree.yaml", {"cluster.nodes=8"});
  check_scenario(kScenarios + "/synthetic_torus.yaml", {"cluster.nodes=16"});
}

TEST_CASE("stragglers turn the fast path off") {
  const dtsim::Scenario s = dtsim::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                                                 {"stragglers.slow_workers=1", "stragglers.slow_factor=2"});
  CHECK_FALSE(dtsim::analytical::is_symmetric(s));
  CHECK_FALSE(dtsim::analytical::run_symmetric(s).has_value());
}

TEST_CASE("one rank per pipeline stage gives the full engine's hybrid metrics", "[hybrid]") {
  // The stages' messages cross their nodes' NICs eight at a time (RankProgram::mirrored): the
  // representatives' transfers are charged the same port load as the full plan's.
  // Without contention (composites equal kernels exactly only then).
  const std::string off = "cluster.contention.compute=1";
  check_scenario(kScenarios + "/gpt3_175b_megatron.yaml",
                 {"cluster.nodes=16", "strategy.global_batch=16", "strategy.zero=1", off});
  check_scenario(kScenarios + "/gpt3_175b_megatron.yaml",
                 {"strategy.pipeline.schedule=1f1b", "strategy.pipeline.virtual_stages=1", "strategy.global_batch=16",
                  "cluster.nic.count=1", off});
  check_scenario(kScenarios + "/mixtral_moe.yaml", {"strategy.zero=3", "strategy.global_batch=32", off});
  check_scenario(kScenarios + "/llama3_70b_fsdp.yaml",
                 {"strategy.tensor=4", "strategy.pipeline=2", "strategy.global_batch=16", "strategy.zero=2", off});
}

TEST_CASE("blocks as composite ops give the kernel plan's metrics from far fewer ops", "[hybrid]") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"gpt3_175b_megatron.yaml", {}},
      {"gpt3_175b_megatron.yaml", {"strategy.sequence_parallel=false", "strategy.recompute=full"}},
      {"gpt3_175b_megatron.yaml",
       {"cluster.nodes=16", "strategy.global_batch=32", "strategy.zero=1", "strategy.pipeline.schedule=gpipe",
        "strategy.pipeline.virtual_stages=1"}},
      {"llama3_70b_fsdp.yaml", {}},  // ZeRO-3: a block's first kernel stays alone (the prefetch waits on it)
      {"mixtral_moe.yaml", {}},
      {"mixtral_moe.yaml", {"strategy.zero=3", "strategy.global_batch=32"}},
  };
  for (auto [file, sets] : cases) {
    INFO(file << " " << (sets.empty() ? "" : sets.back()));
    sets.push_back("cluster.contention.compute=1");  // exact only without contention (bounded below)
    const Scenario s = load_scenario(kScenarios + "/" + file, sets);
    const analytical::StageRun kernels = analytical::run_stage_representatives(s, PlanDetail::Kernels);
    const analytical::StageRun blocks = analytical::run_stage_representatives(s, PlanDetail::Blocks);
    CHECK(blocks.plan.total_ops() * 3 < kernels.plan.total_ops());
    CHECK_FALSE(blocks.plan.composites.empty());
    const Metrics& k = kernels.metrics.front();
    const Metrics& b = blocks.metrics.front();
    check_same(b, k);
    check_close(b.bubble_fraction + 1, k.bubble_fraction + 1, "bubble + 1");
    check_close(b.wait_by_cause.pipeline + 1, k.wait_by_cause.pipeline + 1, "pipeline wait + 1");
    check_close(b.wait_by_cause.barrier + 1, k.wait_by_cause.barrier + 1, "barrier wait + 1");
    check_close(b.wait_by_cause.idle + 1, k.wait_by_cause.idle + 1, "idle wait + 1");
    for (size_t i = 0; i < k.ranks.size(); ++i) check_close(b.ranks[i].comm_s, k.ranks[i].comm_s, "rank comm");
    // A composite's collectives count under their groups' kinds, as the kernels' do.
    for (const auto& [kind, seconds] : k.exposed_by_kind) {
      REQUIRE(b.exposed_by_kind.count(kind) == 1);
      check_close(b.exposed_by_kind.at(kind) + 1, seconds + 1, "exposed " + std::string(kind) + " + 1");
    }
    CHECK(b.exposed_by_kind.size() == k.exposed_by_kind.size());
    // The same FLOPs: a composite carries its parts' sums.
    double kernel_flops = 0, block_flops = 0;
    for (const RankProgram& r : kernels.plan.ranks) {
      for (const Op& op : r.ops) kernel_flops += op_flops(op.body);
    }
    for (const RankProgram& r : blocks.plan.ranks) {
      for (const Op& op : r.ops) block_flops += op_flops(op.body);
    }
    check_close(block_flops, kernel_flops, "flops");
  }
}

TEST_CASE("a chunk's blocks are one composite but in the backward of its last micro-batch", "[hybrid]") {
  // 96 layers over 8 stages of 3 chunks: 4 blocks a chunk; 64 micro-batches. The last micro-batch's
  // backward keeps one composite per block, so that each block's gradients join their bucket as
  // it ends.
  const Scenario s = load_scenario(kScenarios + "/gpt3_175b_megatron.yaml", {});
  const analytical::StageRun blocks = analytical::run_stage_representatives(s, PlanDetail::Blocks);
  const RankProgram& first = blocks.plan.ranks.front();
  int whole_fwd = 0, whole_bwd = 0, block_bwd = 0, block_fwd = 0;
  size_t whole_parts = 0, block_parts = 0;  // of a backward composite
  for (const Op& op : first.ops) {
    const auto* c = std::get_if<ComputeOp>(&op.body);
    if (!c || c->composite < 0) continue;
    const size_t parts = blocks.plan.composites[c->composite].parts.size();
    const bool whole = op.label.find('-') != std::string::npos;  // "fwd L0-L3 mb5"
    if (op.label.rfind("fwd", 0) == 0) ++(whole ? whole_fwd : block_fwd);
    if (op.label.rfind("bwd", 0) == 0) {
      ++(whole ? whole_bwd : block_bwd);
      (whole ? whole_parts : block_parts) = parts;
    }
  }
  CHECK(whole_fwd == 64 * 3);
  CHECK(block_fwd == 0);
  CHECK(whole_bwd == 63 * 3);
  CHECK(block_bwd == 3 * 4);
  CHECK(block_parts > 0);
  CHECK(whole_parts == 4 * block_parts);  // a chunk's composite holds its four blocks' parts
}

TEST_CASE("under contention the fast path's composites stay within 1 % of the kernel plan", "[hybrid][contention]") {
  // The scenarios' A100s keep 0.78 of their rate while they communicate (the device zoo): a
  // composite slows its parts evenly, its kernels one by one only where the overlap falls.
  for (const char* file : {"gpt3_175b_megatron.yaml", "llama3_70b_fsdp.yaml", "mixtral_moe.yaml"}) {
    INFO(file);
    const Scenario s = load_scenario(kScenarios + "/" + file);
    REQUIRE(s.cluster.compute_kept_at(0) < 1);
    const Metrics k = analytical::run_stage_representatives(s, PlanDetail::Kernels).metrics.front();
    const Metrics b = analytical::run_stage_representatives(s, PlanDetail::Blocks).metrics.front();
    CHECK(b.iteration_time.mean == Approx(k.iteration_time.mean).epsilon(0.01));
    CHECK(b.compute_fraction == Approx(k.compute_fraction).margin(0.02));
  }
}

TEST_CASE("compute costs kept from the point before equal a fresh evaluation's") {
  // The fast path keeps the representative's compute costs per thread with its program and the compute context
  // (device, efficiency, kernel launch): each point, run after a point that differs in one of them or in the
  // cluster's size, must give what a run on a fresh thread gives.
  const std::string quick = kScenarios + "/quickstart.yaml";
  const std::vector<std::vector<std::string>> points = {
      {"cluster.nodes=2"},
      {"cluster.nodes=4"},
      {"cluster.nodes=4", "cluster.device=v100"},
      {"cluster.nodes=4", "cluster.device=v100", "cluster.efficiency=0.5"},
      {"cluster.nodes=4", "cluster.device=v100", "cluster.efficiency=0.4"},
      {"cluster.nodes=4", "cluster.device=v100", "cluster.efficiency=0.4", "framework.kernel_launch=50us"},
      {"cluster.nodes=1", "cluster.device=v100", "cluster.efficiency=0.4", "framework.kernel_launch=50us"},
      {"cluster.nodes=1"},
  };
  for (const auto& sets : points) {
    INFO(fmt::format("{}", fmt::join(sets, " ")));
    const Scenario s = load_scenario(quick, sets);
    const Metrics kept = analytical::run_symmetric(s)->front();
    std::optional<Metrics> fresh;
    std::thread([&] { fresh = analytical::run_symmetric(s)->front(); }).join();
    check_same(kept, *fresh);
    check_close(kept.iteration_time.mean, fresh->iteration_time.mean, "iteration");
  }
}
