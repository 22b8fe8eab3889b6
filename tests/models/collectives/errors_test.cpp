// Collective and algorithm names, and the one-line errors for unknown names, unsupported
// collectives, bad group shapes and bad sizes.
#include <catch2/catch.hpp>

#include <string>

#include "core/base/error.hpp"
#include "models/collectives/collective.hpp"

using namespace dtsim;
using K = CollectiveKind;

namespace {

template <typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.message();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("collective names round-trip") {
  for (std::string_view name : {"allreduce", "reduce_scatter", "allgather", "broadcast", "reduce", "alltoall"}) {
    CHECK(collective_name(parse_collective(name)) == name);
  }
  CHECK(parse_collective("reduce_scatter") == K::ReduceScatter);
  CHECK(message_of([] { parse_collective("allreduc"); }) ==
        "'allreduc' is not a collective (valid: allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall) "
        "(did you mean 'allreduce'?)");
  CHECK(message_of([] { parse_collective("x"); }) ==
        "'x' is not a collective (valid: allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall)");
}

TEST_CASE("algorithms by name") {
  CHECK(algorithm_names() == std::vector<std::string_view>{"direct", "double_binary_tree", "halving_doubling",
                                                           "hierarchical", "nccl", "ring"});
  for (std::string_view name : algorithm_names()) {
    CHECK(find_algorithm(name).name() == name);
    CHECK_FALSE(find_algorithm(name).description().empty());
  }
  CHECK(message_of([] { find_algorithm("rign"); }) ==
        "unknown collective algorithm 'rign' (valid: direct, double_binary_tree, halving_doubling, hierarchical, "
        "nccl, ring) (did you mean 'ring'?)");
  CHECK(message_of([] { find_algorithm("tree"); }).ends_with("(did you mean 'double_binary_tree'?)"));
  CHECK(message_of([] { find_algorithm("halving-doubling"); }).ends_with("(did you mean 'halving_doubling'?)"));
  // nccl: NCCL's choice, timed by its cost model where the cluster is known (models/cost), else a ring's closed form.
  CHECK(follows_nccl(find_algorithm("nccl")));
  CHECK_FALSE(follows_nccl(find_algorithm("ring")));
}

TEST_CASE("unsupported collectives name the algorithms that can run them") {
  const GroupShape eight{8, 1, 0};
  CHECK(message_of([&] { find_algorithm("ring").schedule(K::AllToAll, eight, 1e6); }) ==
        "ring does not implement alltoall; algorithms that can: direct, nccl");
  CHECK(message_of([&] {
          find_algorithm("halving_doubling").schedule(K::AllReduce, GroupShape{6, 1, 0}, 1e6);
        }) ==
        "halving_doubling needs a power-of-two group size (got 6); algorithms that can: direct, double_binary_tree, "
        "hierarchical, nccl, ring");
  CHECK(message_of([&] { find_algorithm("double_binary_tree").closed_form(K::ReduceScatter, eight, 1e6, {}); }) ==
        "double_binary_tree does not implement reduce_scatter; algorithms that can: direct, halving_doubling, "
        "hierarchical, nccl, ring");
  CHECK(message_of([&] { find_algorithm("hierarchical").schedule(K::Broadcast, eight, 1e6); }) ==
        "hierarchical does not implement broadcast; algorithms that can: double_binary_tree, halving_doubling, nccl, "
        "ring");
  CHECK(message_of([&] {
          find_algorithm("direct").schedule(K::Reduce, GroupShape{6, 2, 1}, 1e6);
        }) == "direct does not implement reduce; algorithms that can: double_binary_tree, nccl, ring");
  CHECK(message_of([&] { find_algorithm("halving_doubling").schedule(K::AllToAll, eight, 1e6); }) ==
        "halving_doubling does not implement alltoall; algorithms that can: direct, nccl");
}

TEST_CASE("bad groups and sizes") {
  const auto& ring = find_algorithm("ring");
  CHECK(message_of([&] {
          ring.schedule(K::AllReduce, GroupShape{6, 4, 0}, 1e6);
        }) == "group size 6 is not a multiple of ranks per node 4");
  CHECK(message_of([&] {
          ring.schedule(K::Broadcast, GroupShape{6, 1, 6}, 1e6);
        }) == "root 6 is outside the group of 6 ranks");
  CHECK(message_of([&] {
          ring.schedule(K::AllReduce, GroupShape{0, 1, 0}, 1e6);
        }) == "a collective group needs at least 1 rank (got 0)");
  CHECK(message_of([&] {
          ring.closed_form(K::AllReduce, GroupShape{4, 0, 0}, 1e6, {});
        }) == "ranks per node must be at least 1 (got 0)");
  CHECK(message_of([&] {
          ring.schedule(K::AllReduce, GroupShape{4, 1, 0}, -1);
        }) == "a collective's size must be a finite number of bytes >= 0 (got -1)");
  CHECK(message_of([&] {
          schedule_time(Schedule{}, GroupShape{4, 3, 0}, {});
        }) == "group size 4 is not a multiple of ranks per node 3");
}
