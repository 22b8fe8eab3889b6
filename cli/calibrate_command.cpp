// `dtsim calibrate` (under mpirun: microbenchmarks, fits, profile.yaml) and `dtsim validate`
// (a real run against a simulated one with a profile). Both need the MPI build (calibrate/).
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "core/base/error.hpp"

#ifdef DTSIM_WITH_CALIBRATE
#include "calibrate/calibrate.hpp"
#include "calibrate/validate.hpp"
#include "real/executor.hpp"
#include "real/mpi_world.hpp"
#endif

namespace dtsim::cli {

#ifdef DTSIM_WITH_CALIBRATE

int calibrate_command(const CalibrateCliOptions& o, int& argc, char**& argv) {
  std::optional<real::MpiWorld> world;
  try {
    world.emplace(argc, argv);
  } catch (const std::exception& e) {
    throw RuntimeError(e.what());
  }
  const bool first = world->rank() == 0;
  try {
    return calib::calibrate(calib::CalibrateOptions{o.backend, o.out, o.quick}, *world, std::cout);
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
