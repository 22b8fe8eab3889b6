// Runs dtsim-real (or another binary) under mpirun as a user would, and reads its outputs.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "run_process.hpp"

namespace dtsim::test {

// `mpirun -np N BINARY ARGS` from the source folder, allowed as root and oversubscribed (CI has
// two cores); BINARY is a name in build/bin.
inline ProcessResult run_mpi(int np, const std::string& binary, const std::string& args, const std::string& tag) {
  return run_shell("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 '" + std::string(DTSIM_MPIEXEC) +
                       "' --oversubscribe -np " + std::to_string(np) + " '" + DTSIM_BINARY_DIR + "/bin/" + binary +
                       "' " + args,
                   "mpi-" + tag);
}

// dtsim-real on a scenario with --out in a fresh folder; metrics.json parsed (null on failure).
struct RealRun {
  ProcessResult process;
  nlohmann::json metrics;
  std::string out;
};

inline RealRun run_real(int np, const std::string& args, const std::string& tag) {
  RealRun r;
  r.out = temp_dir("real-" + tag);
  r.process = run_mpi(np, "dtsim-real", args + " --quiet --out '" + r.out + "'", tag);
  const std::string text = slurp(r.out + "/metrics.json");
  if (!text.empty()) r.metrics = nlohmann::json::parse(text);
  return r;
}

}  // namespace dtsim::test
