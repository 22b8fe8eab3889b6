// How a synchronisation policy turns training events into model updates. One rule per family:
// AllReduce (BSP, local SGD, backup workers), gossip (AD-PSGD) and parameter server (BSP, ASP,
// SSP; staleness is whatever the simulated order makes it). A new policy is a new rule and, if it
// needs them, new event kinds in events.hpp.
#pragma once

#include <memory>

#include <Eigen/Dense>

#include "core/scenario/scenario.hpp"
#include "learn/events.hpp"
#include "learn/training.hpp"

namespace dtsim::learn {

class SyncRule {
 public:
  virtual ~SyncRule() = default;
  virtual void on(const LearnEvent& e) = 0;
  // The model an evaluation looks at (the servers' parameters, the workers' common or mean model).
  virtual Eigen::VectorXd model() const = 0;
};

std::unique_ptr<SyncRule> make_allreduce_rule(Training& t, const JobSpec& job, int workers);
std::unique_ptr<SyncRule> make_gossip_rule(Training& t, int workers);
std::unique_ptr<SyncRule> make_parameter_server_rule(Training& t, const JobSpec& job, int workers, int shards);

}  // namespace dtsim::learn
