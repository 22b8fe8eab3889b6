// What each rank computes on, and whether communication takes the ranks' cores: the rules both
// engines apply to a calibrated host (docs/calibration.md).
#pragma once

#include <utility>
#include <vector>

#include "core/cluster/cluster.hpp"
#include "core/plan/plan.hpp"
#include "core/run/composite_timing.hpp"

namespace dtsim::cost {

// With a calibration profile measured on one host with as many ranks as this Plan has, and more
// ranks than the host has cores: the core each rank computes on (rank r on core r mod cores, as the
// OS time-slices the ranks' processes); otherwise empty (a device per rank). Both engines take this
// rule: the analytical engine queues a core's ops (FIFO), SimGrid shares the core between them.
std::vector<int> shared_cores(const ClusterSpec& cluster, const Plan& plan);

// What each rank computes on, as both engines key it: its device (node, local), shared by a
// server's per-worker ranks, or (-1, core) on shared cores.
std::vector<std::pair<int, int>> compute_devices(const ClusterSpec& cluster, const Plan& plan);

// With a calibration profile of the cpu backend: communication is work of the ranks' cores (MPI
// copies shared memory, or drives the socket, on a thread beside the GEMMs, which keep the core
// while they have work). Both engines then start a transfer or collective only once every core of
// its ranks has no compute running or queued, and start no compute on those cores until it ends;
// communication still overlaps communication. Without it (cuda, or no profile) communication runs
// beside compute, as on a device with its own copy engines and NICs. cluster.contention.compute: 1
// (no contention) lets it run beside compute on a cpu profile too.
bool comm_holds_cores(const ClusterSpec& cluster);

// With a calibration profile of the cuda backend that measured contention on 2 or more GPUs: the
// fraction of its rate compute kept beside NCCL there (ContentionFit::compute_kept); else 0.
double measured_compute_kept(const ClusterSpec& cluster);

// Contention (cluster.contention.compute): the fraction of its compute rate each rank keeps while it
// communicates, the rule both engines apply. A worker alone on its device keeps cluster.contention.compute
// when set, else a cuda profile's measured figure (measured_compute_kept), else its node's device
// zoo figure; servers, devices that ranks share and cores that communication holds (comm_holds_cores)
// keep 1.
std::vector<double> compute_kept(const ClusterSpec& cluster, const Plan& plan);
// compute_kept of one rank, without the others' (the symmetric fast path's representative).
double compute_kept_of(const ClusterSpec& cluster, const Plan& plan, int rank);
// The fraction of its rate a composite op keeps while its rank communicates: its compute parts at
// `kept`, its communication parts (collectives inside a node) unslowed, the two spread evenly
// through it: duration / (duration + compute (1 / kept - 1)), which is (compute + comm) / (compute / kept + comm)
// when no parts run side by side (Composite::beside). Its kernels one by one would be slowed only
// where the communication beside them overlaps their compute parts; the even spread is the
// expectation of that over where the overlap falls.
double composite_kept(double kept, const CompositeTiming& t);

}  // namespace dtsim::cost
