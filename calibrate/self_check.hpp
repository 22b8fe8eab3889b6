// Calibrate checks itself (issue #47): once the profile is written, every rank runs a small job for
// real through dtsim-real's launcher on the same world, rank 0 simulates the same Plan with the new
// profile, and the iteration-time error is printed and recorded in the profile (`self_check`).
// `dtsim validate` with a profile whose self-check failed says so first.
//
// The jobs (self_check_scenario), each the shape of a validation row the backend is known to run:
// - cpu: ring AllReduce data parallelism over the calibrated ranks (the hosts as nodes), a synthetic
//   4M-parameter model of 4 layers at 5 MFLOP a sample and 8 samples a rank, 4 MB buckets after
//   backward, 30 iterations after 3 of warm-up, compute scale 1: bench/validation/ring_2_16MB.yaml's
//   shape, the suite's first row, on however many ranks calibrate ran (2 or more);
// - cuda: scenarios/hybrid_gpt_1gpu.yaml's GPT (hidden 2048, 16 heads, sequence 2048, bf16, Adam)
//   cut to 8 layers, 4 micro-batches of 2 on each GPU, data parallel over the calibrated GPUs (one
//   or more), 5 iterations after 1 of warm-up, on the zoo device the GPU is (zoo_device_of); none
//   when the zoo has no such device.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "core/calibration/calibration.hpp"
#include "real/host_comm.hpp"

namespace dtsim::calib {

// The job's scenario for `ranks` ranks on `hosts` hosts (ranks a multiple of hosts), as YAML: cpu's, or with
// `cuda_device` (a zoo device) cuda's.
std::string self_check_scenario(int ranks, int hosts, const std::string& cuda_device = "");

// Runs the job on every rank of `world` (collective) on `backend` and, on rank 0, simulates it with the
// profile at `profile_path` on the analytical engine. Rank 0 gets the result (printed to `out`); the
// others, a world whose ranks do not divide evenly over its hosts, a cpu world of one rank and a cuda
// device the zoo lacks (`cuda_device` ""), nullopt. A real run that fails its checks throws RuntimeError.
std::optional<SelfCheck> run_self_check(const std::string& profile_path, real::HostComm& world, std::ostream& out,
                                        Backend backend = Backend::Cpu, const std::string& cuda_device = "");

}  // namespace dtsim::calib
