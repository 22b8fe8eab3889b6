// The network model of the simulation, set explicitly from the cluster's transport (the reasons
// for each setting are in platform.hpp), and SimGrid's own logging silenced below warnings.
#include <xbt/log.h>

#include <string>
#include <vector>

#include "sim/simgrid/platform.hpp"

namespace dtsim::sg {

namespace {

std::vector<std::string> network_settings(Transport transport, bool calibrated) {
  if (calibrated) {
    // The profile's factors come as callbacks (calibrated_network.cpp), which SimGrid refuses
    // beside an explicit network/latency-factor or network/bandwidth-factor setting.
    return {"network/model:CM02", "network/weight-S:0", "network/solver:fairbottleneck", "network/TCP-gamma:0",
            "network/crosstraffic:0"};
  }
  if (transport == Transport::Rdma) {
    return {
        "network/model:CM02",     "network/latency-factor:1",      "network/bandwidth-factor:1",
        "network/weight-S:0",     "network/solver:fairbottleneck", "network/TCP-gamma:0",
        "network/crosstraffic:0",
    };
  }
  return {
      "network/model:LV08",     "network/latency-factor:13.01", "network/bandwidth-factor:0.97",
      "network/weight-S:20537", "network/solver:maxmin",        "network/TCP-gamma:4194304",
      "network/crosstraffic:1",
  };
}

}  // namespace

void configure_engine(simgrid::s4u::Engine& engine, const ClusterSpec& cluster) {
  // First, so that the configuration changes below are not logged either.
  xbt_log_control_set("root.thresh:warning");
  for (const std::string& setting : network_settings(cluster.transport, cluster.calibration != nullptr)) {
    engine.set_config(setting);
  }
}

}  // namespace dtsim::sg
