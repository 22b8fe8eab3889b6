// Collective schedules against their alpha-beta closed forms and against REFERENCE.md: bytes on
// the wire, schedule_time of the schedule versus closed_form, and the textbook formulas written
// out here again.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "models/collectives/collective.hpp"
#include "symbolic.hpp"

using namespace dtsim;
using K = CollectiveKind;

using namespace dtsim::test;

namespace {

// schedule_time(schedule) == closed_form for every shape, size and link set.
void check_exact(const std::string& name, const std::vector<GroupShape>& groups) {
  const CollectiveAlgorithm& algorithm = find_algorithm(name);
  for (CollectiveKind kind : {K::AllReduce, K::ReduceScatter, K::AllGather, K::Broadcast, K::Reduce, K::AllToAll}) {
    for (const GroupShape& group : groups) {
      if (!algorithm.supports(kind, group)) continue;
      for (double bytes : {1000.0, 3.5 * kMiB, 64 * kMiB}) {
        const Schedule schedule = algorithm.schedule(kind, group, bytes);
        for (const AlphaBeta& ab : {kUniform, kFastIntra, kSlowIntra}) {
          INFO(name << " " << collective_name(kind) << " size " << group.size << " per_node " << group.per_node
                    << " root " << group.root << " bytes " << bytes << " alpha_intra " << ab.alpha_intra);
          CHECK(schedule_time(schedule, group, ab) ==
                Approx(algorithm.closed_form(kind, group, bytes, ab)).epsilon(1e-9));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("pipeline chunk counts: one per started MiB / 1 to 256") {
  CHECK(pipeline_chunks(0) == 1);
  CHECK(pipeline_chunks(1000) == 1);
  CHECK(pipeline_chunks(kMiB) == 1);
  CHECK(pipeline_chunks(kMiB + 1) == 2);
  CHECK(pipeline_chunks(10 * kMiB) == 10);
  CHECK(pipeline_chunks(256 * kMiB) == 256);
  CHECK(pipeline_chunks(1e15) == 256);
}

TEST_CASE("schedule_time: one class / mixed classes / shared ports") {
  const GroupShape group{4, 2, 0};  // ranks 0,1 on node 0; 2,3 on node 1
  Schedule s;
  s.rounds.push_back(Round{{{0, 1, 0, false, 100}}});                         // intra only
  s.rounds.push_back(Round{{{0, 2, 0, false, 100}, {1, 0, 0, false, 300}}});  // inter 100, intra 300
  s.rounds.push_back(Round{{{0, 2, 0, false, 100}, {0, 3, 1, false, 100}}});  // rank 0's NIC sends 200
  const AlphaBeta ab{1, 100, 10, 10};
  CHECK(schedule_time(s, group, ab) == Approx((1 + 1.0) + std::max(1 + 3.0, 10 + 10.0) + (10 + 20.0)));
  CHECK(schedule_time(Schedule{}, group, ab) == 0);
}

TEST_CASE("bytes on the wire are the textbook volumes") {
  const double s = 48 * kMiB;
  for (int n = 2; n <= 16; ++n) {
    INFO("size " << n);
    const GroupShape group{n, 1, n / 2};
    for (double sent : test::bytes_sent(find_algorithm("ring").schedule(K::AllReduce, group, s), n)) {
      CHECK(sent == Approx(2.0 * (n - 1) / n * s));
    }
    for (double sent : test::bytes_sent(find_algorithm("ring").schedule(K::ReduceScatter, group, s), n)) {
      CHECK(sent == Approx(1.0 * (n - 1) / n * s));
    }
    for (double sent : test::bytes_sent(find_algorithm("direct").schedule(K::AllToAll, group, s), n)) {
      CHECK(sent == Approx(1.0 * (n - 1) / n * s));
    }
    for (const char* name : {"ring", "double_binary_tree"}) {
      // Every rank but the root receives the whole buffer once (and sends it once for Reduce).
      CHECK(test::total_bytes(find_algorithm(name).schedule(K::Broadcast, group, s)) == Approx((n - 1) * s));
      CHECK(test::total_bytes(find_algorithm(name).schedule(K::Reduce, group, s)) == Approx((n - 1) * s));
    }
    CHECK(test::total_bytes(find_algorithm("double_binary_tree").schedule(K::AllReduce, group, s)) ==
          Approx(2.0 * (n - 1) * s));
  }
  for (int n : {2, 4, 8, 16, 32}) {
    const GroupShape group{n, 1, 0};
    for (double sent : test::bytes_sent(find_algorithm("halving_doubling").schedule(K::AllReduce, group, s), n)) {
      CHECK(sent == Approx(2.0 * (n - 1) / n * s));
    }
    CHECK(test::total_bytes(find_algorithm("halving_doubling").schedule(K::Broadcast, group, s)) ==
          Approx((n - 1) * s));
  }
  for (int g : {1, 2, 4, 8}) {
    for (int m : {1, 2, 3, 4}) {
      const GroupShape group{g * m, g, 0};
      const double expected = 2.0 * (g - 1) / g * s + 2.0 * (m - 1) / m * s / g;
      for (double sent : test::bytes_sent(find_algorithm("hierarchical").schedule(K::AllReduce, group, s), g * m)) {
        CHECK(sent == Approx(expected));
      }
    }
  }
}

TEST_CASE("schedule_time equals closed_form for ring / halving-doubling / hierarchical and direct") {
  check_exact("ring", test::shapes(range(1, 17), {1, 2, 3, 4}));
  check_exact("halving_doubling", test::shapes({1, 2, 4, 8, 16, 32}, {1, 2, 4, 8}));
  check_exact("hierarchical", test::shapes({1, 2, 4, 6, 8, 12, 16, 24, 32}, {1, 2, 4, 8}));
  check_exact("direct", test::shapes(range(1, 17), {1, 2, 4}));
}

TEST_CASE("double binary tree: closed_form is exact in alpha and a tight upper bound in bandwidth") {
  // Closed form P (k + H - 1)(a + S/(k B)) counts every round at its steady-state load of two
  // chunks of c = S/(2k); rounds filling the pipeline may carry one (at most H - 1 of them per
  // phase, since the root receives, or sends, two chunks in each of the other k rounds). So with
  // alpha = 0 the schedule takes between closed_form - P (H - 1) c / B and closed_form.
  const CollectiveAlgorithm& tree = find_algorithm("double_binary_tree");
  const AlphaBeta latency_only{5e-6, 1e30, 5e-6, 1e30};
  const AlphaBeta bandwidth_only{0, 12.5e9, 0, 12.5e9};
  for (int n = 1; n <= 40; ++n) {
    for (K kind : {K::AllReduce, K::Broadcast, K::Reduce}) {
      for (double bytes : {1000.0, 3.5 * kMiB, 64 * kMiB}) {
        const GroupShape group{n, 1, n / 2};
        INFO("size " << n << " " << collective_name(kind) << " bytes " << bytes);
        const Schedule s = tree.schedule(kind, group, bytes);
        CHECK(schedule_time(s, group, latency_only) ==
              Approx(tree.closed_form(kind, group, bytes, latency_only)).epsilon(1e-9));
        const double closed = tree.closed_form(kind, group, bytes, bandwidth_only);
        const double simulated = schedule_time(s, group, bandwidth_only);
        const int k = pipeline_chunks(bytes / 2);
        const int h = n < 2 ? 0 : static_cast<int>(std::ceil(std::log2(n)));
        const double slack = (kind == K::AllReduce ? 2 : 1) * std::max(h - 1, 0) * bytes / (2 * k) / 12.5e9;
        CHECK(simulated <= closed * (1 + 1e-12));
        CHECK(simulated >= closed - slack - 1e-15);
        // Observed (not proven): with two or more chunks per tree a rank carries two chunks in
        // every round, except for N = 3 where no rank has two children.
        if (k >= 2 && n != 3) CHECK(simulated == Approx(closed).epsilon(1e-9));
        // On nodes the closed form charges the slowest class in use: still an upper bound.
        for (int g : {2, 4}) {
          if (n % g != 0) continue;
          const GroupShape nodes{n, g, n / 2};
          CHECK(schedule_time(tree.schedule(kind, nodes, bytes), nodes, kFastIntra) <=
                tree.closed_form(kind, nodes, bytes, kFastIntra) * (1 + 1e-12));
        }
      }
    }
  }
}

TEST_CASE("closed forms match REFERENCE.md") {
  const double a = kUniform.alpha_inter;
  const double b = kUniform.bw_inter;
  const double s = 64 * kMiB;
  for (int n : {2, 3, 5, 8, 16, 64, 1000}) {
    INFO("size " << n);
    const GroupShape group{n, 1, 0};
    const auto& ring = find_algorithm("ring");
    CHECK(ring.closed_form(K::AllReduce, group, s, kUniform) == Approx(2 * (n - 1) * a + 2.0 * (n - 1) / n * s / b));
    CHECK(ring.closed_form(K::ReduceScatter, group, s, kUniform) == Approx((n - 1) * a + 1.0 * (n - 1) / n * s / b));
    CHECK(ring.closed_form(K::AllGather, group, s, kUniform) == Approx((n - 1) * a + 1.0 * (n - 1) / n * s / b));
    // Chain with k = 64 chunks of 1 MiB.
    CHECK(ring.closed_form(K::Broadcast, group, s, kUniform) == Approx((64 + n - 2) * (a + s / 64 / b)));
    CHECK(find_algorithm("direct").closed_form(K::AllToAll, group, s, kUniform) ==
          Approx((n - 1) * a + 1.0 * (n - 1) / n * s / b));
    // Two trees of height ceil(log2 N), each carrying 32 chunks of 1 MiB.
    const double h = std::ceil(std::log2(n));
    CHECK(find_algorithm("double_binary_tree").closed_form(K::AllReduce, group, s, kUniform) ==
          Approx(2 * (32 + h - 1) * (a + s / 32 / b)));
    // Pipelined, it approaches REFERENCE's 2 S/B in bandwidth.
    const AlphaBeta no_latency{0, b, 0, b};
    CHECK(find_algorithm("double_binary_tree").closed_form(K::AllReduce, group, 1024 * kMiB, no_latency) <=
          2 * 1024 * kMiB / b * (1 + (h - 1) / 256));
  }
  for (int n : {2, 4, 8, 16, 1024}) {
    const GroupShape group{n, 1, 0};
    const auto& hd = find_algorithm("halving_doubling");
    const double lg = std::log2(n);
    CHECK(hd.closed_form(K::AllReduce, group, s, kUniform) == Approx(2 * lg * a + 2.0 * (n - 1) / n * s / b));
    CHECK(hd.closed_form(K::ReduceScatter, group, s, kUniform) == Approx(lg * a + 1.0 * (n - 1) / n * s / b));
    CHECK(hd.closed_form(K::Broadcast, group, s, kUniform) == Approx(lg * (a + s / b)));
  }
  // All on one node: the intra parameters, the same formulas.
  const AlphaBeta intra_only{2e-6, 100e9, 1, 1};
  CHECK(find_algorithm("ring").closed_form(K::AllReduce, GroupShape{8, 8, 0}, s, intra_only) ==
        Approx(2 * 7 * 2e-6 + 2.0 * 7 / 8 * s / 100e9));
  // Hierarchical: intra ReduceScatter + inter ring AllReduce of S/G + intra AllGather.
  for (int g : {1, 2, 4, 8}) {
    for (int m : {1, 2, 3, 16}) {
      const AlphaBeta& ab = kFastIntra;
      const double rs = (g - 1) * ab.alpha_intra + 1.0 * (g - 1) / g * s / ab.bw_intra;
      const double inter = 2 * (m - 1) * ab.alpha_inter + 2.0 * (m - 1) / m * (s / g) / ab.bw_inter;
      const auto& hier = find_algorithm("hierarchical");
      CHECK(hier.closed_form(K::AllReduce, GroupShape{g * m, g, 0}, s, ab) == Approx(rs + inter + rs));
      CHECK(hier.closed_form(K::ReduceScatter, GroupShape{g * m, g, 0}, s, ab) == Approx(rs + inter / 2));
    }
  }
}

TEST_CASE("large groups: schedules stay compact and agree with the closed forms") {
  static_assert(sizeof(Transfer) <= 24);
  const GroupShape flat{1024, 1, 0};
  const Schedule ring = find_algorithm("ring").schedule(K::AllReduce, flat, 1e9);
  CHECK(ring.rounds.size() == 2046);
  CHECK(ring.rounds.front().transfers.size() == 1024);
  CHECK(schedule_time(ring, flat, kUniform) ==
        Approx(find_algorithm("ring").closed_form(K::AllReduce, flat, 1e9, kUniform)).epsilon(1e-9));
  const GroupShape nodes{1024, 8, 0};
  const Schedule hier = find_algorithm("hierarchical").schedule(K::AllReduce, nodes, 1e9);
  CHECK(hier.rounds.size() == 2 * 7 + 2 * 127);
  CHECK(schedule_time(hier, nodes, kFastIntra) ==
        Approx(find_algorithm("hierarchical").closed_form(K::AllReduce, nodes, 1e9, kFastIntra)).epsilon(1e-9));
}
