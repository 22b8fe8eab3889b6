// The dtsim-real launcher's work, rank by rank: load the scenario, build the Plan, check the
// world size, report how ranks map onto hosts and devices, run the backend, and on rank 0 merge
// every rank's records into metrics.json and trace.json.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/plan/plan.hpp"
#include "core/scenario/scenario.hpp"
#include "real/executor.hpp"
#include "real/host_comm.hpp"

namespace dtsim::real {

struct LaunchOptions {
  std::string scenario;
  Backend backend = Backend::Cpu;
  std::string out;  // "" = runs/<scenario name>-real
  std::vector<std::string> sets;
  bool mpi_collectives = false;
  std::string compute_scale = "auto";  // a factor, or "auto"
  double comm_scale = 1.0;
  bool trace = true;
  bool quiet = false;  // no per-rank table
  bool shrink = true;  // run a scenario too big for the world shrunk to it, when an exact shrink exists
  int gpus = 0;        // the launcher-free mode's GPUs (0: every visible one)
};

// The GPUs the launcher-free mode drives: `requested`, or every visible GPU for 0. Throws
// BackendUnavailable without a GPU or with fewer than requested, InputError for a negative count.
int gpus_to_drive(int requested);

// Throws InputError at the key of the first thing the backend ("cpu" or "cuda") does not carry out
// yet: a sync policy or compression method its table entry does not give the backend, convergence
// runs, speed profiles, dynamic batches, device mixes, NIC profiles.
void check_supported(const Scenario& s, Backend backend);

// Throws InputError when the world is not the Plan's ranks, e.g.
//   scenario needs 8 ranks (8 workers + 0 servers) but mpirun started 4; use mpirun -np 8, or
//   shrink the scenario to 4 ranks with --set cluster.nodes=1
// (with `threads`, the launcher-free mode: "but --gpus gave 4; use --gpus 8 on a node of 8 GPUs").
void check_world_size(const Plan& plan, int world, const LaunchOptions& o, bool threads = false);

// --set overrides that give the scenario `world` ranks (at most two), e.g. "--set cluster.nodes=1".
std::vector<std::string> world_size_hints(const LaunchOptions& o, int world);

// The first exact shrink of the cluster to `world` ranks as raw overrides ({"cluster.nodes=1"}:
// fewer nodes first, then fewer devices per node, then both); empty when there is none.
std::vector<std::string> shrink_overrides(const LaunchOptions& o, int world);

// The backend's executor of this rank. The cpu backend needs an MPI world (comm.mpi()).
using ExecutorFactory = std::function<std::unique_ptr<RealExecutor>(HostComm& comm, const RealOptions& options)>;
std::unique_ptr<RealExecutor> make_executor(Backend backend, HostComm& comm, const RealOptions& options);

// Runs this rank (a process under mpirun, or a thread of the launcher-free mode); returns the exit
// code (0, or 1 when a correctness check failed). `make` replaces the backend's executor (tests).
int launch(const LaunchOptions& o, HostComm& comm, const ExecutorFactory& make = {});

}  // namespace dtsim::real
