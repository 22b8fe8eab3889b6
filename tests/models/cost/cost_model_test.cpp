// The analytical cost model: roofline compute and how many ranks of a node share its NICs.
#include <catch2/catch.hpp>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "models/cost/cost_model.hpp"
#include "tests/support/plan_fixtures.hpp"
#include "tests/support/tiny_job.hpp"

using namespace dtsim;

TEST_CASE("ranks of a node crossing the NICs at once, read off the schedule") {
  // A ring crosses each node boundary once in each direction; halving-doubling's far rounds
  // send from every rank of a node; hierarchical's inter-node phase runs one ring per local rank.
  CHECK(cost::inter_node_concurrency(find_algorithm("ring"), CollectiveKind::AllReduce, GroupShape{32, 8, 0}) == 1);
  CHECK(cost::inter_node_concurrency(find_algorithm("halving_doubling"), CollectiveKind::AllReduce,
                                     GroupShape{32, 8, 0}) == 8);
  CHECK(cost::inter_node_concurrency(find_algorithm("hierarchical"), CollectiveKind::AllReduce, GroupShape{32, 8, 0}) ==
        8);
  CHECK(cost::inter_node_concurrency(find_algorithm("ring"), CollectiveKind::AllReduce, GroupShape{8, 1, 0}) == 1);
  // A direct all-to-all's rounds cross with a varying number of a node's ranks: shift s moves
  // min(s, G, N - s)-like counts, summing to G (N - G) over the N - 1 rounds of equal bytes.
  for (const auto& [n, g] : std::vector<std::pair<int, int>>{{8, 4}, {16, 4}, {32, 8}}) {
    CHECK(cost::inter_node_concurrency(find_algorithm("direct"), CollectiveKind::AllToAll, GroupShape{n, g, 0}) ==
          Approx(static_cast<double>(g) * (n - g) / (n - 1)));
  }
}

TEST_CASE("roofline compute: FLOP-bound and memory-bound ops") {
  ClusterSpec c = test::star_cluster(2, 12.5e9, 5e-6);
  const Plan p = test::one_collective(2, 1e6, "ring", CollectiveKind::AllReduce);
  cost::CostModel costs(c, p);
  const RankProgram& r = p.ranks[0];
  // A100: 312 TFLOPS fp16 at 50% efficiency; 1.555 TB/s.
  CHECK(costs.compute_time(r, ComputeOp{312e12, 0, Dtype::Fp16}) == Approx(2.0));
  CHECK(costs.compute_time(r, ComputeOp{19.5e12, 0, Dtype::Fp32}) == Approx(2.0));
  CHECK(costs.compute_time(r, ComputeOp{1.0, 1555e9, Dtype::Fp16}) == Approx(1.0));
}

TEST_CASE("collectives inside a node run at the bus bandwidth measured for their size") {
  constexpr double MiB = 1048576.0;
  ClusterSpec c = test::star_cluster(1, 12.5e9, 5e-6);
  c.devices_per_node = 8;
  c.intra = LinkSpec{230e9, 2e-6};
  // The curve: the points themselves, log-size interpolation between them, held beyond them.
  c.intra_busbw = {{16 * MiB, 109.22e9}, {64 * MiB, 166.63e9}};
  CHECK(c.intra_rate_for(16 * MiB) == Approx(109.22e9));
  CHECK(c.intra_rate_for(32 * MiB) == Approx((109.22e9 + 166.63e9) / 2));
  CHECK(c.intra_rate_for(1 * MiB) == Approx(109.22e9));
  CHECK(c.intra_rate_for(1024 * MiB) == Approx(166.63e9));
  for (double bytes : {4 * MiB, 32 * MiB, 512 * MiB}) {
    Plan p = test::one_collective(8, bytes, "ring", CollectiveKind::AllReduce);
    for (int r = 0; r < 8; ++r) p.ranks[r].where = Placement{0, r};
    p.groups[0].per_node = 8;
    const auto& op = std::get<CollectiveOp>(p.ranks[0].ops[0].body);
    // Ring all-reduce: 2(n-1) a + 2(n-1)/n S / B, B the bus bandwidth at S.
    CHECK(cost::CostModel(c, p).collective_time(op) == Approx(14 * 2e-6 + 1.75 * bytes / c.intra_rate_for(bytes)));
    ClusterSpec flat = c;
    flat.intra_busbw.clear();
    CHECK(cost::CostModel(flat, p).collective_time(op) == Approx(14 * 2e-6 + 1.75 * bytes / 230e9));
  }
}

TEST_CASE("an unfused optimizer step costs its passes, and the host its kernels") {
  // The tiny job's 1e6 parameters in one synthetic layer (one weight tensor), Adam, on an A100 40GB: the step is
  // memory-bound, so its time is its bytes over the memory rate whichever kernels run it.
  const auto step = [](std::vector<std::string> set) {
    set.push_back("model.optimizer=adam");
    const Scenario s = load_scenario_text(test::kTinyJob, "t.yaml", set);
    const Plan p = compile_plan(s);
    cost::CostModel costs(s.cluster, p);
    const RankProgram& r = p.ranks.front();
    for (const Op& op : r.ops) {
      if (const auto* u = std::get_if<UpdateOp>(&op.body)) return std::pair{costs.update_time(r, *u), u->launches};
    }
    FAIL("no optimizer step");
    return std::pair{0.0, 0.0};
  };
  const auto [fused, fused_launches] = step({});
  const auto [per_tensor, per_tensor_launches] = step({"framework.optimizer_kernels=per_tensor"});
  // Fused Adam: 7 fp32 values a parameter at the A100 40GB's 1,555 GB/s x its streaming 0.88.
  CHECK(fused == Approx(1e6 * 7 * 4 / (1555e9 * 0.88)));
  CHECK(per_tensor / fused == Approx(23.0 / 7.0));  // torch.optim's 9 passes against one
  CHECK(fused_launches == 1);
  CHECK(per_tensor_launches == 9);
  // 10 us to issue a kernel: the for-loop's 9 kernels take at least 90 us, the fused one 10 us.
  const double launch = 10e-6;
  CHECK(step({"framework.optimizer_kernels=per_tensor", "framework.kernel_launch=10us"}).first ==
        Approx(std::max(per_tensor, 9 * launch)));
  CHECK(step({"framework.kernel_launch=10us"}).first == Approx(std::max(fused, launch)));
  CHECK(9 * launch > per_tensor);  // the launches bind here
}
