// The cpu microbenchmarks: GEMM throughput, memory copies, exchanges per link class, ring
// AllReduce like nccl-tests, compression kernels (dtsim-real's codecs). Sizes double (or grow by
// 4 to 8 with --quick).
#include "calibrate/microbench.hpp"

#include "calibrate/bench_util.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <thread>

#include "core/base/error.hpp"
#include "real/codec.hpp"
#include "real/cpu/collectives.hpp"
#include "real/cpu/eigen_gemms.hpp"
#include "real/gemm.hpp"
#include "real/mpi_world.hpp"
#include "real/values.hpp"

namespace dtsim::calib {
namespace {

// Times `body` until min_seconds have passed (at least 3 runs, at most max_repeats), after one
// untimed warm-up; every run's seconds. `before` runs untimed before each run, but counts against
// min_seconds.
std::vector<double> repeats(const BenchOptions& o, const std::function<void()>& body,
                            const std::function<void()>& before = {}) {
  std::vector<double> times;
  double total = 0;
  body();  // warm-up
  while (times.size() < 3 || (total < o.min_seconds && static_cast<int>(times.size()) < o.max_repeats)) {
    if (before) {
      const double b0 = MPI_Wtime();
      before();
      total += MPI_Wtime() - b0;
    }
    const double t0 = MPI_Wtime();
    body();
    const double dt = MPI_Wtime() - t0;
    times.push_back(dt);
    total += dt;
  }
  return times;
}

// The median run of repeats().
double timed(const BenchOptions& o, const std::function<void()>& body, const std::function<void()>& before = {}) {
  return median(repeats(o, body, before));
}

// The mean of every rank's `seconds` (collective).
double mean_over_ranks(double seconds, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_SUM, comm);
  return seconds / size;
}

// How many ranks of `comm` share this rank's host.
int ranks_on_my_host(MPI_Comm comm) {
  const std::vector<std::string> hosts = all_hosts(comm);
  return static_cast<int>(std::count(hosts.begin(), hosts.end(), hosts.at(static_cast<size_t>(comm_rank(comm)))));
}

// Streams through a buffer twice the last-level cache (64 MiB if unknown), so that what a
// benchmark reads next comes from memory: in dtsim-real an optimizer step's parameters were last
// touched an iteration ago, after the GEMMs and the collectives had gone through the caches (a
// step measured hot, back to back, was 1.7x faster than the same step in a run here).
void evict_caches() {
  static std::vector<float> junk = [] {
    const double llc = last_level_cache_bytes();
    const size_t bytes = llc > 0 ? 2 * static_cast<size_t>(llc) : size_t{64} << 20;
    return std::vector<float>(bytes / sizeof(float), 1.0f);
  }();
  for (float& v : junk) v += 1.0f;
}

// Streams through a buffer twice a core's own cache (L2; 2 MiB if unknown), so that what a benchmark
// reads next comes from the last-level cache: a run whose model fits there finds its gradients and
// weights in it, but not in the L2, which the GEMMs between two uses went through (back to back on one
// buffer, a 1 MB AllReduce ran mostly from the L2: 90 us predicted against 100 to 115 us in runs).
void evict_private_caches() {
  static std::vector<float> junk = [] {
    const double l2 = private_cache_bytes();
    const size_t bytes = l2 > 0 ? 2 * static_cast<size_t>(l2) : size_t{2} << 20;
    return std::vector<float>(bytes / sizeof(float), 1.0f);
  }();
  for (float& v : junk) v += 1.0f;
}

}  // namespace

std::vector<Sample> bench_gemm(const BenchOptions& o, MPI_Comm comm) {
  real::EigenGemms gemms(real::kMaxGemmDim);
  const bool own_core = ranks_on_my_host(comm) <= static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // A rank with a core of its own: the mean over repeats of at least kGemmSeconds (a run's ops add
  // up, its slow ones included: over one run here the mean forward GEMM was 2 to 5 % above the
  // median, and 10 % above the median of a few repeats), and the slowest rank's (a synchronous
  // step waits for it; one of the 2 cores here ran the same GEMMs 12 % slower than the other for
  // a whole run). Ranks sharing a core: the median, averaged over ranks, as the wall-clock time of
  // a repeat can include another rank's turn on the core, which the engines' core queue adds itself.
  // The cores' speed wanders from one second to the next (bench_steadiness: a 10 MFLOP op's mean
  // per second ran from 219 to 261 us within 8 s on this VM): each size is averaged over
  // kGemmSeconds per pass.
  constexpr double kGemmSeconds = 0.15;
  BenchOptions longer = o;
  if (own_core) {
    longer.min_seconds = std::max(o.min_seconds, o.quick ? kGemmSeconds / 10 : kGemmSeconds);
    longer.max_repeats = 1 << 20;
  }
  std::vector<Sample> out;
  for (double flops : o.quick ? geometric(1e4, 1e9, 10) : geometric(1e3, 2e9, 4)) {
    const std::vector<real::GemmShape> shapes = real::gemm_shapes(flops, real::kMaxGemmDim);
    MPI_Barrier(comm);
    const auto body = [&] { gemms.run(shapes); };
    double t = 0;
    if (own_core) {
      const std::vector<double> times = repeats(longer, body);
      t = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    } else {
      t = mean_over_ranks(timed(o, body), comm);
    }
    out.push_back(Sample{real::gemm_flops(shapes), t});
  }
  return out;
}

namespace {

// dtsim-real's SGD step over arrays of `bytes` / 12 elements of each size, every rank at once.
// `swept`: the caches swept before each repeat (a run whose model outgrows them); else only a
// core's own cache (the arrays stay in the last level, as a model that fits it stays in a run).
std::vector<Sample> sgd_steps(const BenchOptions& o, MPI_Comm comm, const std::vector<double>& sizes, bool swept) {
  std::vector<Sample> out;
  for (double bytes : sizes) {
    const auto n = static_cast<size_t>(bytes / 12);
    std::vector<float> w(n, 1.0f), g(n, 0.5f);
    const float lr = 1.0f / 16;
    MPI_Barrier(comm);
    double t = timed(
        o,
        [&] {
          for (size_t i = 0; i < n; ++i) w[i] -= lr * g[i];
        },
        [&] {
          // The parameters as a run finds them, a whole iteration after their last step; the
          // gradients as the collective before the step leaves them, just written (ring_4_4MB's
          // 4 MB steps took 0.28 ms in runs, 0.54 ms predicted from both arrays cold).
          if (swept) {
            evict_caches();
          } else {
            evict_private_caches();
          }
          std::fill(g.begin(), g.end(), 0.5f);
        });
    out.push_back(Sample{12.0 * static_cast<double>(n), mean_over_ranks(t, comm)});
  }
  return out;
}

// The last-level cache's share of one rank of `comm` (0 when the OS does not say).
double cache_share(MPI_Comm comm, double llc_bytes) { return llc_bytes / std::max(1, ranks_on_my_host(comm)); }

}  // namespace

std::vector<Sample> bench_memory(const BenchOptions& o, MPI_Comm comm) {
  return sgd_steps(o, comm, o.quick ? geometric(96 << 10, 24 << 20, 4) : geometric(96 << 10, 384 << 20, 2), true);
}

std::vector<Sample> bench_collective_buffer(const BenchOptions& o, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int me = comm_rank(comm);
  const GroupShape shape{size, size, 0};
  std::vector<Sample> out;
  for (double bytes : o.quick ? geometric(4096, 16 << 20, 4) : geometric(4096, 64 << 20, 2)) {
    const auto n = static_cast<std::int64_t>(bytes / sizeof(float));
    const real::ChunkLayout layout{n, 1};
    std::vector<float> buf(static_cast<size_t>(n));
    int salt = 0;
    MPI_Barrier(comm);
    // A run fills a bucket of gradients last touched an iteration ago, the GEMMs and the other
    // buckets since: from memory, not from the caches. Timed hot, back to back, the 4 MB fill and
    // check took 260 us here, swept 365 to 445 us, and in ring_2_16MB's runs (a 4M-parameter model)
    // 150 and 185 us (timed inside dtsim-real, 2026-11-30). A model that fits the L3 fills and checks
    // at this rate too (core/calibration/calibration.hpp: kInCacheSuffix).
    double t = timed(
        o,
        [&] {
          real::fill_input(CollectiveKind::AllReduce, layout, shape, me, ++salt, 0, buf);
          const real::CheckResult r = real::check_output(CollectiveKind::AllReduce, layout, shape, me, salt, 0, buf);
          if (r.checked != n) throw RuntimeError("collective buffer check skipped elements");
        },
        evict_caches);
    out.push_back(Sample{static_cast<double>(n) * sizeof(float), mean_over_ranks(t, comm)});
  }
  return out;
}

InCacheSamples bench_in_cache(const BenchOptions& o, MPI_Comm comm, double llc_bytes) {
  InCacheSamples out;
  const double share = cache_share(comm, llc_bytes);
  if (!(share >= (1 << 20))) return out;  // unknown, or too small to hold a model worth the curves
  const double factor = o.quick ? 4 : 2;
  out.sgd_step = sgd_steps(o, comm, geometric(96 << 10, share, factor), false);
  int size = 1;
  MPI_Comm_size(comm, &size);
  if (ranks_on_my_host(comm) != size) return out;  // rounds of one host's ring only
  for (double bytes : geometric(1024, share / 2, factor)) {
    RingAllReduce ring(bytes, comm);
    // As bench_collectives runs them (fill, the schedule timed from this rank's entry, check), on one
    // buffer back to back with only the core's own cache swept between: it stays in the last level,
    // as a small model's gradients do in a run.
    const auto once = [&] {
      evict_private_caches();
      return ring.run();
    };
    int repeats = 0;
    const double first = once();
    if (comm_rank(comm) == 0) {
      repeats = std::clamp(static_cast<int>(o.min_seconds / std::max(first, 1e-7)), 5, o.max_repeats);
    }
    MPI_Bcast(&repeats, 1, MPI_INT, 0, comm);
    std::vector<double> times;
    MPI_Barrier(comm);
    for (int i = 0; i < repeats; ++i) times.push_back(once());
    double t = median(times);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    out.rounds.push_back(Sample{ring.bytes() / size, t / (2.0 * (size - 1))});
  }
  return out;
}

RingAllReduce::RingAllReduce(double bytes, MPI_Comm comm) : comm_(comm) {
  const int size = comm_size(comm);
  shape_ = GroupShape{size, size, 0};
  const CollectiveAlgorithm& ring = find_algorithm("ring");
  schedule_ = ring.schedule(CollectiveKind::AllReduce, shape_, bytes);
  layout_ = real::ChunkLayout{static_cast<std::int64_t>(bytes / sizeof(float)), schedule_.chunks};
  buf_.assign(static_cast<size_t>(layout_.elements), 0.0f);
  me_ = comm_rank(comm);
}

double RingAllReduce::run() {
  real::fill_input(CollectiveKind::AllReduce, layout_, shape_, me_, ++salt_, 0, buf_);
  const double t0 = MPI_Wtime();
  real::run_schedule(schedule_, layout_, buf_, me_, comm_);
  const double dt = MPI_Wtime() - t0;
  if (real::check_output(CollectiveKind::AllReduce, layout_, shape_, me_, salt_, 0, buf_).mismatched != 0) {
    throw RuntimeError("calibration: a ring AllReduce gave a wrong result");
  }
  return dt;
}

std::vector<Sample> bench_push_buffer(const BenchOptions& o, MPI_Comm comm) {
  const int me = comm_rank(comm);
  std::vector<Sample> out;
  // Sizes x4 apart, not x2 as the others: each repeat sweeps the caches first (2.4 s a pass at x2).
  const double step = 4;
  for (double bytes : o.quick ? geometric(4096, 16 << 20, step) : geometric(4096, 64 << 20, step)) {
    std::vector<float> buf(static_cast<size_t>(bytes / sizeof(float)));
    int salt = 0;
    MPI_Barrier(comm);
    // The run's gradients were last written an iteration ago, the GEMMs since: cold.
    double t = timed(
        o, [&] { real::fill_contributions(buf, 0, me, ++salt); }, evict_caches);
    out.push_back(Sample{static_cast<double>(buf.size()) * sizeof(float), mean_over_ranks(t, comm)});
  }
  return out;
}

std::map<std::string, std::vector<Sample>> bench_exchange(const BenchOptions& o, MPI_Comm comm) {
  const std::map<std::string, int> partner = link_partners(all_hosts(comm));
  const int me = comm_rank(comm);
  const std::vector<double> sizes = o.quick ? geometric(8, 4 << 20, 8) : geometric(8, 16 << 20, 2);
  std::vector<float> buf(static_cast<size_t>(sizes.back() / sizeof(float)) + 1, 1.0f);
  std::vector<float> back(buf.size(), 0.0f);
  std::map<std::string, std::vector<Sample>> out;
  for (const auto& [cls, peer] : partner) {
    MPI_Barrier(comm);
    if (me != 0 && me != peer) continue;
    const int other = me == 0 ? peer : 0;
    for (double bytes : sizes) {
      const int count = std::max(1, static_cast<int>(bytes / sizeof(float)));
      // One exchange: both ranks send to each other at once and wait for both transfers (as a
      // collective's round or a parameter server's push and pull run in dtsim-real).
      const auto round_trip = [&] {
        MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        real::check_mpi(MPI_Irecv(back.data(), count, MPI_FLOAT, other, 7, comm, &req[0]), "MPI_Irecv");
        real::check_mpi(MPI_Isend(buf.data(), count, MPI_FLOAT, other, 7, comm, &req[1]), "MPI_Isend");
        real::wait_all(std::span<MPI_Request>(req, 2));
      };
      // Both sides run the same number of round trips: rank 0 decides and tells its partner.
      int repeats = 3;
      if (me == 0) {
        const double t0 = MPI_Wtime();
        round_trip();
        const double once = std::max(MPI_Wtime() - t0, 1e-7);
        repeats = std::clamp(static_cast<int>(o.min_seconds / once), 3, o.max_repeats);
        MPI_Send(&repeats, 1, MPI_INT, other, 8, comm);
      } else {
        round_trip();
        MPI_Recv(&repeats, 1, MPI_INT, 0, 8, comm, MPI_STATUS_IGNORE);
      }
      std::vector<double> times;
      for (int i = 0; i < repeats; ++i) {
        const double t0 = MPI_Wtime();
        round_trip();
        times.push_back(MPI_Wtime() - t0);
      }
      if (me == 0) out[cls].push_back(Sample{static_cast<double>(count) * sizeof(float), median(times)});
    }
  }
  MPI_Barrier(comm);
  return out;
}

std::vector<CollectiveSample> bench_collectives(const BenchOptions& o, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int me = comm_rank(comm);
  const CollectiveAlgorithm& ring = find_algorithm("ring");
  const GroupShape shape{size, 1, 0};
  std::vector<CollectiveSample> out;
  evict_caches();  // allocates its buffer; the second sweep is timed
  const double sweep_start = MPI_Wtime();
  evict_caches();
  const double sweep_seconds = MPI_Wtime() - sweep_start;
  // AllReduce densely (its rounds calibrate the same_host link); ReduceScatter and AllGather (S =
  // the gathered buffer; busbw = algbw (n - 1) / n, as nccl-tests) more sparsely.
  std::vector<std::pair<CollectiveKind, double>> runs;
  for (double b : o.quick ? geometric(4096, 4 << 20, 4) : geometric(1024, 64 << 20, 2)) {
    runs.emplace_back(CollectiveKind::AllReduce, b);
  }
  for (CollectiveKind k : {CollectiveKind::ReduceScatter, CollectiveKind::AllGather}) {
    for (double b : o.quick ? geometric(4096, 4 << 20, 32) : geometric(4096, 64 << 20, 8)) runs.emplace_back(k, b);
  }
  for (const auto& [kind, bytes] : runs) {
    const Schedule schedule = ring.schedule(kind, shape, bytes);
    const auto elements = static_cast<std::int64_t>(bytes / sizeof(float));
    const real::ChunkLayout layout{elements, schedule.chunks};
    // As a run's buckets: kBuckets buffers in turn, the caches swept before each round of them (the
    // optimizer step between two iterations walks the whole model). One buffer reused back to back
    // stayed in the caches: a 4 MB AllReduce on 2 ranks took 820 us that way and 1216 us this way
    // in calibration, 1.1 to 1.6x less than in runs (bench/validation/ring_2_16MB: -22 % against
    // -6 % with this, 2026-11-22).
    constexpr int kBuckets = 4;
    std::vector<float> buckets(static_cast<size_t>(elements) * kBuckets, 1.0f);
    const auto bucket = [&](int i) {
      return std::span<float>(buckets.data() + static_cast<size_t>(elements) * static_cast<size_t>(i % kBuckets),
                              static_cast<size_t>(elements));
    };
    std::span<float> buf = bucket(0);
    // Every rank runs the same number of repeats: rank 0's count, broadcast.
    int repeats = 0;
    if (me == 0) {
      const double t0 = MPI_Wtime();
      real::run_schedule(schedule, layout, buf, me, comm);
      // Each repeat also costs its share of a cache sweep: min_seconds bounds both.
      const double once = MPI_Wtime() - t0 + sweep_seconds / kBuckets;
      repeats = std::clamp(static_cast<int>(o.min_seconds / std::max(once, 1e-7)), 3, o.max_repeats);
    } else {
      real::run_schedule(schedule, layout, buf, me, comm);
    }
    MPI_Bcast(&repeats, 1, MPI_INT, 0, comm);
    std::vector<double> times;
    // As dtsim-real's comm stream runs a collective: fill the input, run the schedule (timed from
    // this rank's entry, so a late peer counts, as in a run), check the output; no barrier between
    // repeats (a barrier before each one made 2 MB rounds 5x slower than in runs here).
    MPI_Barrier(comm);
    for (int i = 0; i < repeats; ++i) {
      if (i % kBuckets == 0) evict_caches();
      buf = bucket(i);
      real::fill_input(kind, layout, shape, me, i, 0, buf);
      const double t0 = MPI_Wtime();
      real::run_schedule(schedule, layout, buf, me, comm);
      times.push_back(MPI_Wtime() - t0);
      if (real::check_output(kind, layout, shape, me, i, 0, buf).mismatched != 0) {
        throw RuntimeError("calibration collective: wrong result");
      }
    }
    double t = median(times);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    const double algbw = bytes / t;
    const std::string name(collective_name(kind));
    out.push_back(CollectiveSample{name, "ring", size, static_cast<double>(elements) * sizeof(float), t, algbw,
                                   algbw * busbw_factor(name, size), 0});
  }
  return me == 0 ? out : std::vector<CollectiveSample>{};
}

std::map<std::string, std::vector<Sample>> bench_compression(const BenchOptions& o, MPI_Comm comm) {
  std::map<std::string, std::vector<Sample>> out;
  if (comm_rank(comm) == 0) {
    for (double bytes : o.quick ? geometric(64 << 10, 4 << 20, 4) : geometric(64 << 10, 64 << 20, 4)) {
      const auto n = static_cast<std::int64_t>(bytes / sizeof(float));
      std::vector<float> g(static_cast<size_t>(n));
      for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<float>((i * 2654435761u) % 1000) - 500.0f;
      for (const MethodTraits& method : compression_methods()) {
        if (method.calibration_kernel.empty()) continue;
        const std::string kernel(method.calibration_kernel);
        CompressionSpec spec;  // top-k and random-k: 1 %
        spec.method = method.method;
        spec.error_feedback = false;  // costed apart, by the memory curve
        const std::unique_ptr<real::Codec> codec = real::make_codec(spec, n, 1, 0, 1);
        int iteration = 0;
        out[kernel].push_back(Sample{bytes, timed(o, [&] { codec->compress(g, iteration++); })});
        // The same codec decoding its one payload (workers = 1: what it just compressed), as
        // dtsim-real runs it; x is still the gradient's bytes. A method dtsim-real runs in
        // AllReduce jobs: decompress, as a worker runs it after the exchange. One it runs in
        // parameter-server pushes only (int8, qsgd): decode, as the server runs it on each push
        // (their decompress refuses: a server decodes them).
        std::vector<float> decoded(static_cast<size_t>(n));
        const auto decompress = [&] {
          if (method.cpu.allreduce) {
            codec->decompress(decoded);
          } else {
            codec->decode(decoded);
          }
        };
        out[decompress_kernel(kernel)].push_back(Sample{bytes, timed(o, decompress)});
      }
    }
  }
  MPI_Barrier(comm);
  return out;
}

}  // namespace dtsim::calib
