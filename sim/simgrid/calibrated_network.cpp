// A calibrated platform (cluster.calibration): link figures and SMPI-style message-size factors
// taken from the profile's fitted piecewise segments.
//
// Each link class of the profile (same_host: the node's intra links; cross_host: NICs and
// switches) has segments (min_bytes, latency, bandwidth). The platform's links get a base latency
// (the first segment's, that of small messages) and a base bandwidth (the last segment's, that of
// large messages); SimGrid's latency and bandwidth factor callbacks (the s4u counterpart of
// smpi/lat-factor and smpi/bw-factor) then scale them by message size: a message of S bytes alone
// on its route takes latency(S) + S / bandwidth(S) of the segment holding S (SimGrid 3.32 applies
// the bandwidth factor to the rate a flow gets, so factors above 1 work too). A route of intra links
// only is same_host, a route of p2p links only same_host_p2p (point-to-point transfers between ranks
// of one node, on links of their own: node_zone.cpp), any other cross_host; a class the profile
// lacks keeps the scenario's figures with factors 1. A plan whose data stays in cache
// (cost::data_in_cache) takes same_host's _in_cache curve, as the analytical engine does.
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>

#include <optional>
#include <string_view>

#include "core/calibration/calibration.hpp"
#include "sim/simgrid/platform_parts.hpp"

namespace dtsim::sg::detail {
namespace {

struct ClassBase {
  const FittedCurve* curve = nullptr;
  double latency = 0;
  double bandwidth = 1;
};

ClassBase base_of(const FittedCurve* c) {
  ClassBase b;
  b.curve = c;
  if (!c) return b;
  b.latency = c->fit.segments.front().fixed;
  for (const Segment& s : c->fit.segments) b.latency = b.latency > 0 ? b.latency : s.fixed;
  b.bandwidth = 1.0 / c->fit.segments.back().per_unit;
  return b;
}

bool all_named(const std::vector<simgrid::s4u::Link*>& links, std::string_view part) {
  for (const auto* l : links) {
    if (std::string_view(l->get_name()).find(part) == std::string_view::npos) return false;
  }
  return true;
}

// The link class of a route and its base figures. Intra links are "n<node>.d<local>.intra", p2p
// links "n<node>.d<local>.p2p.link" (SimGrid names the directions "..._UP" and "..._DOWN").
struct Classes {
  ClassBase same, p2p, cross;
  const ClassBase& of(const std::vector<simgrid::s4u::Link*>& links) const {
    if (all_named(links, ".intra")) return same;
    if (all_named(links, ".p2p")) return p2p;
    return cross;
  }
};

}  // namespace

std::optional<LinkSpec> p2p_link(const ClusterSpec& cluster) {
  const ClassBase p2p = base_of(cluster.calibration ? cluster.calibration->link(kSameHostP2p) : nullptr);
  if (!p2p.curve) return std::nullopt;
  return LinkSpec{p2p.bandwidth, p2p.latency};
}

ClusterSpec calibrated_cluster(const ClusterSpec& cluster, bool in_cache) {
  ClusterSpec c = cluster;
  if (!cluster.calibration) return c;
  const ClassBase same = base_of(cluster.calibration->link(kSameHost, in_cache));
  const ClassBase cross = base_of(cluster.calibration->link(kCrossHost));
  if (same.curve) c.intra = LinkSpec{same.bandwidth, same.latency};
  if (cross.curve) {
    c.nic = LinkSpec{cross.bandwidth / c.nics, cross.latency};
    c.server_nic = LinkSpec{cross.bandwidth, cross.latency};
    c.topology.switch_latency = 0;  // measured end to end
  }
  return c;
}

void install_calibration_factors(simgrid::s4u::NetZone* root, const ClusterSpec& cluster, bool in_cache) {
  if (!cluster.calibration) return;
  const CalibrationProfile& p = *cluster.calibration;
  const Classes classes{base_of(p.link(kSameHost, in_cache)), base_of(p.link(kSameHostP2p)),
                        base_of(p.link(kCrossHost))};
  auto* model = root->get_network_model();
  model->set_lat_factor_cb([classes, keep = cluster.calibration](double size, const simgrid::s4u::Host*,
                                                                 const simgrid::s4u::Host*,
                                                                 const std::vector<simgrid::s4u::Link*>& links,
                                                                 const std::unordered_set<simgrid::s4u::NetZone*>&) {
    const ClassBase& b = classes.of(links);
    if (!b.curve || b.latency <= 0) return 1.0;
    return b.curve->fit.at(size).fixed / b.latency;
  });
  model->set_bw_factor_cb([classes, keep = cluster.calibration](double size, const simgrid::s4u::Host*,
                                                                const simgrid::s4u::Host*,
                                                                const std::vector<simgrid::s4u::Link*>& links,
                                                                const std::unordered_set<simgrid::s4u::NetZone*>&) {
    const ClassBase& b = classes.of(links);
    if (!b.curve) return 1.0;
    return 1.0 / b.curve->fit.at(size).per_unit / b.bandwidth;
  });
}

}  // namespace dtsim::sg::detail
