// `dtsim calibrate` (under mpirun, or for cuda without one: a thread per GPU of this node;
// microbenchmarks, fits, profile.yaml) and `dtsim validate` (a real run against a simulated one
// with a profile). Both need the MPI build (calibrate/).
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/base/error.hpp"

#ifdef DTSIM_WITH_CALIBRATE
#include "calibrate/calibrate.hpp"
#include "calibrate/from_trace.hpp"
#include "calibrate/validate.hpp"
#include "real/executor.hpp"
#include "real/launch.hpp"
#include "real/mpi_host_comm.hpp"
#include "real/mpi_world.hpp"
#include "real/thread_team.hpp"
#endif

namespace dtsim::cli {

#ifdef DTSIM_WITH_CALIBRATE

namespace {

// --backend cuda without an MPI launcher: one process, a thread per GPU. Bad input goes on to
// main (exit 2); a missing GPU is exit 3, as under mpirun.
int calibrate_threads(const CalibrateCliOptions& o) {
  try {
    const int gpus = real::gpus_to_drive(o.gpus);
    return real::run_team(gpus, [&](real::HostComm& comm) {
      return calib::calibrate(calib::CalibrateOptions{o.backend, o.out, o.quick}, comm, std::cout);
    });
  } catch (const real::BackendUnavailable& e) {
    std::cerr << "dtsim: error: " << e.what() << "\n";
    return 3;
  }
}

}  // namespace

int calibrate_command(const CalibrateCliOptions& o, int& argc, char**& argv) {
  if (!o.from_trace.empty()) {
    if (o.gpus != 0 || o.quick)
      throw InputError("--from-trace fits traces: --gpus and --quick measure, and do not go with it");
    return calib::calibrate_from_trace(calib::FromTraceOptions{o.from_trace, o.out, o.device}, std::cout);
  }
  if (!o.device.empty()) throw InputError("--device: only with --from-trace (measuring finds its device itself)");
  const bool launched = real::launched_by_mpi();
  if (o.backend == Backend::Cuda && !launched) return calibrate_threads(o);
  if (o.gpus != 0) {
    throw InputError(fmt::format("--gpus: {}; --gpus is for --backend cuda without mpirun",
                                 launched ? "under mpirun each rank drives one GPU (its index on its host)"
                                          : "--backend cpu runs its ranks under mpirun (mpirun -np N ...)"));
  }
  std::optional<real::MpiWorld> world;
  try {
    world.emplace(argc, argv);
  } catch (const std::exception& e) {
    throw RuntimeError(e.what());
  }
  const bool first = world->rank() == 0;
  try {
    real::MpiHostComm comm(MPI_COMM_WORLD);
    return calib::calibrate(calib::CalibrateOptions{o.backend, o.out, o.quick}, comm, std::cout);
  } catch (const InputError& e) {
    if (first) std::cerr << e.what() << "\n";
    return 2;
  } catch (const real::BackendUnavailable& e) {
    if (first) std::cerr << "dtsim: error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "dtsim calibrate: rank " << world->rank() << ": error: " << e.what() << "\n";
    if (world->size() > 1) world->abort(1);
    return 1;
  }
}

int validate_command(const ValidateCliOptions& o) {
  calib::ValidateOptions v;
  v.scenario = o.scenario;
  v.sets = o.sets;
  v.calibration = o.calibration;
  v.backend = o.backend;
  v.engine = o.engine;
  v.mpirun = o.mpirun;
  v.compute_scale = o.compute_scale;
  v.out = o.out;
  v.json = o.json;
  v.repeats = o.repeats;
  return calib::validate(v, std::cout);
}

#else

int calibrate_command(const CalibrateCliOptions&, int&, char**&) {
  std::cerr << "dtsim: error: this dtsim was built without MPI, so without calibration (install libopenmpi-dev and "
               "rebuild)\n";
  return 3;
}

int validate_command(const ValidateCliOptions&) {
  std::cerr << "dtsim: error: this dtsim was built without MPI, so without validation (install libopenmpi-dev and "
               "rebuild)\n";
  return 3;
}

#endif

}  // namespace dtsim::cli
