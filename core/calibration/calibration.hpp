// A calibration profile: what `dtsim calibrate` measured on a machine (raw samples), the
// parameters fitted to it (piecewise latency/bandwidth per link class, a compute curve per
// dtype, memory bandwidth, compression kernel costs) and the residuals of each fit, with the
// machine and the time. A scenario names one with `cluster.calibration`; the analytical cost
// model and the SimGrid platform builder then take their parameters from it instead of the
// device and cluster zoo figures.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/dtype.hpp"
#include "core/base/executors.hpp"

namespace dtsim {

enum class CodecStage : unsigned char;  // models/compression/compressor.hpp

// time = fixed + x * per_unit for x in [min_x, next segment's min_x). For links x is bytes,
// fixed the latency and 1 / per_unit the bandwidth; for compute x is FLOPs, fixed an overhead
// per op and 1 / per_unit the asymptotic FLOP/s.
struct Segment {
  double min_x = 0;
  double fixed = 0;
  double per_unit = 0;
};

// Segments sorted by min_x, the first starting at 0 (SMPI's smpi/bw-factor and smpi/lat-factor
// are the same idea: corrections by message-size range).
struct PiecewiseLinear {
  std::vector<Segment> segments;

  const Segment& at(double x) const;  // the segment holding x (the first for x below it)
  double time(double x) const { return at(x).fixed + x * at(x).per_unit; }
  bool empty() const { return segments.empty(); }
};

// One measurement: x (bytes or FLOPs) and the seconds it took (the median of repeats).
struct Sample {
  double x = 0;
  double seconds = 0;
};

// How far a fit is from its samples, relative to the measured time.
struct Residuals {
  int points = 0;
  double rms_relative = 0;
  double max_relative = 0;
};

// A fitted quantity with its samples and residuals.
struct FittedCurve {
  PiecewiseLinear fit;
  std::vector<Sample> samples;
  Residuals residuals;
};

// A collective measured like nccl-tests: time, algorithm bandwidth (bytes / time) and bus
// bandwidth (algbw times the kind's factor, e.g. 2 (n-1) / n for AllReduce).
struct CollectiveSample {
  std::string kind;       // "allreduce", ...
  std::string algorithm;  // "ring", ...
  int ranks = 0;
  double bytes = 0;
  double seconds = 0;
  double algbw = 0;
  double busbw = 0;
  double predicted = 0;  // the closed form with the fitted same_host link, seconds
};

// Contention on one device (dtsim calibrate): an op of GEMMs (G seconds alone) and an AllReduce (C
// alone) on every rank, measured five ways in interleaved rounds, so that the machine's drift over
// minutes falls on all five alike: each alone; the GEMM op while AllReduces run back to back beside
// it, and the AllReduce while GEMM ops do; and both started together (B, until both have ended).
// One number per round in each list.
struct ContentionSample {
  double gemm_flops = 0;        // the GEMM op's FLOPs
  double collective_bytes = 0;  // the AllReduce's buffer
  std::vector<double> gemm_alone, collective_alone, gemm_under_comm, collective_under_gemm, both;
};

// What a contention measurement gives the engines: the fraction of its rate compute keeps while
// communication runs beside it (median G alone / median G under communication; the meaning of
// cluster.contention.compute), and the same for communication beside compute. 1, 1 when nothing
// was measured (profiles from before, one rank).
struct ContentionFit {
  double compute_kept = 1;
  double comm_kept = 1;
};
ContentionFit fit_contention(const ContentionSample& s);

// B, a G-second compute op and a C-second transfer started together until both end, as each model
// of contention has it (closed forms; tests/calibrate/contention_forms_test.cpp):
//   none:   max(G, C)                      (each on its own resources)
//   serial: G + C                           (one waits for the other: the cpu backend's cores)
//   compute_slowed(f): the transfer at full rate, compute at f of its rate while it runs:
//           G + C (1 - f) when G >= f C, else C      (both engines' cluster.contention.compute)
//   both_slowed(f, g): compute at f, the transfer at g while both run, each at full rate alone:
//           the first to end ends at t = min(G / f, C / g); the other has what is left at full rate.
double both_none(double g, double c);
double both_serial(double g, double c);
double both_compute_slowed(double g, double c, double f);
double both_both_slowed(double g, double c, double f, double keep_comm);

// B measured (the median of the rounds) and as each model predicts it from the medians of G and C
// alone and the fitted rates: what `dtsim calibrate` prints and the profile keeps.
struct BothAtOnce {
  double measured = 0;
  double none = 0;
  double serial = 0;
  double compute_slowed = 0;
  double both_slowed = 0;
};
BothAtOnce both_at_once(const ContentionSample& s);

struct MachineInfo {
  std::string hostname;
  std::string cpu_model;
  int cores = 0;
  Backend backend = Backend::Cpu;  // what measured it (core/base/executors.hpp)
  std::string device;              // cuda: rank 0's GPU ("cuda:0 NVIDIA H100 80GB HBM3"); empty on cpu
  std::string when;                // ISO 8601, UTC
  int ranks = 0;                   // MPI ranks the measurements ran on
  int hosts = 0;
  std::string dtsim_version;
  bool quick = false;  // measured with --quick (fewer sizes and repeats)
  // The traces the profile was fitted to (`dtsim calibrate --from-trace`), "" when measured here.
  std::string from_trace;
  // Bytes of one host's last-level cache, shared by its ranks (cpu: the L3 the OS reports); 0 when
  // unknown, and on cuda (a GPU's model state never fits its L2): no curve is then taken in cache.
  double llc_bytes = 0;
};

// Link classes: "same_host" (ranks on one host: the node's intra links) and "cross_host"
// (ranks on different hosts: the NICs); a profile holds those it could measure.
inline constexpr const char* kSameHost = "same_host";
inline constexpr const char* kCrossHost = "cross_host";
// Point-to-point transfers between two ranks of one host (a parameter server's pushes and pulls),
// fitted to the two-way exchanges when same_host came from ring rounds with every rank in the ring:
// with more ranks than cores those rounds are far slower than a pair exchanging (a 2 MB message:
// 3.3 ms by the rounds, 0.2 ms exchanged, 4 ranks on 2 cores here). Both engines' sends, receives
// and gossip exchanges between ranks of one host take it (SimGrid: on links of their own).
inline constexpr const char* kSameHostP2p = "same_host_p2p";
// The memory curve of dtsim-real's work around a collective: filling its input buffer and
// checking its output (x = the buffer's bytes), which the cpu executor runs on the comm stream.
inline constexpr const char* kCollectiveBuffer = "collective_buffer";
inline constexpr const char* kPushBuffer = "push_buffer";
// The same loops measured with the rank's data in the last-level cache (calibrate --backend cpu):
// "sgd_step_in_cache" and "same_host_in_cache" (the rounds of ring AllReduces on buffers that stay in
// the L3 between repeats). A 1 MB AllReduce of 2 ranks took 96 to 112 us here with its buffers in
// cache and 190 us with the caches swept; in runs of a 1M-parameter model (12 MB of optimizer traffic
// per rank, both ranks in one 32 MB L3) it took 100 to 140 us, and its 12 MB SGD steps 102 to 160 us
// (190 at the swept rate); a 4M-parameter model's ran at the swept rates. Both engines take them for
// a plan whose ranks' optimizer state fits the host's cache (models/cost/cost_model.hpp: data_in_cache),
// the curves fitted out of cache otherwise. The fill and check around each collective keep the swept
// curve: in those runs they took 51 to 57 and 46 us per 1 MB bucket (timed inside dtsim-real), near
// the swept bench (93 to 133 us both), twice the one in cache (56 us).
inline constexpr std::string_view kInCacheSuffix = "_in_cache";
inline std::string in_cache_curve(std::string_view curve) { return std::string(curve) + std::string(kInCacheSuffix); }

// What `dtsim calibrate` concluded of one fitted curve before writing it (calibrate/fit_checks.hpp
// holds the bounds): kept as it is; kept but marked (its residuals are past the bound, so
// predictions through it carry that error); or refused (a rate no measurement supports or past a
// physical ceiling: the curve is left out, and the model's cost stays where it would have applied).
enum class FitVerdict { Ok, Marked, Refused };
std::string_view fit_verdict_name(FitVerdict v);  // "ok", "marked", "refused"
// The verdict of the name; nullopt for another word.
std::optional<FitVerdict> parse_fit_verdict(std::string_view name);

struct FitCheck {
  std::string group;  // links, compute, memory, compression (the profile's section)
  std::string name;   // the curve: same_host, fp32, sgd_step, int8_decompress, ...
  FitVerdict verdict = FitVerdict::Ok;
  std::string reason;  // one line: the rate, its bound and the residuals
};

// calibrate's check of itself (calibrate/self_check.hpp): a small job of the calibrated ranks run
// for real and simulated with the profile, its iteration time both ways.
inline constexpr double kSelfCheckBoundPct = 10;  // the bound on a validated prediction
struct SelfCheck {
  std::string job;         // what ran, one line
  double measured_s = 0;   // the real run's mean iteration time
  double predicted_s = 0;  // the analytical engine's, with the profile
  double error_pct() const { return measured_s > 0 ? 100.0 * (predicted_s - measured_s) / measured_s : 0.0; }
  bool passed() const {
    return measured_s > 0 && error_pct() <= kSelfCheckBoundPct && error_pct() >= -kSelfCheckBoundPct;
  }
};

struct CalibrationProfile {
  std::string path;  // where it was loaded from
  MachineInfo machine;
  std::map<std::string, FittedCurve> links;    // by link class
  std::map<std::string, FittedCurve> compute;  // by dtype name; x = FLOPs of one op
  // Fused attention kernels (FlashAttention, memory-efficient, cuDNN) by dtype, fitted to a trace's
  // (`dtsim calibrate --from-trace`); x = FLOPs as the plan counts an attention kernel: 4 b s_q s_k h
  // forward (2 b heads s_q s_k (d_qk + d_v)), half of it causal, and 2.5 times that backward (five
  // matrix products to the forward's two). Absent: attention runs on the GEMM curve of its dtype.
  std::map<std::string, FittedCurve> attention;
  // Streaming kernels by name ("sgd_step": w -= lr g over float arrays, 12 bytes per element);
  // x = bytes read and written. Optimizer updates and a server's aggregation are such loops on
  // every backend, so their ops cost max(compute curve(FLOPs), memory curve(mem_bytes)).
  std::map<std::string, FittedCurve> memory;
  double memory_bandwidth = 0;  // bytes/s of the largest sgd_step (for people; the curve is what counts)
  // Whether a worker's compute ops are bounded by their mem_bytes too (roofline). False for the
  // cpu backend, whose ops run their FLOPs as GEMMs without replaying memory traffic (docs/real.md).
  bool memory_roofline = false;
  // Compression kernels by name (compression_kernels()); x = gradient bytes (fp32) compressed.
  std::map<std::string, FittedCurve> compression;
  std::vector<CollectiveSample> collectives;
  // Two-way exchanges by link class (x = bytes each way), as measured; cross_host links are
  // fitted to them, same_host links to the rounds of the measured ring AllReduces when there are.
  std::map<std::string, std::vector<Sample>> exchange;
  // Compute and communication at once on each rank's device (ranks >= 2; absent before).
  std::optional<ContentionSample> contention;
  // One verdict per fitted curve, refused ones included (absent in profiles from before the checks).
  std::vector<FitCheck> fit_checks;
  // calibrate --backend cpu's self-check; absent where it did not run (cuda, traces, uneven hosts, before).
  std::optional<SelfCheck> self_check;

  // The fitted link of the class; with in_cache, its _in_cache curve where the profile has one.
  const FittedCurve* link(const std::string& link_class, bool in_cache = false) const;
  // Whether the profile holds any curve measured with the data in cache (and knows the cache's size).
  bool has_in_cache_curves() const;
  // The rates fitted to `contention` (fit_contention), or 1, 1 without it.
  ContentionFit contention_rates() const;
  // The compute curve for a dtype, falling back to fp32 (the cpu backend runs every dtype in fp32),
  // then to the first curve (a profile fitted to a trace of bf16 GEMMs may hold no fp32 one).
  const FittedCurve& compute_curve(Dtype d) const;
  // Seconds for an op of `flops` FLOPs and `mem_bytes` of memory traffic: the fitted curve,
  // or with memory_roofline the memory side when it is slower; 0 for an empty op.
  // `in_cache` (here and below): the rank's data stays in the last-level cache, so the memory curves'
  // _in_cache versions apply where the profile has them (kInCacheSuffix).
  double compute_time(Dtype d, double flops, double mem_bytes, bool in_cache = false) const;
  // The same for a fused attention kernel: its dtype's attention curve where the profile has one, else
  // compute_time's.
  double attention_time(Dtype d, double flops, double mem_bytes, bool in_cache = false) const;
  // Seconds of a streaming loop over `mem_bytes` (the sgd_step curve; memory_bandwidth without it).
  double memory_time(double mem_bytes, bool in_cache = false) const;
  // An optimizer update or a server's aggregation: max(compute curve, memory_time), always.
  double streaming_op_time(Dtype d, double flops, double mem_bytes, bool in_cache = false) const;
  // A rank's work outside a collective of `bytes` (filling the input, checking the output): the
  // collective_buffer curve, measured out of cache whatever the plan (kInCacheSuffix); 0 without it
  // (profiles from before it was measured).
  double collective_buffer_time(double bytes) const;
  // Seconds of the host work before a worker's uncompressed push of `bytes` (filling it): the
  // push_buffer curve; 0 without it (profiles from before it was measured, cuda).
  double push_buffer_time(double bytes) const;
  // A compress or decompress step by a measured kernel (ComputeOp's codec fields). Compress: the
  // kernel's curve at `kernel_bytes` plus error feedback's `feedback_bytes` at memory_time.
  // Decompress: the kernel's measured decompress curve (decompress_kernel) at `decode_bytes`, or,
  // in profiles without it, the compress curve at `kernel_bytes`. nullopt when the profile did not
  // measure the kernel ("" included), so the step keeps the model's cost.
  std::optional<double> codec_time(std::string_view kernel, CodecStage stage, double kernel_bytes, double decode_bytes,
                                   double feedback_bytes, bool in_cache = false) const;
};

// The compression kernels `dtsim calibrate` measures (calibrate/microbench.cpp: each method's compress
// as dtsim-real runs it), which a profile's fitted.compression may hold: the methods' calibration
// kernels (models/compression/method.cpp; PowerSGD has none: its steps are GEMMs, on the compute curve).
std::vector<std::string_view> compression_kernels();
// The name of a kernel's measured decompress curve in fitted.compression: "<kernel>_decompress"
// (one worker's payload decoded, x = the gradient's bytes: by Codec::decompress for a method
// dtsim-real runs in AllReduce jobs, by Codec::decode, a server's, for one it pushes only).
inline std::string decompress_kernel(std::string_view kernel) { return std::string(kernel) + "_decompress"; }

}  // namespace dtsim
