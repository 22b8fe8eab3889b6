// The analytical cost model: roofline compute and how many ranks of a node share its NICs.
#include <catch2/catch.hpp>

#include "sim/cost/cost_model.hpp"
#include "tests/support/plan_fixtures.hpp"

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
