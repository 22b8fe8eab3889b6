// The analytical engine: runs a Plan with closed-form op costs (cost_model.hpp) and a list
// scheduler. Streams run their ops in order, collectives start when every member is ready,
// point-to-point transfers in flight share the ports they cross at max-min fair rates
// (port_share.hpp: a parameter server's incast costs N*S/B). Collectives see no contention
// from each other: that is the SimGrid engine's job.
#pragma once

#include "core/cluster/cluster.hpp"
#include "core/run/observer.hpp"

namespace dtsim::analytical {

class AnalyticalExecutor : public Executor {
 public:
  explicit AnalyticalExecutor(const ClusterSpec& cluster) : cluster_(cluster) {}
  RunInfo run(const Plan& plan, Observer& observer) override;

 private:
  const ClusterSpec& cluster_;
};

}  // namespace dtsim::analytical
