// dtsim-real: runs a scenario's Plan for real, one process per rank under mpirun or srun (or, for
// --backend cuda without a launcher, one process driving every GPU of the node with a thread per
// GPU), and writes the same metrics.json and trace.json as `dtsim run`. Exit codes: 0 success, 1
// runtime failure (or a correctness check that failed), 2 bad usage or scenario (a wrong world
// size included), 3 the backend cannot run here (no GPU).
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/option_checks.hpp"
#include "core/base/error.hpp"
#include "real/executor.hpp"
#include "real/launch.hpp"
#include "real/mpi_host_comm.hpp"
#include "real/mpi_world.hpp"
#include "real/thread_team.hpp"

namespace {

constexpr const char* kExamples = R"(
Examples:
  mpirun -np 4 --oversubscribe dtsim-real scenarios/quickstart.yaml --backend cpu   (shrunk to 1 node x 4)
  mpirun -np 8 --oversubscribe dtsim-real scenarios/quickstart.yaml --compute-scale 0.001
  mpirun -np 2 dtsim-real my.yaml --mpi-collectives --out runs/mpi
  srun -n 16 --gpus-per-task=1 dtsim-real my.yaml --backend cuda
  dtsim-real scenarios/quickstart.yaml --backend cuda            (no mpirun: every GPU of this node)
  dtsim-real scenarios/quickstart.yaml --backend cuda --gpus 2   (no mpirun: the first 2 GPUs)
)";

// --backend cuda without an MPI launcher: one process, a thread per GPU.
int run_threads(const dtsim::real::LaunchOptions& o) {
  using namespace dtsim;
  try {
    const int gpus = real::gpus_to_drive(o.gpus);
    return real::run_team(gpus, [&](real::HostComm& comm) { return real::launch(o, comm); });
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const real::BackendUnavailable& e) {
    std::cerr << "dtsim-real: error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "dtsim-real: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace dtsim;
  CLI::App app{"dtsim-real: run a scenario's plan for real (CPU ranks over MPI, or GPUs over NCCL)"};
  app.footer(kExamples);
  cli::one_line_usage_errors(app);
  app.set_version_flag("--version", std::string("dtsim-real ") + DTSIM_VERSION);
  real::LaunchOptions o;
  app.add_option("scenario", o.scenario, "Scenario file (YAML)")->required();
  cli::add_backend_option(&app, o.backend, "cpu (MPI + Eigen) or cuda (NCCL + cuBLAS)");
  app.add_option("--out", o.out, "Output folder (default: runs/<scenario name>-real)");
  app.add_option("--set", o.sets, "Override a scenario key: key.path=value (repeatable)");
  app.add_flag("--mpi-collectives", o.mpi_collectives,
               "Use the MPI library's collectives instead of the schedules of models/collectives");
  app.add_option("--compute-scale", o.compute_scale,
                 "Multiply every compute op's FLOPs by this factor, or 'auto' (default): at most 2 GFLOP per rank "
                 "per iteration");
  app.add_option("--comm-scale", o.comm_scale, "Multiply every collective's and transfer's bytes by this factor")
      ->check(cli::finite_number());
  app.add_flag("!--no-trace", o.trace, "Do not write trace.json");
  app.add_flag("--quiet", o.quiet, "Do not print the rank-to-host table");
  app.add_flag("!--no-shrink", o.shrink,
               "Refuse a scenario that needs more ranks than mpirun started (default: run it shrunk to the world "
               "with fewer nodes or devices per node, when that gives exactly the world size, and say so)");
  app.add_option("--gpus", o.gpus,
                 "--backend cuda without mpirun: drive this many GPUs of this node, a thread each (default: all "
                 "visible)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  const bool launched = real::launched_by_mpi();
  if (o.backend == Backend::Cuda && !launched) return run_threads(o);
  if (app.count("--gpus") > 0) {
    std::cerr << fmt::format("dtsim-real: error: --gpus: {}; --gpus is for --backend cuda without mpirun\n",
                             launched ? "under mpirun each rank drives one GPU (its index on its host)"
                                      : "--backend cpu runs its ranks under mpirun (mpirun -np N ...)");
    return 2;
  }

  std::optional<real::MpiWorld> world;
  try {
    world.emplace(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "dtsim-real: error: " << e.what() << "\n";
    return 1;
  }
  const bool first = world->rank() == 0;
  try {
    real::MpiHostComm comm(MPI_COMM_WORLD);
    return real::launch(o, comm);
  } catch (const InputError& e) {
    if (first) std::cerr << e.what() << "\n";
    return 2;
  } catch (const real::BackendUnavailable& e) {
    if (first) std::cerr << "dtsim-real: error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "dtsim-real: rank " << world->rank() << ": error: " << e.what() << "\n";
    if (world->size() > 1) world->abort(1);
    return 1;
  }
}
