// dtsim calibrate's measured AllReduce curve as a cluster.intra_node.collective_busbw value: the busbw it measured,
// one point per size, and a scenario given it runs collectives inside a node at exactly those rates.
#include <catch2/catch.hpp>

#include <sstream>

#include "calibrate/calibrate.hpp"
#include "core/scenario/loader.hpp"

using namespace dtsim;

namespace {

CollectiveSample sample(const std::string& kind, int ranks, double bytes, double busbw) {
  CollectiveSample c;
  c.kind = kind;
  c.algorithm = "ring";
  c.ranks = ranks;
  c.bytes = bytes;
  c.busbw = busbw;
  c.algbw = busbw * ranks / (2.0 * (ranks - 1));
  c.seconds = bytes / c.algbw;
  return c;
}

}  // namespace

TEST_CASE("a one-host profile's AllReduce bus bandwidth becomes a collective_busbw key that reads back exactly",
          "[calibrate]") {
  CalibrationProfile p;
  p.machine.hosts = 1;
  // Two passes at 1 MiB (the median of 40 and 44), one at 64 MiB given first; an AllGather and a one-rank
  // AllReduce, which are not the curve.
  p.collectives = {sample("allreduce", 8, 64 << 20, 160e9), sample("allreduce", 8, 1 << 20, 40e9),
                   sample("allreduce", 8, 1 << 20, 44e9), sample("allgather", 8, 4 << 20, 90e9),
                   sample("allreduce", 1, 8 << 20, 1e9)};
  const std::string key = calib::measured_busbw_key(p);
  CHECK(key == "1048576B:42GB/s,67108864B:160GB/s");
  std::ostringstream printed;
  calib::print_profile(printed, p);
  CHECK(printed.str().find("  cluster.intra_node.collective_busbw: " + key + "\n") != std::string::npos);
  // The key as a scenario gives it: collectives inside a node at the measured bus bandwidth of their size.
  const Scenario s = load_scenario_text("model: {name: resnet50}\ncluster: {device: a100_80gb, devices_per_node: 8}\n",
                                        "x.yaml", {"cluster.intra_node.collective_busbw=" + key});
  CHECK(s.cluster.intra_rate_for(1 << 20) == Approx(42e9));
  CHECK(s.cluster.intra_rate_for(64 << 20) == Approx(160e9));
  // Several hosts: the AllReduces crossed the network, not a node's links.
  p.machine.hosts = 2;
  CHECK(calib::measured_busbw_key(p).empty());
}
