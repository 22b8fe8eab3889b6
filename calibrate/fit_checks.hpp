// Every fitted curve of a profile checked before `dtsim calibrate` writes it (issue #47: no fitted
// parameter outside its physical bounds, none written silently). Each curve's last segment (the
// largest sizes: the rate the engines extrapolate with) is checked, in this order:
//   1. growth: its time grows with x. A flat one claims an infinite rate: the benchmark did no
//      work (int8's decompress timed a method whose decompress is a server's decode: 1e21 GB/s).
//   2. support: its rate is at most kSupport times the best rate the curve's own samples reached
//      (x / t). A fit may see past its samples' fixed costs, not claim a rate none came near.
//   3. a ceiling where the machine gives one:
//      - compute: the rank's peak (FitCeilings::compute_peak; cpu_compute_peak() on cpu);
//      - compression kernels, which each touch their whole gradient: kStreamSlack times the
//        fastest streaming loop measured (the memory curves' best x / t: caches give a few times
//        that, not orders of magnitude);
//      - the same_host link fitted to ring rounds: kRoundSlack times the best rate of the two-way
//        exchanges on the same host (a round is such an exchange and a reduction);
//      - same_host_p2p: kStreamSlack times the streaming rate (a message between two processes of
//        a host is copied through memory);
//      - the memory curves of a zoo GPU (--from-trace, calibrate --backend cuda): the device's data-sheet
//        memory bandwidth, against their samples past the device's L2 (smaller ones can stay in L2 and
//        stream faster) and the fitted rate (FitCeilings::memory_peak, device_ceilings());
//      - cross_host links and the cpu's measured memory curves themselves: none known here (the NICs'
//        rate is not read; the memory curves are the streaming rate), so 1 and 2 only; the reason says so.
// A curve failing one is refused: removed from the profile, its verdict kept (the model's cost
// stays where it would have applied; a same_host link refused from ring rounds is fitted to the
// host's two-way exchanges instead, with a verdict of its own after the refusal). A curve passing all three with
// residuals past kResidualBound (rms), or fitted to fewer than kMinSizes sizes (a trace's few GEMM shapes: a line
// through 2 points has no residual to show), is marked: kept, as the best measured, with its
// misfit or its thinness stated.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/calibration/calibration.hpp"

namespace dtsim::calib {

inline constexpr double kSupport = 2.0;
inline constexpr double kStreamSlack = 8.0;
inline constexpr double kRoundSlack = 1.5;
// Twice the 10 % a validated prediction is held to (docs/calibration.md): a curve that misses its
// own samples by more cannot carry a prediction to that bound.
inline constexpr double kResidualBound = 0.20;
inline constexpr int kMinSizes = 3;

struct FitCeilings {
  // FLOP/s one rank can reach per dtype, where known (cpu: cpu_compute_peak(); a zoo GPU: device_ceilings()).
  std::map<std::string, double> compute_peak;
  // Bytes/s the memory curves cannot pass (0: none known), for samples of at least memory_past_bytes, and
  // where the figure comes from.
  double memory_peak = 0;
  double memory_past_bytes = 0;
  std::string memory_source;
};

// One rank's fp32 peak on this cpu: cores per rank x its clock x the FLOPs per cycle of its widest
// fused multiply-add (two units: 64 with avx512f, 32 with fma and avx2, 16 otherwise). The clock: the
// larger of 1.5 x the fastest /proc/cpuinfo lists (a boost above it) and 1.25 x cpufreq's
// cpuinfo_max_freq where the kernel has it (/proc/cpuinfo then lists the clock of the moment, low
// at idle). 0 when neither gives a clock.
double cpu_compute_peak(int cores_per_rank);

// Checks every fitted curve of `p` (links, compute, memory, compression), removes the refused ones,
// sets p.fit_checks and returns them. With `measured` (a profile of calibrate's benchmarks, which
// measure all of them), throws RuntimeError, naming the reason, when the fp32 compute curve or the
// sgd_step memory curve is refused, or every link of a profile of 2 or more ranks: a profile without
// them could not be read. A profile fitted to traces needs only some compute curve (its caller checks).
const std::vector<FitCheck>& check_fits(CalibrationProfile& p, const FitCeilings& ceilings, bool measured = true);

// One line per check, as calibrate prints them: verdict, group and name, reason.
std::string fit_check_line(const FitCheck& c);

}  // namespace dtsim::calib
