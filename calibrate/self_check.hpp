// Calibrate checks itself (issue #47): once the cpu profile is written, every rank runs a small
// job for real through dtsim-real's launcher on the same world, rank 0 simulates the same Plan
// with the new profile, and the iteration-time error is printed and recorded in the profile
// (`self_check`). `dtsim validate` with a profile whose self-check failed says so first.
//
// The job (self_check_scenario): ring AllReduce data parallelism over the calibrated ranks (the
// hosts as nodes), a synthetic 4M-parameter model of 4 layers at 5 MFLOP a sample and 8 samples a
// rank, 4 MB buckets after backward, 30 iterations after 3 of warm-up, compute scale 1: the shape
// of bench/validation/ring_2_16MB.yaml, the suite's first row, on however many ranks calibrate ran.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "core/calibration/calibration.hpp"
#include "real/host_comm.hpp"

namespace dtsim::calib {

// The job's scenario for `ranks` ranks on `hosts` hosts (ranks a multiple of hosts), as YAML.
std::string self_check_scenario(int ranks, int hosts);

// Runs the job on every rank of `world` (collective) and, on rank 0, simulates it with the profile at
// `profile_path` on the analytical engine. Rank 0 gets the result (printed to `out`); the others,
// and a world whose ranks do not divide evenly over its hosts, nullopt. A real run that fails its
// checks throws RuntimeError.
std::optional<SelfCheck> run_self_check(const std::string& profile_path, real::HostComm& world, std::ostream& out);

}  // namespace dtsim::calib
