// Max-min fair port sharing (sim/analytical/port_share.hpp) against closed forms written out here.
#include <catch2/catch.hpp>

#include <limits>
#include <map>
#include <random>
#include <vector>

#include "core/base/profile.hpp"
#include "sim/analytical/port_share.hpp"

using namespace dtsim;
using namespace dtsim::analytical;

namespace {
cost::Port nic(int node, bool egress) { return cost::Port{node, -1, egress}; }

// A flow of `bytes` from node a's NIC to node b's NIC, each port of `bw` bytes/s.
PortFlow flow(int id, double bytes, int a, int b, double bw, double copies_from = 1) {
  PortFlow f;
  f.id = id;
  f.bytes = bytes;
  f.ports[0] = nic(a, true);
  f.ports[1] = nic(b, false);
  f.cost[0] = copies_from / bw;
  f.cost[1] = 1 / bw;
  return f;
}

// Drains everything; the drain time of each flow by id.
std::map<int, double> run_out(PortShare& share) {
  std::map<int, double> ends;
  while (!share.empty()) {
    const double t = share.next_drain();
    for (int id : share.drain(t)) ends[id] = t;
  }
  return ends;
}
}  // namespace

TEST_CASE("N equal flows into one port, started together, all drain at N*S/B") {
  const double s = 4e6, bw = 1.25e9;
  for (int n : {1, 2, 3, 8, 100}) {
    PortShare share;
    std::vector<PortFlow> flows;
    for (int i = 0; i < n; ++i) flows.push_back(flow(i, s, i + 1, 0, bw));
    share.add(0, flows);
    for (int i = 0; i < n; ++i) CHECK(share.rate(i) == Approx(bw / n).epsilon(1e-12));
    const auto ends = run_out(share);
    REQUIRE(ends.size() == static_cast<size_t>(n));
    for (const auto& [id, end] : ends) CHECK(end == Approx(n * s / bw).epsilon(1e-12));
  }
}

TEST_CASE("a flow joined at t by an equal one drains at 2S/B - t, the joiner at 2S/B") {
  const double s = 1e6, bw = 1e9;
  for (double t : {0.0, 1e-4, 5e-4, 9e-4}) {
    PortShare share;
    share.add(0, {flow(0, s, 1, 0, bw)});
    share.add(t, {flow(1, s, 2, 0, bw)});
    const auto ends = run_out(share);
    INFO("joined at " << t);
    CHECK(ends.at(0) == Approx(2 * s / bw - t).epsilon(1e-12));
    CHECK(ends.at(1) == Approx(2 * s / bw).epsilon(1e-12));
  }
}

TEST_CASE("max-min: a flow limited elsewhere leaves the rest of a shared port to the others") {
  // Flows 0 and 1 from fast senders into receiver 0 (B), flow 2 from a sender of B/4 into it too:
  // flow 2 runs at B/4 (its sender is full), flows 0 and 1 share the remaining 3B/4.
  const double bw = 8e9;
  PortShare share;
  PortFlow slow = flow(2, 1e6, 3, 0, bw);
  slow.cost[0] = 4 / bw;
  share.add(0, {flow(0, 1e6, 1, 0, bw), flow(1, 1e6, 2, 0, bw), slow});
  CHECK(share.rate(2) == Approx(bw / 4).epsilon(1e-12));
  CHECK(share.rate(0) == Approx(3 * bw / 8).epsilon(1e-12));
  CHECK(share.rate(1) == Approx(3 * bw / 8).epsilon(1e-12));
}

TEST_CASE("a port carries its flows' bytes in total, whatever their start times (work conserving)") {
  const double bw = 1e9;
  const std::vector<std::pair<double, double>> flows = {{0, 3e6}, {1e-3, 1e6}, {1.5e-3, 2e6}, {2e-3, 5e5}};
  PortShare share;
  double total = 0;
  std::map<int, double> ends;
  size_t next = 0;
  while (next < flows.size() || !share.empty()) {
    const double t_add = next < flows.size() ? flows[next].first : std::numeric_limits<double>::infinity();
    if (share.next_drain() <= t_add) {
      const double t = share.next_drain();
      for (int id : share.drain(t)) ends[id] = t;
    } else {
      share.add(t_add, {flow(static_cast<int>(next), flows[next].second, static_cast<int>(next) + 1, 0, bw)});
      total += flows[next].second;
      ++next;
    }
  }
  double last = 0;
  for (const auto& [id, end] : ends) last = std::max(last, end);
  // The port is never idle from 0 on (each flow arrives before the ones before it drain).
  CHECK(last == Approx(total / bw).epsilon(1e-12));
  // Processor sharing: the short late flow (0.5 MB at 2 ms) drains before the long first one.
  CHECK(ends.at(3) < ends.at(0));
}

TEST_CASE("a representative's copies count against its port: k copies through one NIC run at B/k") {
  const double bw = 1e9, s = 1e6;
  PortShare share;
  share.add(0, {flow(0, s, 1, 0, bw, 4)});  // 4 mirrored senders of one node, receivers elsewhere
  CHECK(share.rate(0) == Approx(bw / 4).epsilon(1e-12));
  CHECK(run_out(share).at(0) == Approx(4 * s / bw).epsilon(1e-12));
}

TEST_CASE("a port with a bandwidth profile carries at the profile's factor, piece by piece") {
  // Full rate for 1 ms, then a quarter: S = 2 ms of full-rate bytes ends at 1 + 4 = 5 ms.
  const double bw = 1e9, s = 2e6;
  Profile p;
  p.source = "test";
  p.times = {0, 1e-3};
  p.factors = {1, 0.25};
  PortShare share;
  PortFlow f = flow(0, s, 1, 0, bw);
  f.profiles[1] = &p;
  share.add(0, {f});
  CHECK(run_out(share).at(0) == Approx(5e-3).epsilon(1e-12));
  // The same against an unprofiled port with a second flow: the profiled port limits both.
  PortShare two;
  PortFlow g = flow(1, s, 2, 0, bw);
  g.profiles[1] = &p;
  two.add(0, {f, g});
  const auto ends = run_out(two);
  // 1 ms at B/2 each (0.5 MB each), then 1.5 MB each at B/8: 12 ms more.
  CHECK(ends.at(0) == Approx(13e-3).epsilon(1e-12));
  CHECK(ends.at(1) == Approx(13e-3).epsilon(1e-12));
}

TEST_CASE("the rates do not depend on the order the flows come in: ties go to the lower port, bit for bit") {
  // Ports that fill at the same rate: which one freezes first decides the last bits of the others' capacity. It once
  // went to the port whose map node lay lower in memory, so an in-process run (Python) of
  // scenarios/ps_vs_allreduce.yaml could differ from the CLI's in the last bit. Incasts and rings over 8 NICs of one
  // rate, each flow's copies 1, 1.5 or 2, in 200 layouts drawn from a fixed seed, added forward and reversed.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> node(0, 7), copies(2, 4), size(1, 9);
  int differ = 0;
  for (int layout = 0; layout < 200; ++layout) {
    std::vector<PortFlow> flows;
    for (int id = 0; id < 24; ++id) {
      const int a = node(rng);
      const int b = (a + 1 + node(rng) % 7) % 8;
      flows.push_back(flow(id, 1e6 * size(rng), a, b, 1.25e9, copies(rng) / 2.0));
    }
    const auto ends = [](std::vector<PortFlow> in) {
      PortShare share;
      share.add(0, in);
      return run_out(share);
    };
    if (ends(flows) != ends(std::vector<PortFlow>(flows.rbegin(), flows.rend()))) ++differ;
  }
  CHECK(differ == 0);
}
