// Every collective algorithm, run on symbolic data for many group shapes, roots and sizes: the
// schedule must leave every rank with what the collective promises, never send a chunk the
// sender does not hold, and never count a contribution twice.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "models/collectives/collective.hpp"
#include "symbolic.hpp"

using namespace dtsim;

using namespace dtsim::test;

namespace {

constexpr std::array kAllKinds{CollectiveKind::AllReduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather,
                               CollectiveKind::Broadcast, CollectiveKind::Reduce,        CollectiveKind::AllToAll};
using K = CollectiveKind;

// What each algorithm implements (for the shapes it accepts).
const std::map<std::string, std::set<CollectiveKind>> kImplements{
    {"ring", {K::AllReduce, K::ReduceScatter, K::AllGather, K::Broadcast, K::Reduce}},
    {"halving_doubling", {K::AllReduce, K::ReduceScatter, K::AllGather, K::Broadcast, K::Reduce}},
    {"double_binary_tree", {K::AllReduce, K::Broadcast, K::Reduce}},
    {"hierarchical", {K::AllReduce, K::ReduceScatter, K::AllGather}},
    {"direct", {K::AllReduce, K::ReduceScatter, K::AllGather, K::AllToAll}},
};

// Sizes that give the pipelined algorithms 1, 4 or 9 chunks (chain) and 1, 2 or 5 (each tree).
const std::vector<double> kSizes{1000.0, 3.5 * kMiB, 9 * kMiB};

void check_algorithm(const std::string& name, const std::vector<GroupShape>& groups) {
  const CollectiveAlgorithm& algorithm = find_algorithm(name);
  int verified = 0;
  for (CollectiveKind kind : kAllKinds) {
    const bool implemented = kImplements.at(name).count(kind) > 0;
    for (const GroupShape& group : groups) {
      INFO(name << " " << collective_name(kind) << " size " << group.size << " per_node " << group.per_node << " root "
                << group.root);
      if (!implemented) {
        CHECK_FALSE(algorithm.supports(kind, group));
        continue;
      }
      if (!algorithm.supports(kind, group)) continue;
      for (double bytes : kSizes) {
        INFO("bytes " << bytes);
        const Schedule schedule = algorithm.schedule(kind, group, bytes);
        CHECK(test::verify_schedule(kind, group, schedule) == "");
        ++verified;
      }
    }
  }
  CHECK(verified > 0);
}

}  // namespace

TEST_CASE("the symbolic executor catches broken schedules") {
  const GroupShape group{4, 1, 0};
  Schedule s = find_algorithm("ring").schedule(CollectiveKind::AllReduce, group, 400);
  REQUIRE(test::verify_schedule(CollectiveKind::AllReduce, group, s) == "");

  Schedule missing_round = s;
  missing_round.rounds.pop_back();
  CHECK(test::verify_schedule(CollectiveKind::AllReduce, group, missing_round) != "");

  Schedule twice = s;
  twice.rounds[0].transfers.push_back(twice.rounds[0].transfers.front());
  CHECK(test::verify_schedule(CollectiveKind::AllReduce, group, twice).find("twice") != std::string::npos);

  Schedule early = s;
  std::swap(early.rounds[0], early.rounds[1]);
  CHECK(test::verify_schedule(CollectiveKind::AllReduce, group, early) != "");

  Schedule bcast = find_algorithm("ring").schedule(CollectiveKind::Broadcast, group, 400);
  bcast.rounds[0].transfers[0].src = 2;
  CHECK(test::verify_schedule(CollectiveKind::Broadcast, group, bcast).find("does not hold") != std::string::npos);
}

TEST_CASE("ring schedules are correct for sizes 1..17 on 1 / 2 / 3 or 4 ranks per node") {
  check_algorithm("ring", test::shapes(range(1, 17), {1, 2, 3, 4}));
}

TEST_CASE("halving-doubling schedules are correct for powers of two and refused otherwise") {
  check_algorithm("halving_doubling", test::shapes({1, 2, 4, 8, 16, 32}, {1, 2, 4, 8}));
  const CollectiveAlgorithm& hd = find_algorithm("halving_doubling");
  for (int n : {3, 5, 6, 7, 12, 17}) CHECK_FALSE(hd.supports(CollectiveKind::AllReduce, GroupShape{n, 1, 0}));
}

TEST_CASE("double binary tree schedules are correct for sizes 1..17 and any root") {
  std::vector<GroupShape> groups = test::shapes(range(1, 17), {1, 2, 4});
  for (int root = 0; root < 12; ++root) groups.push_back(GroupShape{12, 3, root});
  check_algorithm("double_binary_tree", groups);
}

TEST_CASE("hierarchical schedules are correct for 1 / 2 / 4 or 8 ranks per node") {
  check_algorithm("hierarchical", test::shapes({1, 2, 3, 4, 6, 8, 12, 16, 24, 32}, {1, 2, 4, 8}));
}

TEST_CASE("direct schedules are correct for sizes 1..17") {
  check_algorithm("direct", test::shapes(range(1, 17), {1, 2, 4}));
}

TEST_CASE("each rank of the double binary tree moves at most two chunks each way per round") {
  // The two trees are complementary: no rank is an inner node of both.
  const CollectiveAlgorithm& tree = find_algorithm("double_binary_tree");
  for (int n = 2; n <= 64; ++n) {
    for (CollectiveKind kind : {K::AllReduce, K::Broadcast, K::Reduce}) {
      const Schedule s = tree.schedule(kind, GroupShape{n, 1, n / 3}, 9 * kMiB);
      int worst = 0;
      for (const Round& round : s.rounds) {
        std::vector<int> out(static_cast<std::size_t>(n)), in(static_cast<std::size_t>(n));
        for (const Transfer& t : round.transfers) {
          worst = std::max(worst, ++out[static_cast<std::size_t>(t.src)]);
          worst = std::max(worst, ++in[static_cast<std::size_t>(t.dst)]);
        }
      }
      INFO("size " << n << " " << collective_name(kind));
      CHECK(worst == 2);
    }
  }
}
