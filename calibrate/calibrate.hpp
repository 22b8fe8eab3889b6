// `dtsim calibrate`: runs the microbenchmarks on every rank (under mpirun), fits the profile on
// rank 0, prints what was measured (collectives like nccl-tests) and writes profile.yaml.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/fit_checks.hpp"
#include "calibrate/microbench.hpp"
#include "core/calibration/calibration.hpp"
#include "real/host_comm.hpp"

namespace dtsim::calib {

struct CalibrateOptions {
  Backend backend = Backend::Cpu;  // cpu, or cuda (one GPU per rank)
  std::string out = "profile.yaml";
  bool quick = false;
};

// What the microbenchmarks measured, before fitting.
struct Measurements {
  std::map<std::string, std::vector<Sample>> exchange;  // by link class
  std::map<std::string, std::vector<Sample>> gemm;      // by dtype (cpu: fp32 only)
  std::vector<Sample> memory;
  std::vector<Sample> collective_buffer;  // dtsim-real's fill and check around a collective
  std::vector<Sample> push_buffer;        // dtsim-real's fill before a worker's push
  InCacheSamples in_cache;                // the same with the data in the last-level cache (cpu)
  std::map<std::string, std::vector<Sample>> compression;
  std::vector<CollectiveSample> collectives;
  std::optional<ContentionSample> contention;
};

// Fits every quantity (links: up to 4 segments by message size; compute, memory and compression:
// up to 3 by size, per dtype or kernel), checks every fit (check_fits: refused curves are left out,
// each verdict kept in p.fit_checks) and predicts each measured collective with the fitted
// same_host link. The same for both backends.
CalibrationProfile fit_profile(const MachineInfo& machine, Measurements m, const FitCeilings& ceilings = {});

// Each collective sample's closed form with the profile's same_host link (`predicted`, on one host: its
// algorithm over its ranks); left 0 without that link or for a kind the algorithm does not run.
void predict_collectives(CalibrationProfile& p);

// The rounds of the ring AllReduces among `collectives` (of 2 ranks or more), which fit a link: a
// round of S / n bytes each way takes time / (2 (n - 1)). For calibrate (one host's ranks) and
// --from-trace (a node's GPUs).
std::vector<Sample> allreduce_rounds(const std::vector<CollectiveSample>& collectives);

// The contention measurement's table: each of the five medians with its spread over rounds, the
// fitted rates, and B (both together) as each model predicts it from G and C alone (both_at_once).
void print_contention(std::ostream& out, const ContentionSample& s);

// This machine as MachineInfo (hostname, /proc/cpuinfo's model name, cores, the time now in UTC).
// calibrate() adds the last-level cache its ranks measured with (llc_bytes: the smallest over ranks).
MachineInfo this_machine(Backend backend, int ranks, int hosts, bool quick);

// Runs on every rank (MPI processes; or, for cuda, the threads of one process, one per GPU); rank 0
// prints the tables to `out` and writes the profile. Returns the exit code. Throws InputError for
// an unknown backend or, on cpu, fewer than 2 ranks; real::BackendUnavailable for --backend cuda
// without a device per rank or in a dtsim built without CUDA. One GPU measures no link: its
// collectives are single-rank, and the profile's links stay the scenario's.
int calibrate(const CalibrateOptions& o, real::HostComm& world, std::ostream& out);

// The profile's tables (links, compute, memory, compression, collectives), as calibrate prints them, the
// verdict of each fit (a line per curve) and the measured AllReduce curve as a scenario key (measured_busbw_key).
void print_profile(std::ostream& out, const CalibrationProfile& p);

// The AllReduce bus bandwidth the profile measured over the ranks of one host, as a
// cluster.intra_node.collective_busbw value ("1048576B:36.2GB/s,...": each size once, by size, its median where
// passes repeat it), for a scenario that describes the cluster without the profile (a measured curve overrides
// NCCL's model there: docs/engines.md); "" where the profile measured none (several hosts, or one rank).
std::string measured_busbw_key(const CalibrationProfile& p);

}  // namespace dtsim::calib
