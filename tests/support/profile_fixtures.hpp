// Scenarios and helpers shared by the speed-profile, NIC-profile, device-mix and dynamic-batch
// tests of both engines: a small synthetic job on four one-GPU nodes where nothing shares a link.
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/run/observer.hpp"
#include "core/scenario/loader.hpp"
#include "sim/analytical/engine.hpp"

namespace dtsim::test {

// No latency anywhere, so that a transfer's time is its bytes over the bandwidth it gets; a ring AllReduce, whose
// closed form the tests hold both engines to.
inline const char* const kProfileJob = R"(name: profiles
model:
  name: synthetic
  synthetic: {params: 5e7, flops_per_sample: 20GFLOP, layers: 8}
  batch_per_worker: 16
cluster:
  nodes: 4
  device: a100_80gb
  nic: {rate: 25Gbps, latency: 0us}
  topology: {switch_latency: 0us}
strategy:
  allreduce: {algorithm: ring, bucket_size: 500MB, overlap: false}
run: {iterations: 3, warmup: 0}
)";

// A file with `text` in the test's temporary folder; returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("dtsim_profile_test_" + name);
  std::ofstream(path) << text;
  return path.string();
}

struct Run {
  Plan plan;
  std::vector<OpRecord> records;
};

inline Run run_records(const Scenario& s) {
  Run r{compile_plan(s), {}};
  Recorder rec;
  analytical::AnalyticalExecutor(s.cluster).run(r.plan, rec);
  r.records = rec.records();
  return r;
}

inline double end_of_run(const std::vector<OpRecord>& records) {
  double end = 0;
  for (const auto& r : records) end = std::max(end, r.end);
  return end;
}

// Seconds of ops of `phase` (or of forward and backward when `fwd_bwd`) per (rank, iteration).
inline std::map<std::pair<int, int>, double> busy(const Run& run, bool fwd_bwd) {
  std::map<std::pair<int, int>, double> out;
  for (const auto& r : run.records) {
    const Phase p = run.plan.ranks[r.rank].ops[r.op].phase;
    const bool counted = fwd_bwd ? (p == Phase::Forward || p == Phase::Backward) : p == Phase::Communication;
    if (counted) out[{r.rank, r.iteration}] += r.end - r.start;
  }
  return out;
}

// The first record of a communication op of `rank` in `iteration`.
inline OpRecord first_comm(const Run& run, int rank, int iteration) {
  for (const auto& r : run.records) {
    if (r.rank == rank && r.iteration == iteration && run.plan.ranks[r.rank].ops[r.op].phase == Phase::Communication) {
      return r;
    }
  }
  return OpRecord{};
}

// The flapping profile's closed form, written independently of core/base/profile.cpp: full rate for
// duty x period, then `factor`, every period. W(t) is the full-rate work done by t; the transfer
// of `work` full-rate seconds started at t0 ends at W^-1(W(t0) + work).
inline double flapping_work(double t, double period, double duty, double factor) {
  const double whole = std::floor(t / period);
  const double x = t - whole * period;
  const double in_period = x <= duty * period ? x : duty * period + (x - duty * period) * factor;
  return whole * period * (duty + (1 - duty) * factor) + in_period;
}
inline double flapping_end(double t0, double work, double period, double duty, double factor) {
  const double target = flapping_work(t0, period, duty, factor) + work;
  const double per_period = period * (duty + (1 - duty) * factor);
  const double whole = std::floor(target / per_period);
  const double r = target - whole * per_period;
  const double x = r <= duty * period ? r : duty * period + (r - duty * period) / factor;
  return whole * period + x;
}

// With the full-rate window shifted to start at `offset` (as the inline spec's offset=).
inline double flapping_end(double t0, double work, double period, double duty, double factor, double offset) {
  return flapping_end(t0 - offset + period, work, period, duty, factor) + offset - period;
}

}  // namespace dtsim::test
