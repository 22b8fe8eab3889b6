// Flow phases of the collective algorithms: step and merged phases built from schedules, the
// O(N) constructions that skip the schedule against them, flow_phase_time against schedule_time
// and the closed forms, and bytes conserved from schedule to flows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "fixtures.hpp"
#include "models/collectives/collective.hpp"
#include "symbolic.hpp"

using namespace dtsim;
using K = CollectiveKind;

using namespace dtsim::test;

namespace {

const std::vector<K> kKinds{K::AllReduce, K::ReduceScatter, K::AllGather, K::Broadcast, K::Reduce, K::AllToAll};
// Sizes that give the pipelined algorithms 1, 4, 64 or 256 chunks (chain) and 1, 2, 32 or 256 (each tree).
const std::vector<double> kSizes{1000.0, 3.5 * kMiB, 64 * kMiB, 1024 * kMiB};

struct Family {
  std::string name;
  std::vector<GroupShape> groups;
};

std::vector<Family> families() {
  return {
      {"ring", test::shapes(range(1, 17), {1, 2, 3, 4})},
      {"halving_doubling", test::shapes({1, 2, 4, 8, 16, 32}, {1, 2, 4, 8})},
      {"hierarchical", test::shapes({1, 2, 3, 4, 6, 8, 9, 12, 16, 24, 32}, {1, 2, 3, 4, 8})},
      {"direct", test::shapes(range(1, 17), {1, 2, 4})},
      {"double_binary_tree", test::shapes(range(1, 17), {1, 2, 4})},
  };
}

// Calls check(algorithm, kind, group, bytes) for every supported combination.
template <typename Check>
void for_each_case(const std::vector<double>& sizes, Check check) {
  for (const Family& family : families()) {
    const CollectiveAlgorithm& algorithm = find_algorithm(family.name);
    for (K kind : kKinds) {
      for (const GroupShape& group : family.groups) {
        if (!algorithm.supports(kind, group)) continue;
        for (double bytes : sizes) {
          INFO(family.name << " " << collective_name(kind) << " size " << group.size << " per_node " << group.per_node
                           << " root " << group.root << " bytes " << bytes);
          check(algorithm, kind, group, bytes);
        }
      }
    }
  }
}

bool same_phases(const std::vector<FlowPhase>& a, const std::vector<FlowPhase>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].rounds != b[i].rounds || a[i].flows.size() != b[i].flows.size()) return false;
    for (std::size_t j = 0; j < a[i].flows.size(); ++j) {
      const Flow& x = a[i].flows[j];
      const Flow& y = b[i].flows[j];
      if (x.src != y.src || x.dst != y.dst || x.bytes != y.bytes) return false;
    }
  }
  return true;
}

double total_flow_bytes(const std::vector<FlowPhase>& phases) {
  double total = 0;
  for (const FlowPhase& phase : phases) {
    for (const Flow& f : phase.flows) total += f.bytes;
  }
  return total;
}

}  // namespace

TEST_CASE("step_phases: one phase per round / same-pair transfers merged / flows sorted") {
  Schedule s;
  s.rounds.push_back(Round{{{2, 0, 0, false, 10}, {0, 1, 0, false, 1}, {2, 0, 1, true, 5}, {0, 2, 1, false, 3}}});
  s.rounds.push_back(Round{});
  s.rounds.push_back(Round{{{1, 0, 0, false, 0}}});
  const std::vector<FlowPhase> steps = step_phases(s);
  REQUIRE(steps.size() == 3);
  const std::vector<FlowPhase> expected{{{{0, 1, 1}, {0, 2, 3}, {2, 0, 15}}, 1}, {{}, 1}, {{{1, 0, 0}}, 1}};
  CHECK(same_phases(steps, expected));
  CHECK(step_phases(Schedule{}).empty());
}

TEST_CASE("merge_phases: consecutive phases with the same pairs merge") {
  const std::vector<FlowPhase> steps{
      {{{0, 1, 1}, {1, 0, 2}}, 1},  // merges with the next (given in another order)
      {{{1, 0, 4}, {0, 1, 8}}, 2},
      {{{0, 1, 16}}, 1},              // a subset: its own phase
      {{{1, 0, 32}, {0, 1, 64}}, 1},  // the first set again, but not consecutive
      {{}, 1},
      {{}, 1},
  };
  const std::vector<FlowPhase> expected{
      {{{0, 1, 9}, {1, 0, 6}}, 3}, {{{0, 1, 16}}, 1}, {{{0, 1, 64}, {1, 0, 32}}, 1}, {{}, 2}};
  CHECK(same_phases(merge_phases(steps), expected));
  CHECK(merge_phases({}).empty());
}

TEST_CASE("one_phase: every phase's flows at once, each pair's bytes summed, one round") {
  const std::vector<FlowPhase> phases{
      {{{0, 1, 1}, {1, 0, 2}}, 3}, {{{0, 1, 16}}, 1}, {{{1, 2, 4}, {0, 1, 64}}, 2}, {{}, 2}};
  const FlowPhase all = one_phase(phases);
  CHECK(same_phases({all}, {{{{0, 1, 81}, {1, 0, 2}, {1, 2, 4}}, 1}}));
  CHECK(one_phase({}).flows.empty());
  // A ring AllReduce's: each rank sends its neighbour 2 (n - 1) / n of the buffer, the bytes of its rounds.
  for (int n : {2, 5, 8}) {
    const double s = 48 * kMiB;
    const FlowPhase ring = one_phase(find_algorithm("ring").flow_phases(K::AllReduce, GroupShape{n, 1, 0}, s));
    CHECK(ring.rounds == 1);
    REQUIRE(ring.flows.size() == static_cast<std::size_t>(n));
    for (const Flow& f : ring.flows) CHECK(f.bytes == Approx(2.0 * (n - 1) / n * s));
  }
}

TEST_CASE("flow phases of ring and hierarchical allreduce and of halving-doubling") {
  const double s = 48 * kMiB;
  for (int n : {2, 3, 5, 8, 16}) {
    INFO("size " << n);
    const std::vector<FlowPhase> ring = find_algorithm("ring").flow_phases(K::AllReduce, GroupShape{n, 1, 0}, s);
    REQUIRE(ring.size() == 1);
    CHECK(ring[0].rounds == 2 * (n - 1));
    REQUIRE(ring[0].flows.size() == static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      const Flow& f = ring[0].flows[static_cast<std::size_t>(r)];
      CHECK(f.src == r);
      CHECK(f.dst == (r + 1) % n);
      CHECK(f.bytes == Approx(2.0 * (n - 1) / n * s));
    }
  }
  for (int g : {2, 4}) {
    for (int m : {2, 3}) {
      INFO("per_node " << g << " nodes " << m);
      const GroupShape group{g * m, g, 0};
      const auto hier = find_algorithm("hierarchical").flow_phases(K::AllReduce, group, s);
      REQUIRE(hier.size() == 3);
      CHECK(hier[0].rounds == g - 1);
      CHECK(hier[1].rounds == 2 * (m - 1));
      CHECK(hier[2].rounds == g - 1);
      for (const Flow& f : hier[0].flows) CHECK(f.bytes == Approx((g - 1.0) / g * s));
      for (const Flow& f : hier[1].flows) CHECK(f.bytes == Approx(2.0 * (m - 1) / (m * g) * s));
      for (const Flow& f : hier[1].flows) CHECK_FALSE(group.same_node(f.src, f.dst));
    }
  }
  // One node: the intra-node reduce-scatter and all-gather use the same pairs. One per node:
  // a ring over nodes.
  CHECK(find_algorithm("hierarchical").flow_phases(K::AllReduce, GroupShape{4, 4, 0}, s).size() == 1);
  CHECK(find_algorithm("hierarchical").flow_phases(K::AllReduce, GroupShape{4, 1, 0}, s).size() == 1);
  for (int n : {2, 4, 8, 32}) {
    const GroupShape group{n, 1, 0};
    const int lg = static_cast<int>(std::log2(n));
    const auto& hd = find_algorithm("halving_doubling");
    // Only the last halving and the first doubling step (both at distance N/2) share pairs.
    const auto phases = hd.flow_phases(K::AllReduce, group, s);
    REQUIRE(phases.size() == static_cast<std::size_t>(2 * lg - 1));
    CHECK(phases[static_cast<std::size_t>(lg - 1)].rounds == 2);
    CHECK(hd.flow_phases(K::ReduceScatter, group, s).size() == static_cast<std::size_t>(lg));
    CHECK(hd.flow_phases(K::Broadcast, group, s).size() == static_cast<std::size_t>(lg));
  }
}

TEST_CASE("flow_phases equal merge_phases of step_phases of the schedule exactly") {
  // The overrides (ring, hierarchical, halving-doubling, double binary tree) build them without
  // the schedule; direct's are the default itself. Bytes are compared with ==: the sums run in the same order.
  int compared = 0;
  for_each_case(kSizes, [&](const CollectiveAlgorithm& algorithm, K kind, const GroupShape& group, double bytes) {
    const std::vector<FlowPhase> expected = merge_phases(step_phases(algorithm.schedule(kind, group, bytes)));
    CHECK(same_phases(algorithm.flow_phases(kind, group, bytes), expected));
    ++compared;
  });
  CHECK(compared > 1000);
  // Larger groups for the ring, its chain and the trees (windows of levels longer than the pipeline).
  for (const char* name : {"ring", "double_binary_tree"}) {
    const CollectiveAlgorithm& algorithm = find_algorithm(name);
    for (int n : {31, 64, 100, 257}) {
      for (K kind : {K::AllReduce, K::Broadcast, K::Reduce}) {
        for (double bytes : {3.5 * kMiB, 300 * kMiB}) {
          const GroupShape group{n, 1, n / 3};
          INFO(name << " " << collective_name(kind) << " size " << n << " bytes " << bytes);
          CHECK(same_phases(algorithm.flow_phases(kind, group, bytes),
                            merge_phases(step_phases(algorithm.schedule(kind, group, bytes)))));
        }
      }
    }
  }
  // More shapes for the hierarchical rings: every per_node up to 8 on up to 9 nodes, odd bytes.
  const CollectiveAlgorithm& hier = find_algorithm("hierarchical");
  for (int g = 1; g <= 8; ++g) {
    for (int m = 1; m <= 9; ++m) {
      for (K kind : {K::AllReduce, K::ReduceScatter, K::AllGather}) {
        const GroupShape group{g * m, g, 0};
        INFO(collective_name(kind) << " per_node " << g << " nodes " << m);
        CHECK(same_phases(hier.flow_phases(kind, group, 1e6 / 3),
                          merge_phases(step_phases(hier.schedule(kind, group, 1e6 / 3)))));
      }
    }
  }
}

TEST_CASE("flow_phase_time of step phases equals schedule_time") {
  const std::vector<double> sizes{1000.0, 64 * kMiB};
  for_each_case(sizes, [](const CollectiveAlgorithm& algorithm, K kind, const GroupShape& group, double bytes) {
    const Schedule schedule = algorithm.schedule(kind, group, bytes);
    for (const AlphaBeta& ab : {kUniform, kFastIntra, kSlowIntra}) {
      CHECK(flow_phase_time(step_phases(schedule), group, ab) ==
            Approx(schedule_time(schedule, group, ab)).epsilon(1e-12));
    }
  });
}

TEST_CASE("merged flow_phase_time equals closed_form for ring / halving-doubling / hierarchical and direct") {
  for_each_case(kSizes, [](const CollectiveAlgorithm& algorithm, K kind, const GroupShape& group, double bytes) {
    if (algorithm.name() == "double_binary_tree") return;
    const std::vector<FlowPhase> phases = algorithm.flow_phases(kind, group, bytes);
    for (const AlphaBeta& ab : {kUniform, kFastIntra, kSlowIntra}) {
      INFO("alpha_intra " << ab.alpha_intra << " bw_intra " << ab.bw_intra);
      CHECK(flow_phase_time(phases, group, ab) == Approx(algorithm.closed_form(kind, group, bytes, ab)).epsilon(1e-9));
    }
  });
}

TEST_CASE("double binary tree: merged phases take schedule_time / closed_form bounds it") {
  // Rounds filling and draining a tree's pipeline each use their own pairs and stay single
  // phases; the steady-state rounds (every edge of both trees busy) share pairs and loads, so
  // merging them keeps the time: flow_phase_time == schedule_time <= closed_form.
  const CollectiveAlgorithm& tree = find_algorithm("double_binary_tree");
  for (int n = 1; n <= 40; ++n) {
    for (int g : {1, 2, 4}) {
      if (n % g != 0) continue;
      const GroupShape group{n, g, n / 3};
      for (K kind : {K::AllReduce, K::Broadcast, K::Reduce}) {
        for (double bytes : kSizes) {
          INFO("size " << n << " per_node " << g << " " << collective_name(kind) << " bytes " << bytes);
          const Schedule schedule = tree.schedule(kind, group, bytes);
          const std::vector<FlowPhase> phases = tree.flow_phases(kind, group, bytes);
          CHECK(phases.size() <= schedule.rounds.size());
          for (const AlphaBeta& ab : {kUniform, kFastIntra, kSlowIntra}) {
            const double merged = flow_phase_time(phases, group, ab);
            CHECK(merged == Approx(schedule_time(schedule, group, ab)).epsilon(1e-9));
            CHECK(merged <= tree.closed_form(kind, group, bytes, ab) * (1 + 1e-12));
          }
        }
      }
    }
  }
  // 64 MiB on 16 ranks: k = 32 chunks per tree, height 4; per tree phase 3 filling rounds, one
  // merged phase of 32 - 3 steady rounds, 3 draining rounds.
  const auto phases = tree.flow_phases(K::AllReduce, GroupShape{16, 1, 0}, 64 * kMiB);
  REQUIRE(phases.size() == 14);
  CHECK(phases[3].rounds == 29);
  CHECK(phases[10].rounds == 29);
}

TEST_CASE("flows conserve the schedule's bytes in total and per rank") {
  for_each_case(kSizes, [](const CollectiveAlgorithm& algorithm, K kind, const GroupShape& group, double bytes) {
    const Schedule schedule = algorithm.schedule(kind, group, bytes);
    for (const std::vector<FlowPhase>& phases : {step_phases(schedule), algorithm.flow_phases(kind, group, bytes)}) {
      CHECK(total_flow_bytes(phases) == Approx(test::total_bytes(schedule)).epsilon(1e-12));
      const std::vector<double> expected = test::bytes_sent(schedule, group.size);
      const std::vector<double> sent = bytes_sent(phases, group.size);
      REQUIRE(sent.size() == expected.size());
      for (std::size_t r = 0; r < sent.size(); ++r) CHECK(sent[r] == Approx(expected[r]).epsilon(1e-12));
    }
  });
}

TEST_CASE("flow phases of 16384 ranks are built without the schedule") {
  // A ring schedule of 16384 ranks would hold 2 * 16383 * 16384 transfers (13 GB); the overrides
  // build O(N) flows per phase.
  const auto start = std::chrono::steady_clock::now();
  const GroupShape flat{16384, 1, 0};
  const auto ring = find_algorithm("ring").flow_phases(K::AllReduce, flat, 1e9);
  REQUIRE(ring.size() == 1);
  CHECK(ring[0].rounds == 2 * 16383);
  CHECK(ring[0].flows.size() == 16384);
  CHECK(flow_phase_time(ring, flat, kUniform) ==
        Approx(find_algorithm("ring").closed_form(K::AllReduce, flat, 1e9, kUniform)).epsilon(1e-9));
  const GroupShape nodes{16384, 8, 0};
  const auto hier = find_algorithm("hierarchical").flow_phases(K::AllReduce, nodes, 1e9);
  REQUIRE(hier.size() == 3);
  CHECK(flow_phase_time(hier, nodes, kFastIntra) ==
        Approx(find_algorithm("hierarchical").closed_form(K::AllReduce, nodes, 1e9, kFastIntra)).epsilon(1e-9));
  const auto hd = find_algorithm("halving_doubling").flow_phases(K::AllReduce, nodes, 1e9);
  CHECK(hd.size() == 2 * 14 - 1);
  CHECK(flow_phase_time(hd, nodes, kFastIntra) ==
        Approx(find_algorithm("halving_doubling").closed_form(K::AllReduce, nodes, 1e9, kFastIntra)).epsilon(1e-9));
  // The double binary tree's schedule is O(N k), not N^2 (400 MB here), but it too is skipped.
  const auto tree = find_algorithm("double_binary_tree").flow_phases(K::AllReduce, nodes, 1e9);
  CHECK(tree.size() == 2 * (2 * 14 - 1));
  CHECK(flow_phase_time(tree, nodes, kFastIntra) <=
        find_algorithm("double_binary_tree").closed_form(K::AllReduce, nodes, 1e9, kFastIntra) * (1 + 1e-12));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Milliseconds in a Release build, seconds under the sanitizers on a busy machine (2.6 s seen); the bound only
  // catches a schedule being built, which would take minutes and 13 GB.
  CHECK(seconds < 60.0);
}

TEST_CASE("flow_phases throws as schedule does / flow_phase_time and bytes_sent check ranks") {
  for (const char* name : {"ring", "hierarchical", "halving_doubling", "direct", "double_binary_tree"}) {
    const CollectiveAlgorithm& algorithm = find_algorithm(name);
    INFO(name);
    CHECK_THROWS_AS(algorithm.flow_phases(K::AllReduce, GroupShape{6, 4, 0}, 100), InputError);
    CHECK_THROWS_AS(algorithm.flow_phases(K::AllReduce, GroupShape{4, 1, 0}, -1), InputError);
    for (K kind : kKinds) {
      const GroupShape group{6, 2, 1};
      if (algorithm.supports(kind, group)) continue;
      CHECK_THROWS_AS(algorithm.flow_phases(kind, group, 100), InputError);
    }
  }
  const std::vector<FlowPhase> outside{{{{0, 4, 1}}, 1}};
  CHECK_THROWS_AS(flow_phase_time(outside, GroupShape{4, 1, 0}, kUniform), RuntimeError);
  CHECK_THROWS_AS(bytes_sent({{{{4, 0, 1}}, 1}}, 4), RuntimeError);
  CHECK(flow_phase_time({}, GroupShape{4, 1, 0}, kUniform) == 0);
}
