// Every collective algorithm replayed on SimGrid, on an uncontended network, against its
// alpha-beta closed form: within 1% for N in {2, 3, 4, 8, 16, 64} and 1 KB to 1 GB, at both
// fidelities, every kind each algorithm implements.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/collectives/nccl/nccl_cluster.hpp"
#include "models/cost/cost_model.hpp"
#include "tests/support/plan_fixtures.hpp"
#include "tests/support/simulate.hpp"

using namespace dtsim;

namespace {

const std::vector<double> kSizes{1e3, 1e6, 64e6, 1e9};
const std::vector<CollectiveKind> kKinds{CollectiveKind::AllReduce, CollectiveKind::ReduceScatter,
                                         CollectiveKind::AllGather, CollectiveKind::Broadcast,
                                         CollectiveKind::Reduce,    CollectiveKind::AllToAll};

struct Case {
  CollectiveKind kind;
  double bytes;
};

// n ranks, `per_node` to a node, running `cases` one after the other.
Plan chain(int n, int per_node, const CollectiveAlgorithm& algo, const std::vector<Case>& cases) {
  Plan p;
  p.name = "chain";
  p.iterations = 1;
  CommGroup g;
  for (int r = 0; r < n; ++r) g.ranks.push_back(r);
  g.per_node = per_node;
  p.groups.push_back(g);
  p.jobs.push_back(JobPlan{"job", g.ranks, {}, static_cast<double>(n)});
  for (int r = 0; r < n; ++r) {
    RankProgram rp;
    rp.rank = r;
    rp.where = Placement{r / per_node, r % per_node};
    for (size_t i = 0; i < cases.size(); ++i) {
      Op op;
      op.id = static_cast<int>(i);
      op.label = "c";
      op.stream = Stream::Comm;
      op.phase = Phase::Communication;
      op.body = CollectiveOp{cases[i].kind, cases[i].bytes, 0, &algo, static_cast<int>(i)};
      rp.ops.push_back(op);
    }
    p.ranks.push_back(rp);
  }
  return p;
}

// Each case in its own simulation: ranks that finish one collective early would otherwise start
// the next one early, and the time of a collective would blur into its neighbours'.
void check_algorithm(const std::string& name, int per_node, const std::vector<int>& sizes) {
  const CollectiveAlgorithm& algo = find_algorithm(name);
  for (int n : sizes) {
    ClusterSpec c = test::star_cluster((n + per_node - 1) / per_node, 12.5e9, 5e-6);
    c.devices_per_node = per_node;
    c.intra = LinkSpec{150e9, 1e-6};
    c.topology.switch_latency = 0;
    const GroupShape shape{n, per_node, 0};
    for (CollectiveKind kind : kKinds) {
      if (!algo.supports(kind, shape)) continue;
      for (double bytes : kSizes) {
        const Plan plan = chain(n, per_node, algo, {Case{kind, bytes}});
        const cost::CostModel costs(c, plan);
        const double expected =
            algo.closed_form(kind, shape, bytes, costs.group_alpha_beta(plan.groups[0], algo, kind));
        for (Fidelity fidelity : {Fidelity::Flow, Fidelity::Step}) {
          double took = 0;
          for (const auto& r : test::simulate(c, plan, fidelity).records) took = std::max(took, r.end);
          INFO(name << " " << collective_name(kind) << " N=" << n << " S=" << bytes << " " << fidelity_name(fidelity));
          if (name == "double_binary_tree" && n == 3) {
            // Three ranks leave the two trees unbalanced: the closed form is an upper bound there
            // (models/collectives/double_binary_tree.cpp); measured 0.76 to 1.0 of it.
            CHECK(took <= expected * 1.01);
          } else {
            CHECK(took == Approx(expected).epsilon(0.01));
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("ring on SimGrid equals its closed form") { check_algorithm("ring", 1, {2, 3, 4, 8, 16, 64}); }
TEST_CASE("halving-doubling on SimGrid equals its closed form") {
  check_algorithm("halving_doubling", 1, {2, 4, 8, 16, 64});
}
TEST_CASE("double binary tree on SimGrid equals its closed form") {
  check_algorithm("double_binary_tree", 1, {2, 3, 4, 8, 16, 64});
}
TEST_CASE("direct on SimGrid equals its closed form") { check_algorithm("direct", 1, {2, 3, 4, 8, 16, 64}); }
TEST_CASE("hierarchical on SimGrid equals its closed form") { check_algorithm("hierarchical", 4, {4, 8, 16, 64}); }

// strategy.allreduce.algorithm: nccl: the analytical engine times a collective as NCCL's cost model does, and
// SimGrid replays the ring's flows in one phase (direct's rounds for AllToAll) stretched to that time: on an idle
// fabric the two agree within 1 % (SimGrid cannot go below the flows' own latency, one hop's for the ring kinds:
// where NCCL's latency is smaller, it pays the difference).
TEST_CASE("nccl: SimGrid's stretched flows take NCCL's time on an idle fabric, and a measured busbw overrides it") {
  const CollectiveAlgorithm& algo = find_algorithm("nccl");
  for (int n : {8, 16, 32}) {
    ClusterSpec c = test::star_cluster(n / 8, 50e9, 5e-6);
    c.device = load_device("h100_sxm");
    c.devices_per_node = 8;
    c.intra = LinkSpec{450e9, 1e-6};
    c.nics = 8;
    c.topology.switch_latency = 0;
    const GroupShape shape{n, 8, 0};
    for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                                CollectiveKind::AllToAll}) {
      for (double bytes : {1e6, 64e6, 1e9}) {
        const Plan plan = chain(n, 8, algo, {Case{kind, bytes}});
        const cost::CostModel costs(c, plan);
        const CollectiveOp& op = std::get<CollectiveOp>(plan.ranks[0].ops[0].body);
        const nccl::Choice choice = nccl::Tuning(nccl::node_topology(c), {n, n / 8}).choose(kind, bytes);
        CHECK(costs.collective_time(op) == Approx(choice.seconds));
        // The ring kinds replay as one phase of flows, paying one hop's latency; AllToAll as the direct
        // exchange's rounds, paying each round's.
        const AlphaBeta ab = costs.op_alpha_beta(op);
        const double flows_latency = kind == CollectiveKind::AllToAll ? algo.closed_form(kind, shape, 0.0, ab)
                                     : n > 8                          ? std::max(ab.alpha_intra, ab.alpha_inter)
                                                                      : ab.alpha_intra;
        const double expected = choice.seconds + std::max(0.0, flows_latency - choice.latency_seconds);
        for (Fidelity fidelity : {Fidelity::Flow, Fidelity::Step}) {
          double took = 0;
          for (const auto& r : test::simulate(c, plan, fidelity).records) took = std::max(took, r.end);
          INFO(collective_name(kind) << " N=" << n << " S=" << bytes << " " << fidelity_name(fidelity));
          CHECK(took == Approx(expected).epsilon(0.01));
        }
      }
    }
  }
  // A measured bus bandwidth is the user's word: the ring's closed form at it, not NCCL's model.
  ClusterSpec c = test::star_cluster(1, 50e9, 5e-6);
  c.device = load_device("h100_sxm");
  c.devices_per_node = 8;
  c.intra = LinkSpec{450e9, 1e-6};
  c.intra_busbw = {{1e6, 100e9}, {1e9, 300e9}};
  const Plan plan = chain(8, 8, algo, {Case{CollectiveKind::AllReduce, 1e9}});
  const cost::CostModel costs(c, plan);
  const CollectiveOp& op = std::get<CollectiveOp>(plan.ranks[0].ops[0].body);
  CHECK_FALSE(costs.nccl_choice(op));
  CHECK(costs.collective_time(op) ==
        Approx(find_algorithm("ring").closed_form(CollectiveKind::AllReduce, {8, 8, 0}, 1e9, costs.op_alpha_beta(op))));
}
