// Hybrid plans on both engines: they agree within 2 % wherever the groups' traffic does not
// contend (each group of a kind on its own NICs), and SimGrid shows contention where it does.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/plan/compiler.hpp"
#include "models/cost/cost_model.hpp"
#include "tests/support/both_engines.hpp"
#include "tests/support/hybrid_job.hpp"
#include "tests/support/run_analytical.hpp"
#include "tests/support/simulate.hpp"

using namespace dtsim;

namespace {

using Both = test::BothEngines;

Both run_both(std::vector<std::string> sets) {
  sets.push_back("cluster.nic.count=4");  // one NIC per GPU, as DGX nodes have
  return test::iteration_on_both(test::hybrid_job(sets));
}

}  // namespace

TEST_CASE("both engines agree within 2% on uncontended hybrid layouts", "[hybrid]") {
  const std::vector<std::vector<std::string>> layouts{
      {"strategy.tensor=4", "strategy.pipeline=2", "strategy.global_batch=8"},
      {"strategy.tensor=2", "strategy.pipeline=4", "strategy.global_batch=8", "strategy.pipeline.schedule=gpipe"},
      {"strategy.tensor=2", "strategy.pipeline=2", "strategy.data=2", "strategy.global_batch=8", "strategy.zero=1",
       "strategy.sequence_parallel=true"},
      {"strategy.tensor=1", "strategy.pipeline=2", "strategy.global_batch=8", "strategy.pipeline.schedule=interleaved",
       "strategy.pipeline.virtual_stages=2", "strategy.recompute=full"},
      {"strategy.tensor=2", "strategy.data=4", "strategy.zero=3", "strategy.global_batch=8"},
      {"strategy.tensor=4", "strategy.pipeline=2", "strategy.global_batch=8", "strategy.sequence_parallel=true",
       "framework.tp_comm_overlap=true"},
  };
  for (const auto& layout : layouts) {
    INFO(fmt::format("{}", fmt::join(layout, " ")));
    const Both both = run_both(layout);
    CHECK(both.simgrid == Approx(both.analytical).epsilon(0.02));
  }
}

TEST_CASE("both engines agree on a transformer with sliding-window attention, which runs faster", "[hybrid][window]") {
  // 1,024-token sequences with a 128-token window on half the blocks (GPT-OSS's pattern): the two flash kernels of each
  // block, forward and backward, on both engines; tensor and pipeline parallel as above.
  const std::vector<std::string> layout{"strategy.tensor=4", "strategy.pipeline=2", "strategy.global_batch=8",
                                        "model.transformer.seq_len=1024"};
  std::vector<std::string> windowed = layout;
  windowed.insert(windowed.end(), {"model.transformer.window=128", "model.transformer.window_layers=0.5"});
  const Both full = run_both(layout);
  const Both local = run_both(windowed);
  CHECK(local.simgrid == Approx(local.analytical).epsilon(0.02));
  CHECK(local.analytical < full.analytical);
  CHECK(local.simgrid < full.simgrid);
}

TEST_CASE("SimGrid shows the contention of data-parallel reductions with pipeline messages on one NIC", "[hybrid]") {
  // One NIC per node, two devices a node: each data-parallel group of 4 spans two nodes and each
  // pipeline pair two others, so the gradient reductions of the last micro-batches share the NICs
  // with the pipeline's messages, which the analytical engine's closed forms do not see. (Kernels at
  // one fraction of peak: long enough for the reductions to overlap the last messages.)
  const std::vector<std::string> layout{"strategy.pipeline=2",
                                        "strategy.data=4",
                                        "strategy.global_batch=16",
                                        "cluster.nodes=4",
                                        "cluster.devices_per_node=2",
                                        "cluster.nic.count=1",
                                        "cluster.nic.rate=25Gbps",
                                        "cluster.efficiency=0.5",
                                        "strategy.allreduce.bucket_size=25MB"};  // buckets during the last backward
  const Scenario s = test::hybrid_job(layout);
  const Plan plan = compile_plan(s);
  const auto records = test::simulate(s.cluster, plan, Fidelity::Flow).records;
  const double simgrid = compute_job_metrics(plan, records, RunInfo{"simgrid", "flow", 0}).front().iteration_time.mean;
  const double analytical = test::run_analytical(s).front().iteration_time.mean;
  CHECK(simgrid > analytical);
}

TEST_CASE("SimGrid on node blocks gives the kernel plan's metrics, its NIC traffic still as flows", "[hybrid]") {
  // Composites fold the kernels and the collectives inside a node (timed by their closed forms, which
  // SimGrid's flows inside a node match); collectives across nodes, pipeline messages and gradient
  // reductions stay ops, so contention on the NICs is simulated as before.
  const std::vector<std::vector<std::string>> layouts{
      {"strategy.tensor=4", "strategy.pipeline=2", "strategy.global_batch=8", "strategy.sequence_parallel=true"},
      {"strategy.tensor=8",
       "strategy.global_batch=4"},  // tensor groups across the two nodes: their collectives stay ops
      {"strategy.pipeline=2", "strategy.data=4", "strategy.global_batch=16", "cluster.nic.count=1",
       "cluster.nic.rate=25Gbps", "cluster.efficiency=0.5",
       "strategy.allreduce.bucket_size=25MB"},  // the contention case above
      {"strategy.tensor=2", "strategy.data=4", "strategy.zero=3", "strategy.global_batch=8"},
      {"strategy.tensor=2", "strategy.pipeline=2", "strategy.pipeline.schedule=interleaved",
       "strategy.pipeline.virtual_stages=2", "strategy.recompute=full", "strategy.global_batch=8"},
  };
  // Without contention: under it a composite keeps an even mix of its parts' rates
  // (cost::composite_kept), which the next test bounds.
  for (auto layout : layouts) {
    layout.push_back("cluster.contention.compute=1");
    INFO(fmt::format("{}", fmt::join(layout, " ")));
    const Scenario s = test::hybrid_job(layout);
    const Plan kernels = compile_plan(s);
    const Plan blocks = compile_plan(s, PlanScope::AllRanks, PlanDetail::NodeBlocks);
    CHECK(blocks.total_ops() * 2 < kernels.total_ops());
    const Metrics k = compute_job_metrics(kernels, test::simulate(s.cluster, kernels, Fidelity::Flow).records,
                                          RunInfo{"simgrid", "flow", 0})
                          .front();
    RunInfo folded{"simgrid", "flow", 0, cost::CostModel(s.cluster, blocks).composite_timings()};
    const Metrics b =
        compute_job_metrics(blocks, test::simulate(s.cluster, blocks, Fidelity::Flow).records, folded).front();
    CHECK(b.iteration_time.mean == Approx(k.iteration_time.mean).epsilon(1e-6));
    CHECK(b.compute_fraction == Approx(k.compute_fraction).epsilon(1e-6));
    // Seconds of an iteration, within SimGrid's resolution of times (precision/timing, 1e-9 s) over a few
    // activities: the bubble is a small difference of large times.
    const auto seconds = [](const Metrics& m, double fraction) { return fraction * m.iteration_time.mean; };
    CHECK(seconds(b, b.exposed_comm_fraction) ==
          Approx(seconds(k, k.exposed_comm_fraction)).epsilon(1e-6).margin(1e-8));
    CHECK(seconds(b, b.bubble_fraction) == Approx(seconds(k, k.bubble_fraction)).epsilon(1e-6).margin(1e-8));
    CHECK(b.bytes_on_wire_per_iteration == Approx(k.bytes_on_wire_per_iteration).epsilon(1e-9));
  }
}

TEST_CASE("both engines run collectives inside a node at the measured bus bandwidth for their size", "[hybrid]") {
  // cluster.intra_node.collective_busbw slows the tensor-parallel collectives on both engines alike, against rings at
  // the links' line rate (SimGrid: their flows inside a node carry proportionally more bytes over the link).
  const std::vector<std::string> curve{"strategy.tensor=4", "strategy.pipeline=2", "strategy.global_batch=8",
                                       "cluster.intra_node.collective_busbw=64KiB:20GB/s,1MiB:60GB/s,1GiB:230GB/s"};
  const Both slow = run_both(curve);
  CHECK(slow.simgrid == Approx(slow.analytical).epsilon(0.02));
  const Both fast = run_both(
      {"strategy.tensor=4", "strategy.pipeline=2", "strategy.global_batch=8", "strategy.allreduce.algorithm=ring"});
  CHECK(slow.analytical > fast.analytical);
  CHECK(slow.simgrid > fast.simgrid);
}

TEST_CASE("both engines agree on expert parallelism across nodes", "[hybrid]") {
  // Mixtral's all-to-all over 8 expert ranks on 2 nodes: the closed form charges each round the NIC
  // share of the ranks that cross in it (inter_node_concurrency), as SimGrid's flows find it.
  const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/mixtral_moe.yaml",
                                   {"strategy.global_batch=16", "run.engine=analytical",
                                    // the gradient reductions after the backward, not contending with it
                                    "strategy.allreduce.overlap=false"});
  const Plan plan = compile_plan(s);
  const double simgrid =
      compute_job_metrics(plan, test::simulate(s.cluster, plan, Fidelity::Flow).records, RunInfo{"simgrid", "flow", 0})
          .front()
          .iteration_time.mean;
  CHECK(simgrid == Approx(test::run_analytical(s).front().iteration_time.mean).epsilon(0.02));
}

TEST_CASE("under contention SimGrid's node blocks stay within 1 % of the kernel plan", "[hybrid][contention]") {
  // A composite slows its parts evenly while its rank communicates; its kernels one by one slow only
  // where the communication overlaps their compute parts. ZeRO-3's gathers and a pipeline's sends
  // overlap the blocks here, on A100s keeping 0.78 of their rate (the device zoo).
  const std::vector<std::vector<std::string>> layouts{
      {"strategy.tensor=2", "strategy.data=4", "strategy.zero=3", "strategy.global_batch=8"},
      {"strategy.tensor=4", "strategy.pipeline=2", "strategy.global_batch=8", "strategy.sequence_parallel=true"},
  };
  for (const auto& layout : layouts) {
    INFO(fmt::format("{}", fmt::join(layout, " ")));
    const Scenario s = test::hybrid_job(layout);
    REQUIRE(s.cluster.compute_kept_at(0) < 1);
    const Plan kernels = compile_plan(s);
    const Plan blocks = compile_plan(s, PlanScope::AllRanks, PlanDetail::NodeBlocks);
    const double k = compute_job_metrics(kernels, test::simulate(s.cluster, kernels, Fidelity::Flow).records,
                                         RunInfo{"simgrid", "flow", 0})
                         .front()
                         .iteration_time.mean;
    RunInfo folded{"simgrid", "flow", 0, cost::CostModel(s.cluster, blocks).composite_timings()};
    const double b = compute_job_metrics(blocks, test::simulate(s.cluster, blocks, Fidelity::Flow).records, folded)
                         .front()
                         .iteration_time.mean;
    CHECK(b == Approx(k).epsilon(0.01));
  }
}

TEST_CASE("a data-parallel transformer's kernels: both engines agree", "[hybrid]") {
  // Each row runs as its kernels (core/plan/transformer_pass.hpp) with the gradient buckets overlapping the
  // backward; contention is off so that both engines see the same compute.
  for (const char* overlap : {"true", "false"}) {
    INFO("overlap " << overlap);
    const Both both = run_both({"strategy.kind=allreduce", "model.batch_per_worker=2", "cluster.contention.compute=1",
                                std::string("strategy.allreduce.overlap=") + overlap});
    CHECK(both.simgrid == Approx(both.analytical).epsilon(0.01));
  }
}
