// Running a Plan on SimGrid: engine, explicit network model, platform, actors, run.
#include "sim/simgrid/executor.hpp"

#include <chrono>

#include "models/error.hpp"
#include "sim/simgrid/replay.hpp"

namespace dtsim::sg {

RunInfo SimGridExecutor::run(const Plan& plan, Observer& observer) {
  int argc = 1;
  char arg0[] = "dtsim";
  char* argv[] = {arg0, nullptr};
  simgrid::s4u::Engine engine(&argc, argv);
  configure_engine(engine, cluster_);
  // Actors are shallow: small stacks keep 10^4-10^5 of them cheap.
  simgrid::s4u::Engine::set_config("contexts/stack-size:128");
  simgrid::s4u::Engine::set_config("contexts/guard-size:0");
  const Platform platform = build_platform(cluster_, plan);
  Replay replay(cluster_, plan, platform, observer, options_, stats_);
  const auto t0 = std::chrono::steady_clock::now();
  replay.start();
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!replay.complete()) throw RuntimeError("simgrid engine: the plan deadlocked (an unmatched collective or send/recv)");
  return RunInfo{"simgrid", std::string(fidelity_name(options_.fidelity)), wall};
}

}  // namespace dtsim::sg
