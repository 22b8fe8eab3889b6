// The cluster a job runs on: nodes of devices, the links inside a node, NICs, the switch
// topology between nodes, where parameter servers live, and the transport.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/base/profile.hpp"
#include "core/cluster/link_kinds.hpp"
#include "models/zoo/device.hpp"

namespace dtsim {

struct CalibrationProfile;  // core/calibration/calibration.hpp

enum class TopologyKind { Star, FatTree, Torus, Dragonfly };
enum class Transport { Rdma, Tcp };
enum class ServerPlacement { Dedicated, Colocated };
enum class HostCpu { Intel, Amd, Arm };

struct LinkSpec {
  double rate = 0;     // bytes/s per direction
  double latency = 0;  // seconds per message
};

//        node 0                      node 1
//   [d0 d1 d2 d3]--intra link   [d0 d1 d2 d3]
//         |  NIC(s)                   |
//         +-------- topology ---------+   (star: one switch; fat-tree: leaf switches with
//                                          uplinks; torus / dragonfly: direct router links)
struct TopologySpec {
  TopologyKind kind = TopologyKind::Star;
  double switch_latency = 0;      // per switch or router hop
  int nodes_per_switch = 0;       // fat-tree: nodes under one leaf switch (0 = all under one)
  double oversubscription = 1.0;  // fat-tree: downlink / uplink capacity of a leaf switch
  std::vector<int> dims;          // torus: e.g. 4x4x4 (product = nodes)
  int groups = 0;                 // dragonfly: groups
  int routers_per_group = 0;      // dragonfly: routers per group
  int nodes_per_router = 0;       // dragonfly: nodes per router
};

struct ClusterSpec {
  int nodes = 1;
  int devices_per_node = 1;
  DeviceSpec device;
  double efficiency = 0;  // achieved fraction of peak; from the device zoo unless set
  // cluster.contention.compute: the fraction of its compute rate a device keeps while it
  // communicates; 0: each node's device zoo figure (compute_kept_at).
  double compute_under_comm = 0;
  IntraLinkKind intra_kind = IntraLinkKind::NvLink;  // cluster.intra_node.kind (link_kinds.hpp)
  LinkSpec intra;                                    // one device's link into the node fabric
  // cluster.intra_node.collective_busbw: the bus bandwidth collectives inside a node reach by buffer
  // size (bytes, bytes/s), ascending, as nccl-tests measures it; empty: intra.rate at every size.
  std::vector<std::pair<double, double>> intra_busbw;
  HostCpu host_cpu = HostCpu::Intel;   // cluster.cpu: the nodes' CPUs (NCCL's cost model reads the vendor)
  int nics = 1;                        // NICs per node
  NicKind nic_kind = NicKind::Custom;  // cluster.nic.kind (link_kinds.hpp)
  LinkSpec nic;                        // one NIC
  TopologySpec topology;
  Transport transport = Transport::Rdma;
  ServerPlacement server_placement = ServerPlacement::Dedicated;
  LinkSpec server_nic;       // NIC of a dedicated server host
  DeviceSpec server_device;  // what a parameter server aggregates and updates on
  // cluster.calibration: when set, compute and link costs come from this measured profile
  // instead of the device and link figures above (sim/analytical/cost_model, sim/simgrid/platform).
  std::shared_ptr<const CalibrationProfile> calibration;
  // Heterogeneous clusters (cluster.device_mix): the device type and achieved efficiency of each
  // node; empty means every node has `device` at `efficiency`.
  std::vector<DeviceSpec> node_devices;
  std::vector<double> node_efficiency;
  // Slow or flapping NICs (cluster.nic_profile): a bandwidth profile (factors of nic.rate, in (0, 1])
  // on the NICs of `nic_profile_nodes` (empty: every node). No points: no profile.
  Profile nic_profile;
  std::vector<int> nic_profile_nodes;

  int devices() const { return nodes * devices_per_node; }
  const DeviceSpec& device_at(int node) const {
    return node_devices.empty() || node < 0 || node >= nodes ? device : node_devices[static_cast<size_t>(node)];
  }
  double compute_kept_at(int node) const {
    return compute_under_comm > 0 ? compute_under_comm : device_at(node).compute_under_comm;
  }
  double efficiency_at(int node) const {
    return node_efficiency.empty() || node < 0 || node >= nodes ? efficiency
                                                                : node_efficiency[static_cast<size_t>(node)];
  }
  bool heterogeneous() const;
  // "a100_40gb", or for a mix the node runs as written in cluster.device_mix: "a100_80gb:2,v100:2".
  std::string device_names() const;
  // The NIC bandwidth profile of a cluster node, or nullptr.
  const Profile* nic_profile_of(int node) const;
  double node_bandwidth() const { return nic.rate * nics; }
  // The intra-node bandwidth a collective of `bytes` (its buffer, S) sees: intra.rate, or the
  // measured bus bandwidth interpolated linearly in log(size), held at the ends beyond them.
  double intra_rate_for(double bytes) const;
  // Switch or router hops between two different nodes (for latency).
  int hops(int node_a, int node_b) const;
};

std::string_view topology_name(TopologyKind k);

}  // namespace dtsim
