// The platform builder's errors (InputError, before SimGrid sees anything) and its silence:
// a run prints nothing of SimGrid's below warnings.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>

#include "platform_fixtures.hpp"

using namespace dtsim;

namespace {

// "InputError: <message>" if building throws one, "built" if it does not.
std::string build_error(const ClusterSpec& c, const Plan& p) {
  const test::ChildResult r = test::fork_run([&] {
    test::EngineArgs args;
    simgrid::s4u::Engine engine(&args.argc, args.argv);
    try {
      test::start(engine, c, p);
    } catch (const InputError& e) {
      return "InputError: " + e.message();
    }
    return std::string("built");
  });
  REQUIRE(r.code == 0);
  return r.output;
}

}  // namespace

TEST_CASE("a topology whose shape does not match the cluster throws InputError") {
  ClusterSpec torus = test::cluster(TopologyKind::Torus, 8, 1);
  torus.topology.dims = {4, 4};
  CHECK_THAT(build_error(torus, test::one_per_node(torus)),
             Catch::Matches("InputError: .*4x4 has 16 positions but the cluster has 8 nodes.*"));
  torus.topology.dims = {};
  CHECK_THAT(build_error(torus, test::one_per_node(torus)), Catch::StartsWith("InputError: a torus needs"));

  ClusterSpec dragonfly = test::cluster(TopologyKind::Dragonfly, 8, 1);
  dragonfly.topology.groups = 3;
  dragonfly.topology.routers_per_group = 2;
  dragonfly.topology.nodes_per_router = 2;
  CHECK_THAT(build_error(dragonfly, test::one_per_node(dragonfly)), Catch::Contains("holds 12 nodes"));

  ClusterSpec fat_tree = test::cluster(TopologyKind::FatTree, 8, 1);
  fat_tree.topology.oversubscription = 0.5;
  CHECK_THAT(build_error(fat_tree, test::one_per_node(fat_tree)), Catch::Contains("oversubscription"));
}

TEST_CASE("placements outside the cluster, on a taken device, or links without rate throw InputError") {
  const ClusterSpec c = test::cluster(TopologyKind::Star, 2, 2);
  CHECK_THAT(build_error(c, test::placed({{0, 0}, {2, 0}})), Catch::Contains("placed on node 2"));
  CHECK_THAT(build_error(c, test::placed({{0, 0}, {0, 2}})), Catch::Contains("which has 2 devices"));
  CHECK_THAT(build_error(c, test::placed({{0, 1}, {0, 1}})), Catch::Contains("which another rank holds"));
  ClusterSpec no_nic = c;
  no_nic.nic.rate = 0;
  CHECK_THAT(build_error(no_nic, test::placed({{0, 0}})), Catch::Contains("cluster.nic: the rate must be positive"));
  CHECK(build_error(c, test::placed({{0, 0}, {1, 1}})) == "built");
}

TEST_CASE("a run prints nothing of SimGrid's at INFO") {
  for (Transport transport : {Transport::Rdma, Transport::Tcp}) {
    ClusterSpec c = test::cluster(TopologyKind::Torus, 4, 1);
    c.topology.dims = {4};
    c.transport = transport;
    const test::ChildResult r = test::fork_run([&] {
      std::FILE* log = std::tmpfile();
      std::fflush(stderr);
      dup2(fileno(log), 2);
      dup2(fileno(log), 1);
      test::EngineArgs args;
      simgrid::s4u::Engine engine(&args.argc, args.argv);
      const sg::Platform pf = test::start(engine, c, test::one_per_node(c, 1));
      static int token = 0;
      simgrid::s4u::Actor::create("send", pf.rank_hosts[0],
                                  [] { simgrid::s4u::Mailbox::by_name("m")->put(&token, 1e6); });
      simgrid::s4u::Actor::create("recv", pf.rank_hosts[4], [] { simgrid::s4u::Mailbox::by_name("m")->get<int>(); });
      engine.run();
      std::fflush(nullptr);
      std::rewind(log);
      std::string text;
      for (int ch; (ch = std::fgetc(log)) != EOF;) text.push_back(static_cast<char>(ch));
      return text;
    });
    CHECK(r.code == 0);
    INFO(r.output);
    // SimGrid's log lines read "[time] [category/PRIORITY] text"; under AddressSanitizer the
    // sanitizer's own warnings about context switches (lines starting "==") may appear.
    CHECK(r.output.find("/INFO]") == std::string::npos);
    CHECK(r.output.find("] [") == std::string::npos);
  }
}
