// The zone of one node: its devices (one host per plan rank placed there), the node's switch
// fabric (NVSwitch / PCIe switch) and its NICs, behind a gateway router. Speed profiles of the
// devices and bandwidth profiles of the NICs become SimGrid's own host and link profiles.
//
//           dev0   dev1   dev2   dev3        each device: its own split-duplex link
//            |      |      |      |          (intra.rate per direction, intra.latency / 2)
//        ====+======+======+======+====      node switch
//                      |
//                    [NIC]  nics * nic.rate, nic.latency / 2 (+ a share of the first switch)
//                      |
//                     gw   ---- to the topology
//
// Routes (a full zone, every pair written out):
//  - device i -> device j: intra_i (up), intra_j (down): latency intra.latency, bottleneck intra.rate;
//  - device i -> gw: the NIC (up) only. Traffic leaving the node crosses nothing but the NIC, so
//    the intra links never slow or delay it; intra-node and inter-node traffic of one device do
//    not compete (an NVLink fabric and a NIC are separate paths; for PCIe nodes the shared
//    device link is not modelled).
// With a calibration profile's same_host_p2p link, each device also has a point-to-point endpoint,
// the host "n<node>.d<local>.p2p" (sends, receives and gossip go between endpoints), on a
// split-duplex link of its own ("....p2p.link", at that class's figures) to the node switch, and
// leaving the node through the same NIC: p2p.i -> p2p.j crosses p2p_i (up) and p2p_j (down) only,
// so point-to-point transfers and collective rounds inside a node use different links (as the
// analytical engine costs them apart), and share the NIC across nodes.
#include <fmt/format.h>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include <string>

#include "sim/simgrid/platform_parts.hpp"

namespace dtsim::sg::detail {

namespace {
constexpr auto kUp = sg4::LinkInRoute::Direction::UP;
constexpr auto kDown = sg4::LinkInRoute::Direction::DOWN;
}  // namespace

ZoneRef NodeFactory::make(sg4::NetZone* parent, int node, double switch_share) {
  const bool server_node = node >= cluster_.nodes;
  const LinkSpec nic = server_node ? cluster_.server_nic : LinkSpec{cluster_.node_bandwidth(), cluster_.nic.latency};
  const std::string name = fmt::format("n{}", node);

  sg4::NetZone* zone = sg4::create_full_zone(name);
  zone->set_parent(parent);
  NetPoint* gateway = zone->create_router(name + ".gw");
  sg4::SplitDuplexLink* nic_link = zone->create_split_duplex_link(name + ".nic", nic.rate);
  nic_link->set_latency(nic.latency / 2 + switch_share);
  if (const Profile* p = cluster_.nic_profile_of(node)) {
    // Profiles must be set before the zone is sealed.
    nic_link->get_link_up()->set_bandwidth_profile(profiles_.get(*p, nic.rate));
    nic_link->get_link_down()->set_bandwidth_profile(profiles_.get(*p, nic.rate));
  }

  const std::vector<RankHost>& ranks = hosts_at_[node];
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::Link*> intra;
  std::vector<sg4::Host*> ends;  // point-to-point endpoints, with p2p_
  std::vector<sg4::Link*> p2p;
  for (const RankHost& r : ranks) {
    const std::string host_name = fmt::format("{}.d{}", name, r.local);
    std::vector<double> speeds{r.speed};
    for (double f : r.pstates) speeds.push_back(r.speed * f);
    sg4::Host* host = zone->create_host(host_name, speeds);
    if (r.speed_profile) host->set_speed_profile(profiles_.get(*r.speed_profile, 1.0));
    platform_.rank_hosts[r.rank] = host;
    platform_.rank_speed[r.rank] = r.speed;
    zone->add_route(host->get_netpoint(), gateway, nullptr, nullptr, {{nic_link, kUp}}, true);
    hosts.push_back(host);
    if (ranks.size() > 1) {
      intra.push_back(zone->create_split_duplex_link(host_name + ".intra", cluster_.intra.rate)
                          ->set_latency(cluster_.intra.latency / 2));
    }
    if (!p2p_) continue;
    sg4::Host* end = zone->create_host(host_name + ".p2p", r.speed);
    platform_.p2p_hosts[r.rank] = end;
    zone->add_route(end->get_netpoint(), gateway, nullptr, nullptr, {{nic_link, kUp}}, true);
    ends.push_back(end);
    if (ranks.size() > 1) {
      p2p.push_back(
          zone->create_split_duplex_link(host_name + ".p2p.link", p2p_->rate)->set_latency(p2p_->latency / 2));
    }
  }
  for (size_t i = 0; i < hosts.size(); ++i) {
    for (size_t j = i + 1; j < hosts.size(); ++j) {
      zone->add_route(hosts[i]->get_netpoint(), hosts[j]->get_netpoint(), nullptr, nullptr,
                      {{intra[i], kUp}, {intra[j], kDown}}, true);
      if (p2p_) {
        zone->add_route(ends[i]->get_netpoint(), ends[j]->get_netpoint(), nullptr, nullptr,
                        {{p2p[i], kUp}, {p2p[j], kDown}}, true);
      }
    }
  }
  // The node's own hosts first: sealing a zone seals the hosts SimGrid finds under the platform's root, which does
  // not hold this node yet (build_platform builds the fabric apart and attaches it last).
  for (sg4::Host* h : hosts) h->seal();
  for (sg4::Host* h : ends) h->seal();
  zone->seal();
  return ZoneRef{zone, gateway};
}

sg4::NetZone* detached_zone(const std::string& name, const sg4::NetZone* root) {
  sg4::NetZone* zone = sg4::create_star_zone(name);
  simgrid::kernel::routing::NetZoneImpl* impl = zone->get_impl();
  const simgrid::kernel::routing::NetZoneImpl* from = root->get_impl();
  impl->set_network_model(from->get_network_model());
  impl->set_cpu_pm_model(from->get_cpu_pm_model());
  impl->set_cpu_vm_model(from->get_cpu_vm_model());
  impl->set_disk_model(from->get_disk_model());
  impl->set_host_model(from->get_host_model());
  return zone;
}

ZoneRef make_switch(sg4::NetZone* parent, const std::string& name) {
  sg4::NetZone* zone = sg4::create_empty_zone(name);
  zone->set_parent(parent);
  NetPoint* router = zone->create_router(name + ".r");
  attach_to_star(parent, ZoneRef{zone, router});
  return ZoneRef{zone, router};
}

void attach_to_star(sg4::NetZone* star, const ZoneRef& child, const std::vector<sg4::LinkInRoute>& links) {
  star->add_route(child.zone->get_netpoint(), nullptr, child.gateway, nullptr, links, true);
}

}  // namespace dtsim::sg::detail
