// Runs the cuda microbenchmarks of `dtsim calibrate --backend cuda` in --quick mode (under mpirun,
// one GPU per rank, or without a launcher a thread per visible GPU; one rank is enough) and checks what they measured:
// positive times, GEMM throughput growing with op size then holding (no collapse at the largest ops), memory bandwidth
// growing with size, nccl-tests' busbw formula, the compression kernels by the cpu path's names, and the profile fitted
// from them read back by load_calibration_profile(path, Backend::Cuda). Prints "<n> checks, <f> failed" on rank 0; exit
// 0, 1 on a failure, 3 without a device (with the reason on one line).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "calibrate/bench_suite.hpp"
#include "calibrate/bench_util.hpp"
#include "calibrate/calibrate.hpp"
#include "calibrate/fit.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/calibration/profile_writer.hpp"
#include "real/executor.hpp"
#include "real/launch.hpp"
#include "real/mpi_host_comm.hpp"
#include "real/thread_team.hpp"

using namespace dtsim;
using namespace dtsim::calib;

namespace {

int checks = 0, failed = 0;

void expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failed;
    std::printf("FAILED: %s\n", what.c_str());
  }
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-4 * std::abs(b); }

void check_curve(const std::string& name, const std::vector<Sample>& s, size_t at_least) {
  expect(s.size() >= at_least, name + ": enough sizes");
  for (size_t i = 0; i < s.size(); ++i) {
    expect(s[i].seconds > 0 && std::isfinite(s[i].seconds), name + ": a positive time");
    if (i > 0) expect(s[i].x > s[i - 1].x, name + ": sizes increase");
  }
}

// Throughput x / t: higher at the largest sizes than at the smallest, and the largest size
// within a factor 2 of the best (the device saturates rather than collapses).
void check_saturates(const std::string& name, const std::vector<Sample>& s) {
  if (s.size() < 3) return;
  double best = 0;
  for (const Sample& p : s) best = std::max(best, p.x / p.seconds);
  const double first = s.front().x / s.front().seconds, last = s.back().x / s.back().seconds;
  expect(last > first, name + ": throughput grows with size");
  expect(last >= 0.5 * best, name + ": throughput holds at the largest size");
}

void check_measurements(const Measurements& m, int ranks) {
  for (const char* dtype : {"fp32", "tf32", "fp16", "bf16"}) {
    const auto it = m.gemm.find(dtype);
    expect(it != m.gemm.end(), std::string("gemm: a curve for ") + dtype);
    if (it == m.gemm.end()) continue;
    check_curve(std::string("gemm ") + dtype, it->second, 5);
    check_saturates(std::string("gemm ") + dtype, it->second);
  }
  check_curve("memory", m.memory, 4);
  check_saturates("memory", m.memory);
  check_curve("collective_buffer", m.collective_buffer, 4);
  for (const char* kernel : {"topk", "int8", "sign", "fp16", "bf16"}) {
    const auto it = m.compression.find(kernel);
    expect(it != m.compression.end(), std::string("compression: ") + kernel);
    if (it != m.compression.end()) check_curve(std::string("compression ") + kernel, it->second, 3);
  }
  expect(m.collectives.size() >= 5, "collectives: measured");
  for (const CollectiveSample& c : m.collectives) {
    expect(c.seconds > 0 && c.ranks == ranks, c.kind + ": a positive time on every rank");
    expect(near(c.algbw, c.bytes / c.seconds), c.kind + ": algbw = S / t");
    expect(near(c.busbw, c.algbw * busbw_factor(c.kind, ranks)) || (ranks == 1 && c.busbw == 0),
           c.kind + ": busbw = algbw times the kind's factor");
  }
  if (ranks > 1) expect(m.exchange.count(kSameHost) || m.exchange.count(kCrossHost), "exchange: a link class");
}

void check_contention(const Measurements& m) {
  expect(m.contention.has_value(), "contention: measured");
  if (!m.contention) return;
  const ContentionSample& c = *m.contention;
  expect(c.gemm_flops >= 1e9 && c.collective_bytes > 60e6, "contention: a GEMM op of 1 GFLOP or more, 64 MB AllReduce");
  bool positive = true;
  for (const auto* v : {&c.gemm_alone, &c.collective_alone, &c.gemm_under_comm, &c.collective_under_gemm, &c.both}) {
    positive = positive && v->size() == 5 && std::all_of(v->begin(), v->end(), [](double t) { return t > 0; });
  }
  expect(positive, "contention: 5 rounds of positive times in each list");
  // Both together end no sooner than the longer of the two alone (within the rounds' noise).
  expect(median(c.both) >= 0.9 * std::max(median(c.gemm_alone), median(c.collective_alone)),
         "contention: both together no faster than the longer alone");
  const ContentionFit f = fit_contention(c);
  std::printf(
      "contention: GEMM op %.3f ms alone, %.3f ms beside AllReduces (keeps %.2f); AllReduce %.3f ms alone, "
      "%.3f ms beside GEMMs (keeps %.2f); both %.3f ms\n",
      median(c.gemm_alone) * 1e3, median(c.gemm_under_comm) * 1e3, f.compute_kept, median(c.collective_alone) * 1e3,
      median(c.collective_under_gemm) * 1e3, f.comm_kept, median(c.both) * 1e3);
}

void check_round_trip(const CalibrationProfile& p, const std::string& path) {
  std::ofstream(path) << profile_yaml(p);
  const auto q = load_calibration_profile(path, Backend::Cuda);
  expect(q->machine.backend == Backend::Cuda && q->machine.device == p.machine.device, "profile: backend and device");
  for (const auto& [dtype, c] : p.compute) {
    const auto it = q->compute.find(dtype);
    expect(it != q->compute.end() && it->second.fit.segments.size() == c.fit.segments.size(),
           "profile: compute " + dtype + " read back");
    if (it == q->compute.end()) continue;
    for (double f : {1e5, 1e7, 1e9}) expect(near(it->second.fit.time(f), c.fit.time(f)), "profile: compute " + dtype);
    const double e = efficiency(c.fit, 1e9);
    expect(e > 0 && e <= 1, "compute " + dtype + ": efficiency in (0, 1]");
  }
  expect(q->compression.size() == p.compression.size(), "profile: compression kernels read back");
  // The memory curves the fit checks kept: --quick's small sizes can leave one refused (the collective buffer's
  // copies below their streaming rate gave a slope twice the best sample on an H200, 2026-11-30), and a refused
  // curve is left out of the profile, never written.
  expect(q->memory.size() == p.memory.size(), "profile: memory curves read back");
  for (const char* curve : {"sgd_step", kCollectiveBuffer}) {
    const bool refused = std::any_of(p.fit_checks.begin(), p.fit_checks.end(), [&](const FitCheck& c) {
      return c.group == "memory" && c.name == curve && c.verdict == FitVerdict::Refused;
    });
    expect(q->memory.count(curve) == (refused ? 0u : 1u),
           std::string("profile: memory ") + curve + (refused ? " refused and left out" : " kept"));
  }
  expect(q->collectives.size() == p.collectives.size(), "profile: collectives read back");
  expect(q->links.size() == p.links.size(), "profile: links read back (none from one GPU)");
  expect(q->contention.has_value() == p.contention.has_value() &&
             (!p.contention || q->contention->both.size() == p.contention->both.size()),
         "profile: contention read back");
}

// The measurements and checks on every rank of `world`; rank 0 reports.
int probe(real::HostComm& world, const std::string& path) {
  const int rank = world.rank(), size = world.size();
  int code = 0;
  try {
    const std::unique_ptr<BenchSuite> suite = make_cuda_bench(world);
    const BenchOptions o{true, 0.002, 50};
    Measurements m;
    m.gemm = suite->gemm(o);
    m.memory = suite->memory(o);
    m.collective_buffer = suite->collective_buffer(o);
    m.exchange = suite->exchange(o);
    m.collectives = suite->collectives(o);
    m.compression = suite->compression(o);
    // Contention: calibrate measures it with 2 GPUs or more; here on any count, so that one GPU
    // runs its code (its single-rank AllReduce is a copy NCCL makes without taking SMs).
    m.contention = suite->contention(o);
    if (rank == 0) {
      check_measurements(m, size);
      check_contention(m);
      MachineInfo machine = this_machine(Backend::Cuda, size, world.hosts(), true);
      machine.device = suite->device();
      // One rank measures no link: its profile has none, and reads back so.
      check_round_trip(fit_profile(machine, m), path);
      std::printf("%d checks, %d failed\n", checks, failed);
      code = failed ? 1 : 0;
    }
  } catch (const real::BackendUnavailable& e) {
    if (rank == 0) std::printf("%s\n", e.what());
    code = 3;
  } catch (const std::exception& e) {
    std::printf("rank %d: error: %s\n", rank, e.what());
    code = 1;
  }
  return code;
}

}  // namespace

// Under mpirun: a rank per process. Without a launcher: a thread per visible GPU.
int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "cuda_profile.yaml";
  if (real::launched_by_mpi()) {
    MPI_Init(&argc, &argv);
    int code = 0;
    {
      real::MpiHostComm world(MPI_COMM_WORLD);
      code = probe(world, path);
    }
    MPI_Finalize();
    return code;
  }
  try {
    return real::run_team(real::gpus_to_drive(0), [&](real::HostComm& world) { return probe(world, path); });
  } catch (const real::BackendUnavailable& e) {
    std::printf("%s\n", e.what());
    return 3;
  }
}
