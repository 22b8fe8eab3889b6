// `dtsim calibrate`'s run: the suite's microbenchmarks in passes on every rank, the fit on rank 0,
// the profile written, then the self-check (calibrate.hpp). Apart from calibrate.cpp's fitting and
// printing, which the GPU bundle's probe links without the simulator the self-check needs.
#include <algorithm>
#include <chrono>
#include <ostream>

#include <fmt/format.h>

#include "calibrate/bench_suite.hpp"
#include "calibrate/bench_util.hpp"
#include "calibrate/calibrate.hpp"
#include "calibrate/from_trace.hpp"
#include "calibrate/self_check.hpp"
#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "core/calibration/profile_writer.hpp"

namespace dtsim::calib {
namespace {

// Passes over every size: a burst of load from another process hits one pass of a size, and the
// median over passes leaves it out (one long pass turned a 4 MB AllReduce into 4.3 ms here).
constexpr int kPasses = 3;

// Per size, the median over passes (every pass measures the same sizes in the same order).
std::vector<Sample> median_of_passes(const std::vector<std::vector<Sample>>& passes) {
  std::vector<Sample> out = passes.front();
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<double> t;
    for (const auto& p : passes) t.push_back(p.at(i).seconds);
    out[i].seconds = median(t);
  }
  return out;
}

std::vector<CollectiveSample> median_of_passes(const std::vector<std::vector<CollectiveSample>>& passes) {
  std::vector<CollectiveSample> out = passes.front();
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<double> t;
    for (const auto& p : passes) t.push_back(p.at(i).seconds);
    CollectiveSample& c = out[i];
    const double factor = c.busbw / c.algbw;
    c.seconds = median(t);
    c.algbw = c.bytes / c.seconds;
    c.busbw = c.algbw * factor;
  }
  return out;
}

}  // namespace

int calibrate(const CalibrateOptions& o, real::HostComm& world, std::ostream& out) {
  const bool cuda = o.backend == Backend::Cuda;
  if (!cuda && world.mpi() == MPI_COMM_NULL) throw RuntimeError("dtsim calibrate --backend cpu runs under MPI only");
  // cuda: a device per rank first (exit 3 without one, whatever the rank count).
  const std::unique_ptr<BenchSuite> suite = cuda ? make_cuda_bench(world) : make_cpu_bench(world.mpi());
  if (!cuda && world.size() < 2) {
    throw InputError(fmt::format(
        "dtsim calibrate needs at least 2 ranks to measure links: run it under mpirun, e.g. mpirun -np 2 {}dtsim "
        "calibrate --backend {} --out profile.yaml",
        cuda ? "" : "--oversubscribe ", backend_name(o.backend)));
  }
  const BenchOptions bench{o.quick, o.quick ? 0.002 : 0.02, o.quick ? 50 : 500};
  const auto t0 = std::chrono::steady_clock::now();
  const bool first = world.rank() == 0;
  const auto say = [&](const std::string& what) {
    if (first)
      out << fmt::format("[{:6.1f} s] {}\n",
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), what)
          << std::flush;
  };
  Measurements m;
  const int hosts = world.hosts();
  if (!suite->device().empty()) say(fmt::format("{} backend, rank 0 on {}", backend_name(o.backend), suite->device()));
  if (world.size() == 1) {
    say("one GPU: no link to measure, and the collectives are single-rank (NCCL on one device); the profile's "
        "links stay the scenario's. Calibrate on a node of several GPUs for links");
  } else {
    say(fmt::format("exchanges per link class ({}{})", world.started(),
                    world.mpi() == MPI_COMM_NULL ? ", threads of one process" : ""));
  }
  m.exchange = suite->exchange(bench);
  BenchOptions pass = bench;
  pass.min_seconds /= kPasses;
  pass.max_repeats = std::max(3, bench.max_repeats / kPasses);
  std::vector<std::map<std::string, std::vector<Sample>>> gemm;
  std::vector<std::vector<Sample>> memory, buffer, push, sgd_in_cache, rounds_in_cache;
  // The smallest over ranks, so that every rank measures the same sizes.
  double llc_bytes = cuda ? 0.0 : last_level_cache_bytes();
  if (!cuda) MPI_Allreduce(MPI_IN_PLACE, &llc_bytes, 1, MPI_DOUBLE, MPI_MIN, world.mpi());
  std::vector<std::vector<CollectiveSample>> collectives;
  for (int i = 0; i < kPasses; ++i) {
    say(fmt::format("pass {} of {}: GEMMs on every rank at once", i + 1, kPasses));
    gemm.push_back(suite->gemm(pass));
    say("memory (SGD step)");
    memory.push_back(suite->memory(pass));
    say("collective buffers (fill and check)");
    buffer.push_back(suite->collective_buffer(pass));
    say("push buffers (fill)");
    push.push_back(suite->push_buffer(pass));
    if (llc_bytes > 0) {
      say("the SGD step and ring AllReduces with the data in cache");
      InCacheSamples c = suite->in_cache(pass, llc_bytes);
      sgd_in_cache.push_back(std::move(c.sgd_step));
      rounds_in_cache.push_back(std::move(c.rounds));
    }
    if (world.size() > 1) {  // one rank: NCCL returns at once (1.3 us at every size on an H200), nothing to fit
      say(cuda ? "NCCL AllReduce, ReduceScatter, AllGather" : "ring AllReduce, ReduceScatter, AllGather");
      collectives.push_back(suite->collectives(pass));
    }
  }
  for (const auto& [dtype, samples] : gemm.front()) {
    std::vector<std::vector<Sample>> passes;
    for (const auto& g : gemm) passes.push_back(g.at(dtype));
    m.gemm[dtype] = median_of_passes(passes);
  }
  m.memory = median_of_passes(memory);
  m.collective_buffer = median_of_passes(buffer);
  m.push_buffer = median_of_passes(push);
  if (!sgd_in_cache.empty()) {
    m.in_cache = InCacheSamples{median_of_passes(sgd_in_cache), median_of_passes(rounds_in_cache)};
  }
  if (first && !collectives.empty()) m.collectives = median_of_passes(collectives);
  if (world.size() > 1) {
    say("contention: a GEMM op and an AllReduce alone, each beside the other, and together");
    m.contention = suite->contention(bench);
  }
  say("compression kernels");
  m.compression = suite->compression(bench);
  // Rank 0 fits and writes the profile; the others wait for its word (0: it failed, and throws).
  CalibrationProfile p;
  std::byte written{0};
  if (first) {
    MachineInfo machine = this_machine(o.backend, world.size(), hosts, o.quick);
    machine.llc_bytes = llc_bytes;
    machine.device = suite->device();
    FitCeilings ceilings;
    if (!cuda) ceilings.compute_peak["fp32"] = cpu_compute_peak(machine.cores / std::max(1, world.size() / hosts));
    if (cuda) ceilings = device_ceilings(zoo_device_of(machine.device));
    try {
      p = fit_profile(machine, std::move(m), ceilings);
      say("fitted");
      print_profile(out, p);
      write_file_atomic(o.out, profile_yaml(p));
      written = std::byte{1};
    } catch (...) {
      world.broadcast(std::span<std::byte>(&written, 1), 0);
      throw;
    }
  }
  world.broadcast(std::span<std::byte>(&written, 1), 0);
  if (written == std::byte{0}) return 0;
  // The profile predicts a small job of these ranks, run for real here (calibrate/self_check.hpp).
  const std::string zoo = cuda ? zoo_device_of(suite->device()) : "";
  if (cuda && zoo.empty()) {
    say(fmt::format("self-check: not run (the zoo has no device {}; cluster.device names it)", suite->device()));
  } else if (cuda || world.mpi() != MPI_COMM_NULL) {
    say(cuda ? "self-check: a small GPT job run for real on these GPUs, and simulated with the profile"
             : "self-check: a small ring AllReduce job run for real on these ranks, and simulated with the profile");
    if (std::optional<SelfCheck> c = run_self_check(o.out, world, out, o.backend, zoo)) {
      p.self_check = std::move(c);
      write_file_atomic(o.out, profile_yaml(p));
    }
  }
  if (first) out << fmt::format("\nwrote {}\n", o.out);
  return 0;
}

}  // namespace dtsim::calib
