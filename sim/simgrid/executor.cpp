// Running a Plan on SimGrid: engine, explicit network model, platform, actors, run.
#include "sim/simgrid/executor.hpp"

#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>

#include <chrono>
#include <fstream>

#include "core/base/error.hpp"
#include "models/cost/cost_model.hpp"
#include "sim/simgrid/replay.hpp"

namespace dtsim::sg {
namespace {

long max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  long n = 65530;  // the Linux default
  in >> n;
  return n;
}

// Actors alive at once, at most: one per rank and FIFO stream in use, one per posted op of an iteration.
long concurrent_actors(const Plan& plan) {
  long n = 0;
  for (const auto& r : plan.ranks) {
    bool compute = false, comm = false;
    for (const Op& op : r.ops) {
      compute |= op.stream == Stream::Compute;
      comm |= op.stream == Stream::Comm;
      n += op.stream == Stream::Posted;
    }
    n += compute + comm;
  }
  return n;
}

// SimGrid 3.32's CM02 bounds a flow, when it starts, by the bandwidth its route has at that moment
// and never raises the bound: a flow started while a NIC's bandwidth profile is low keeps the low rate
// after the NIC recovers (measured: 300 B started at 0.5 s on a link at 25 B/s until 1 s, then 100 B/s,
// ended at 12.5 s instead of 3.875 s). Under RDMA the bound only repeats the links' capacities, which
// the solver enforces anyway, so on every bandwidth change the flows in progress lose it (3.875 s).
void lift_bounds_on_bandwidth_changes(simgrid::s4u::Engine& engine) {
  auto* model = dynamic_cast<simgrid::kernel::resource::Model*>(engine.get_netzone_root()->get_network_model());
  if (model == nullptr) throw RuntimeError("simgrid engine: no network model to apply NIC bandwidth profiles to");
  simgrid::s4u::Link::on_bandwidth_change_cb([model](const simgrid::s4u::Link&) {
    for (auto& action : *model->get_started_action_set()) {
      action.set_user_bound(-1);
      action.set_bound(-1);
    }
  });
}

}  // namespace

RunInfo SimGridExecutor::run(const Plan& plan, Observer& observer) {
  int argc = 1;
  char arg0[] = "dtsim";
  char* argv[] = {arg0, nullptr};
  simgrid::s4u::Engine engine(&argc, argv);
  configure_engine(engine, cluster_);
  // Actors are shallow (the tests pass with 16 KiB stacks and guard pages): 32 KiB stacks keep
  // 10^4-10^5 of them cheap. A guard page below each stack turns an overflow into a crash, but
  // costs a memory mapping per actor; above what the kernel allows (vm.max_map_count) we go without.
  simgrid::s4u::Engine::set_config("contexts/stack-size:32");
  if (2 * concurrent_actors(plan) + 10000 > max_map_count()) simgrid::s4u::Engine::set_config("contexts/guard-size:0");
  const auto p0 = std::chrono::steady_clock::now();
  const Platform platform = build_platform(cluster_, plan);
  stats_.platform_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
  if (!cluster_.nic_profile.times.empty()) lift_bounds_on_bandwidth_changes(engine);
  Replay replay(cluster_, plan, platform, observer, options_, stats_);
  const auto t0 = std::chrono::steady_clock::now();
  replay.start();
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!replay.complete())
    throw RuntimeError("simgrid engine: the plan deadlocked (an unmatched collective or send/recv)");
  return RunInfo{std::string(engine_name(Engine::SimGrid)), std::string(fidelity_name(options_.fidelity)), wall,
                 cost::CostModel(cluster_, plan).composite_timings()};
}

}  // namespace dtsim::sg
