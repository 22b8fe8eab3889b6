// The CPU backend: one MPI process per rank, a thread per stream of the Plan (compute, comm,
// posted) so compute and communication overlap for real; compute ops as Eigen GEMMs, collectives
// as the schedules of models/collectives/ over MPI point-to-point, parameter servers that sum
// real gradients and apply a real SGD step.
//
// Why threads (MPI_THREAD_MULTIPLE) rather than nonblocking calls from one thread: a GEMM of a
// few hundred milliseconds gives MPI no chance to progress, so a single thread would serialise
// what the Plan overlaps. The comm and posted threads wait politely (wait_all) so they leave
// the core to the compute thread.
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "real/binding.hpp"
#include "real/codec.hpp"
#include "real/cpu/eigen_gemms.hpp"
#include "real/executor.hpp"
#include "real/memory_meter.hpp"
#include "real/op_board.hpp"
#include "real/values.hpp"

namespace dtsim::real {

class CpuExecutor : public RealExecutor {
 public:
  CpuExecutor(int rank, const RealOptions& options);
  ~CpuExecutor() override;
  CpuExecutor(const CpuExecutor&) = delete;
  CpuExecutor& operator=(const CpuExecutor&) = delete;

  RunInfo run(const Plan& plan, Observer& observer) override;
  RankReport report() const override;
  std::string device() const override;

 private:
  struct CollectiveSetup {
    MPI_Comm comm = MPI_COMM_NULL;
    GroupShape shape;
    int me = 0;
    ChunkLayout layout;
    Schedule schedule;  // empty with --mpi-collectives
  };

  void setup(const Plan& plan);
  void stream_loop(Stream stream, int iterations);
  void posted_loop(int iterations);
  void record(int k, const Op& op, double start, double end);

  // Op bodies (cpu_ops.cpp).
  void run_compute(int k, const Op& op);
  void run_update(int k, const Op& op);
  void run_aggregate(int k, const Op& op);
  void run_collective(int k, const Op& op);
  void run_p2p_blocking(int k, const Op& op);
  // Waits (politely) until a message from `peer` with `tag` has arrived or been announced.
  void await_message(int peer, int tag);
  // A pipeline message's buffer, allocated when the send is filled or the receive posted, released
  // when the transfer (and a receive's check) is done.
  void acquire_message(const Binding& b);
  void release_message(const Op& op);
  // Activations kept for the backward pass (hybrid plans): one stash per micro-batch's forward run
  // through the stage (or chunk), of the memory model's bytes per micro-batch in flight, allocated
  // when the run starts and released when its backward run ends (setup_stash marks the ops).
  void setup_stash(const Plan& plan);
  // A received pipeline message checked against what its sender wrote (values.hpp check_message).
  void check_received(int k, const Op& op);
  // Starts a send or receive; fills a worker's gradients before a push.
  MPI_Request start_p2p(int k, const Op& op);
  void execute_flops(double flops);
  // Compressed gradient units (cpu_codec.cpp): the codec steps and their check.
  void setup_codecs(const Plan& plan);
  void fill_unit(int k, const Op& op);
  void run_codec(const Op& op, int k);
  void check_codec(int k, const Op& op);
  // A straggler's extra work: the op's FLOPs again, times (slowdown - 1).
  void straggle(int k, const Op& op);

  // Asynchronous parameter servers (async_ps.cpp): a shard's parameters and version counter in an
  // MPI window on the shard's first server rank, which every server rank of the shard updates
  // under an exclusive lock; the SSP workers' clocks in a window on the job's first server rank.
  void setup_shared(const Plan& plan);
  void apply_async(int k, const Op& op);
  void publish_clock(int k);
  bool gate_open(int k, int lag);
  void finish_shared();
  void add_check(const Op& op, std::string kind, std::string algorithm, std::int64_t elements, const CheckResult& r);
  std::span<float> buffer(const Binding& b);

  int rank_;
  RealOptions options_;
  Clock clock_;
  const Plan* plan_ = nullptr;
  const RankProgram* program_ = nullptr;
  RankBinding binding_;
  std::vector<float> params_, grads_;
  std::array<std::vector<float>, 3> scratch_;                   // per stream (Binding::lane)
  std::vector<std::vector<float>> messages_;                    // pipeline messages (Binding::message), while in flight
  MemoryMeter meter_;                                           // the plan buffers' bytes alive, and their peak
  double stash_bytes_ = 0;                                      // one micro-batch's activations kept on this stage
  std::vector<char> stash_begin_, stash_end_;                   // per op: a forward run starts, a backward run ends
  std::map<int, std::vector<std::unique_ptr<float[]>>> stash_;  // by micro-batch, a stack of chunks
  std::vector<std::vector<float>> inbox_;
  EigenGemms gemms_;
  std::map<int, MPI_Comm> group_comms_;         // plan group -> its communicator
  std::map<int, CollectiveSetup> collectives_;  // op id -> how it runs
  MPI_Comm p2p_ = MPI_COMM_NULL;
  struct UnitCodec {
    std::unique_ptr<Codec> codec;
    MPI_Comm comm = MPI_COMM_NULL;  // the exchange's group (for the check's reference sum)
  };
  std::map<int, UnitCodec> codecs_;                     // by unit (a parameter-server worker: by shard)
  std::map<int, std::unique_ptr<Codec>> inbox_codecs_;  // a server's decoders, by inbox (worker)
  bool lossy_pushes_ = false;                           // a server's exact-sum checks do not apply
  struct SharedShard {
    MPI_Win win = MPI_WIN_NULL;
    int owner = -1;  // the rank holding the memory
  };
  std::vector<MPI_Win> windows_;  // every window this rank took part in creating, in order
  SharedShard shard_;             // an asynchronous server's shard
  SharedShard clocks_;            // a stale-synchronous worker's job clocks (one int64 per worker)
  bool shard_owner_ = false;
  std::int64_t last_version_ = 0;  // the shard's version after this server rank's previous update
  std::vector<int> staleness_;
  double flops_straggler_ = 0;
  BspPolicy policy_;
  std::unique_ptr<OpBoard> board_;
  std::atomic<bool> cancel_{false};
  std::atomic<int> computing_{0};  // ops running on the compute stream now (0 or 1)

  mutable std::mutex mutex_;  // guards what follows
  std::vector<OpRecord> records_;
  std::map<int, CheckRecord> checks_;  // by op id
  double flops_planned_ = 0;
  double flops_executed_ = 0;
  double elements_sent_ = 0;
};

}  // namespace dtsim::real
