// Metrics of a run, computed from the Observer's op records: iteration-time statistics,
// throughput, where the time goes per rank, bytes on the wire. Written as metrics.json.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/faults/faults.hpp"
#include "core/plan/plan.hpp"
#include "core/run/kind_seconds.hpp"
#include "core/run/observer.hpp"
#include "core/run/wait_causes.hpp"

namespace dtsim {

inline constexpr int kMetricsSchemaVersion = 2;

struct Stats {
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, min = 0, max = 0;
};

// Percentiles by linear interpolation between closest ranks (numpy's default).
Stats summarize(std::vector<double> values);

struct RankMetrics {
  int rank = 0;
  Role role = Role::Worker;
  int node = 0;
  double compute_s = 0;       // union of compute-stream busy time, per iteration
  double comm_s = 0;          // union of communication time, per iteration
  double exposed_comm_s = 0;  // communication not hidden under compute, per iteration
  double wait_s = 0;          // the rest of the iteration: idle, waiting for others
  WaitCauses wait_by_cause;   // wait_s by cause, per iteration (failure: job-wide, not per rank)
  double bytes_sent = 0;      // per iteration
  int stage = -1;             // hybrid plans: its pipeline stage (its peak memory is the stage's)
  // exposed_comm_s by what the communication is for (comm_kind): each kind's communication not
  // hidden under compute, per iteration. Kinds running at once are each counted in full, so the
  // sum can exceed exposed_comm_s.
  KindSeconds exposed_by_kind;
};

// What a communication op is for, as metrics name it: its group's kind for a collective ("tensor",
// "context", "expert", "data", "expert_data", "pipeline", "model"), "pipeline" for a hybrid plan's
// sends and receives, "p2p" for other sends and receives (parameter servers), "gossip". A
// composite's collectives (PlanDetail::Blocks) count under their own groups' kinds
// (CompositeTiming::comm_kinds).
std::string_view comm_kind(const Plan& plan, int rank, const OpBody& body);

struct Metrics {
  std::string scenario;
  std::string job;
  RunInfo run;
  int workers = 0;
  int servers = 0;
  int iterations = 0;  // measured (after warm-up)
  int warmup = 0;
  Stats iteration_time;
  double throughput_samples_per_s = 0;
  double compute_fraction = 0;       // mean over workers of compute / iteration time
  double comm_fraction = 0;          // mean over workers of communication / iteration time (may overlap compute)
  double exposed_comm_fraction = 0;  // compute + exposed + wait = 1
  double wait_fraction = 0;
  double bytes_on_wire_per_iteration = 0;
  WaitCauses wait_by_cause;   // mean over workers, per iteration; failure from the fault report
  double updates_per_s = 0;   // model updates applied per second (one per iteration under BSP)
  bool asynchronous = false;  // ASP/SSP: throughput is the sum of the workers' own rates
  // Per-update staleness (ASP/SSP): how many updates other workers applied to a shard between a
  // worker's pull of it and the application of its gradient. Zero under BSP.
  Stats staleness;
  std::vector<long> staleness_histogram;  // [s] = updates with staleness s
  double simulated_time_s = 0;
  std::vector<RankMetrics> ranks;
  // Hybrid jobs: the pipeline bubble (mean over workers of their pipeline waiting / iteration time),
  // and each stage's peak memory per rank against the device's capacity.
  double bubble_fraction = 0;
  KindSeconds exposed_by_kind;  // RankMetrics::exposed_by_kind, mean over workers (seconds)
  std::vector<StageMemory> memory;
  double device_memory = 0;
  double peak_memory() const;         // the largest stage's total, 0 without a memory model
  std::optional<FaultReport> faults;  // when the job's faults.* are set (sim/faults/)
  // In the units of large-model training (JobPlan's FLOPs and peak, core/plan/job_flops.hpp), from the throughput:
  // tokens/s (transformers only) in all and per worker device, and MFU and HFU against the workers' devices' peak
  // (absent for a job whose FLOPs are unknown, Chakra traces).
  std::optional<double> tokens_per_s, tokens_per_s_per_device;
  std::optional<double> mfu, hfu;
  double model_flops_per_sample = 0;  // forward and backward, without recompute (JobPlan's; 0 where unknown)
  double peak_flops = 0;              // the sum of the workers' devices' peaks in model.dtype (FLOP/s; 0 where unknown)
};

// Failures' share of waiting: wall-clock time lost to them (lost work, detection, restart, no
// workers) per useful iteration; 0 without faults.* (set by sim/faults after the fault report).
double failure_wait_per_iteration(const Metrics& m);

class WireBytes;
// Metrics of one job (its own ranks and iterations). A plan with composites needs their timings from
// the engine that ran it (RunInfo::composites). `wire`: the plan's WireBytes, for a caller that
// counts bytes of the same plan too (one cache of flow phases); one of its own when null.
Metrics compute_metrics(const Plan& plan, const std::vector<OpRecord>& records, const RunInfo& info, int job = 0,
                        WireBytes* wire = nullptr);
std::vector<Metrics> compute_job_metrics(const Plan& plan, const std::vector<OpRecord>& records, const RunInfo& info);
nlohmann::json metrics_to_json(const Metrics& m);
// metrics.json: the first job's metrics at the top level (most scenarios have one job) and
// every job's under "jobs".
nlohmann::json run_metrics_json(const std::vector<Metrics>& jobs);
// Bytes one rank puts on the wire for an op: p2p sends their size; collectives what the
// algorithm makes that rank send (its flow phases), cached per collective.
class WireBytes {
 public:
  explicit WireBytes(const Plan& plan) : plan_(plan) {}
  double operator()(int rank, const OpBody& body);
  // Adds what every rank of the collective's group sends for it to by_rank[rank] (by_rank holds every rank of
  // the plan): operator() of each rank, in one pass over the group.
  void add_to_each(const CollectiveOp& c, std::vector<double>& by_rank);

 private:
  // What each position of the group sends for kUnitBytes of the collective's S.
  const std::vector<double>& unit_bytes(const CollectiveOp& c);
  const Plan& plan_;
  static constexpr double kUnitBytes = 1048576.0;
  std::map<int, double> composite_bytes_;  // by composite: its parts' bytes
  std::map<std::tuple<int, CollectiveKind, const CollectiveAlgorithm*>, std::vector<double>> cache_;
};

}  // namespace dtsim
