// Clusters, placements and probes for the platform tests. Every probe builds its platform in a
// forked child (one simulation per process) and reads back what the child measured.
#pragma once

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/base/error.hpp"
#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"
#include "sim/simgrid/platform.hpp"
#include "tests/support/fork_run.hpp"

namespace dtsim::test {

// A cluster whose latencies and rates all differ, so a route that picks up the wrong link shows.
inline ClusterSpec cluster(TopologyKind kind, int nodes, int devices_per_node) {
  ClusterSpec c;
  c.nodes = nodes;
  c.devices_per_node = devices_per_node;
  c.device = load_device("a100_40gb");
  c.efficiency = 0.5;
  c.intra = LinkSpec{300e9, 0.7e-6};
  c.nics = 2;
  c.nic = LinkSpec{25e9, 2e-6};  // node bandwidth 50 GB/s
  c.server_nic = LinkSpec{12.5e9, 4e-6};
  c.server_device = load_device("cpu_socket");
  c.topology.kind = kind;
  c.topology.switch_latency = 0.3e-6;
  return c;
}

// A plan with no ops: workers at the given placements, then server ranks at theirs.
inline Plan placed(const std::vector<Placement>& workers, const std::vector<Placement>& servers = {},
                   int server_nodes = 0) {
  Plan p;
  p.name = "placement";
  p.server_nodes = server_nodes;
  p.jobs.push_back(JobPlan{"job", {}, {}, 0});
  for (size_t i = 0; i < workers.size() + servers.size(); ++i) {
    RankProgram r;
    r.rank = static_cast<int>(i);
    r.role = i < workers.size() ? Role::Worker : Role::Server;
    r.where = i < workers.size() ? workers[i] : servers[i - workers.size()];
    (i < workers.size() ? p.jobs[0].workers : p.jobs[0].servers).push_back(r.rank);
    p.ranks.push_back(r);
  }
  return p;
}

// One worker on device 0 of every node, then one server rank on each of `server_nodes` dedicated nodes.
inline Plan one_per_node(const ClusterSpec& c, int server_nodes = 0) {
  std::vector<Placement> w, s;
  for (int n = 0; n < c.nodes; ++n) w.push_back(Placement{n, 0});
  for (int k = 0; k < server_nodes; ++k) s.push_back(Placement{c.nodes + k, 0});
  return placed(w, s, server_nodes);
}

// Builds the engine, the network model and the platform; the child's body.
inline sg::Platform start(simgrid::s4u::Engine& engine, const ClusterSpec& c, const Plan& p) {
  sg::configure_engine(engine, c);
  return sg::build_platform(c, p);
}

struct EngineArgs {
  char arg0[5] = "test";
  char* argv[2] = {arg0, nullptr};
  int argc = 1;
};

struct Route {
  double latency = 0;
  double bandwidth = 0;  // of the narrowest link
  size_t links = 0;
};

// The route between each pair of ranks, as SimGrid resolves it.
inline std::vector<Route> routes(const ClusterSpec& c, const Plan& p, const std::vector<std::pair<int, int>>& pairs) {
  const ChildResult r = fork_run([&] {
    EngineArgs args;
    simgrid::s4u::Engine engine(&args.argc, args.argv);
    const sg::Platform pf = start(engine, c, p);
    std::ostringstream out;
    out.precision(17);
    for (const auto& [a, b] : pairs) {
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      pf.rank_hosts[a]->route_to(pf.rank_hosts[b], links, &latency);
      double bw = std::numeric_limits<double>::infinity();
      for (const auto* l : links) bw = std::min(bw, l->get_bandwidth());
      out << latency << ' ' << bw << ' ' << links.size() << '\n';
    }
    return out.str();
  });
  if (r.code != 0) throw std::runtime_error("child failed (" + std::to_string(r.code) + "): " + r.output);
  std::istringstream in(r.output);
  std::vector<Route> out(pairs.size());
  for (Route& route : out) in >> route.latency >> route.bandwidth >> route.links;
  return out;
}

struct Transfer {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};

// Runs the transfers at once from time 0 (one actor pair and mailbox each); their end times.
inline std::vector<double> transfer_times(const ClusterSpec& c, const Plan& p, const std::vector<Transfer>& transfers) {
  const ChildResult r = fork_run([&] {
    EngineArgs args;
    simgrid::s4u::Engine engine(&args.argc, args.argv);
    const sg::Platform pf = start(engine, c, p);
    std::vector<double> ends(transfers.size(), -1);
    static int token = 0;
    for (size_t i = 0; i < transfers.size(); ++i) {
      const Transfer t = transfers[i];
      const std::string id = std::to_string(i);
      simgrid::s4u::Mailbox* mb = simgrid::s4u::Mailbox::by_name(id);
      simgrid::s4u::Actor::create(id, pf.rank_hosts[t.src],
                                  [mb, t] { mb->put(&token, static_cast<uint64_t>(t.bytes)); });
      simgrid::s4u::Actor::create(id, pf.rank_hosts[t.dst], [mb, &ends, i] {
        mb->get<int>();
        ends[i] = simgrid::s4u::Engine::get_clock();
      });
    }
    engine.run();
    std::ostringstream out;
    out.precision(17);
    for (double e : ends) out << e << '\n';
    return out.str();
  });
  if (r.code != 0) throw std::runtime_error("child failed (" + std::to_string(r.code) + "): " + r.output);
  std::istringstream in(r.output);
  std::vector<double> out(transfers.size());
  for (double& e : out) in >> e;
  return out;
}

}  // namespace dtsim::test
