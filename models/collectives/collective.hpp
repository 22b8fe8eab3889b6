// Collective algorithms: each one a schedule as plain data (who sends which chunk to whom in
// each round, and whether the receiver reduces it) plus its alpha-beta closed form.
// One algorithm per file in this folder; chosen by name from the table in registry.cpp.
// sim/ replays schedules on SimGrid, real/ executes them over MPI, the analytical engine uses
// the closed forms.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dtsim {

enum class CollectiveKind { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce, AllToAll };

std::string_view collective_name(CollectiveKind kind);  // "allreduce", "reduce_scatter", ...
// Throws InputError (no location) naming the valid kinds.
CollectiveKind parse_collective(std::string_view text);

// The group a collective runs over: `size` ranks numbered 0..size-1 within the group, placed
// `per_node` consecutive ranks to a node (size % per_node == 0); `root` for Broadcast/Reduce.
struct GroupShape {
  int size = 1;
  int per_node = 1;
  int root = 0;

  int node_of(int r) const { return r / per_node; }
  bool same_node(int a, int b) const { return node_of(a) == node_of(b); }
  int nodes() const { return size / per_node; }
};

// Throws InputError unless size >= 1, per_node >= 1, size % per_node == 0 and 0 <= root < size.
void validate_group(const GroupShape& group);

// Alpha-beta parameters of one message between two ranks: latency alpha (s) and the bandwidth
// (bytes/s) a rank can drive, for a pair within one node and for a pair on different nodes.
struct AlphaBeta {
  double alpha_intra = 0;
  double bw_intra = 1;
  double alpha_inter = 0;
  double bw_inter = 1;
};

// `bytes` is S, the size named in REFERENCE.md: the buffer on each rank for AllReduce, Broadcast
// and Reduce; the full (gathered) buffer for ReduceScatter and AllGather; what each rank sends
// in total for AllToAll.
// 24 bytes: a ring AllReduce over 1024 ranks holds 2 * 1023 * 1024 of them.
struct Transfer {
  int src = 0;
  int dst = 0;
  int chunk = 0;        // which piece of the buffer (see Schedule for what the ids mean)
  bool reduce = false;  // the receiver adds it into its copy of the chunk (else overwrites)
  double bytes = 0;
};

// Transfers of one round may run at once; a round starts when the previous one has finished.
// A transfer sends the chunk as the sender held it when the round started. Several transfers
// from one rank to another in the same round count as one message (one alpha) for timing.
struct Round {
  std::vector<Transfer> transfers;
};

// What chunk ids 0..chunks-1 mean, by kind:
//   AllReduce, Reduce, ReduceScatter: every rank's buffer is cut into `chunks` equal pieces and
//     every rank starts with its own contribution to each; a reducing transfer adds the sender's
//     partial sum into the receiver's. Reduce ends with the root holding every chunk fully
//     reduced; AllReduce with every rank holding them all.
//   ReduceScatter, AllGather: chunks is a multiple of size; chunk c belongs to rank
//     c / (chunks / size). ReduceScatter ends with every rank holding its own chunks fully
//     reduced; in AllGather every rank starts with its own chunks and ends with all of them.
//   Broadcast: the root starts with every chunk, and every rank ends with them.
//   AllToAll: chunks = size * size; chunk i * size + j is the piece rank i sends to rank j
//     (S / size bytes); rank j ends with chunk i * size + j from every i != j.
// Every transfer carries its own byte count, so timing never needs the chunk size.
struct Schedule {
  int chunks = 1;
  std::vector<Round> rounds;
};

// What a replaying engine sends: one message per (src, dst) pair standing for `rounds` rounds
// of the algorithm. Step fidelity: one phase per round (same-pair transfers of a round merged
// into one message). Flow fidelity: consecutive rounds that use the same set of pairs merged
// into one phase, each pair's bytes summed; the engine charges the extra (rounds - 1) latencies.
struct Flow {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};
struct FlowPhase {
  std::vector<Flow> flows;
  int rounds = 1;
};

// Step fidelity: every round of the schedule as its own phase (rounds = 1, even when the round
// is empty), its same-pair transfers merged into one flow (bytes summed in schedule order), flows
// sorted by src, then dst.
std::vector<FlowPhase> step_phases(const Schedule& schedule);
// Flow fidelity from a schedule: consecutive phases with the same set of (src, dst) pairs merged,
// each pair's bytes summed and the rounds added up. Each input phase's flows are first sorted
// and same-pair flows merged, as step_phases does, so the output is in the same order.
std::vector<FlowPhase> merge_phases(const std::vector<FlowPhase>& steps);
// All the phases' flows sent at once: one phase of one round, each pair's bytes summed over the phases, in the
// order step_phases gives (what strategy.allreduce.algorithm: nccl replays, CostModel::nccl_replay).
FlowPhase one_phase(const std::vector<FlowPhase>& phases);

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  // Why this algorithm cannot run `kind` on `group` ("" when it can), e.g.
  // "halving_doubling needs a power-of-two group size (got 6)". The group must be valid.
  virtual std::string unsupported_reason(CollectiveKind kind, const GroupShape& group) const = 0;
  bool supports(CollectiveKind kind, const GroupShape& group) const { return unsupported_reason(kind, group).empty(); }
  // Throws InputError if the group is invalid, bytes is negative, or !supports(kind, group); the
  // message names the algorithms that do support it.
  virtual Schedule schedule(CollectiveKind kind, const GroupShape& group, double bytes) const = 0;
  // Time on uncontended full-duplex links, reduction compute ignored; the same time
  // schedule_time gives for schedule(kind, group, bytes), except where an algorithm's file says
  // otherwise (the double binary tree gives an upper bound). Throws as schedule() does.
  virtual double closed_form(CollectiveKind kind, const GroupShape& group, double bytes, const AlphaBeta& ab) const = 0;
  // Flow fidelity: merge_phases(step_phases(schedule(...))) by default; algorithms whose
  // schedules grow as N^2 (ring, hierarchical, halving-doubling) or N k (double binary tree)
  // override it with a construction of O(N) flows per phase giving the same phases (the same
  // flows in the same order, bytes summed in the same order). Direct keeps the default: its N-1
  // shifts use N-1 different sets of N pairs, so its flows are N^2 themselves.
  // Throws as schedule() does.
  virtual std::vector<FlowPhase> flow_phases(CollectiveKind kind, const GroupShape& group, double bytes) const;

 protected:
  // The checks schedule() and closed_form() start with.
  void require(CollectiveKind kind, const GroupShape& group, double bytes) const;
};

// Names in the table, sorted: "direct", "double_binary_tree", "halving_doubling",
// "hierarchical", "nccl", "ring".
std::vector<std::string_view> algorithm_names();
// Throws InputError (no location) naming the valid algorithms and the nearest one.
const CollectiveAlgorithm& find_algorithm(std::string_view name);
// Whether the algorithm is "nccl" (nccl_algorithm.cpp): NCCL's choice, timed by NCCL's cost model on the cluster.
bool follows_nccl(const CollectiveAlgorithm& algorithm);

// Pipelined algorithms (ring/chain Broadcast and Reduce, each tree of the double binary tree)
// cut the bytes they carry into this many chunks: one per started MiB (kPipelineChunkBytes),
// at least 1 and at most kMaxPipelineChunks, so a schedule stays within the size of a ring
// AllReduce for large groups. The chunk count depends on bytes only, not on alpha and beta.
inline constexpr double kPipelineChunkBytes = 1024.0 * 1024.0;
inline constexpr int kMaxPipelineChunks = 256;
int pipeline_chunks(double bytes);

// Time of a schedule on uncontended full-duplex links, rounds in sequence. Each rank has one
// full-duplex port per link class (intra-node, inter-node), and the two classes work side by
// side (NVLink and the NIC). A round lasts, over the classes its transfers use,
//   max over classes k of  alpha_k + max over ranks r of max(out_k(r), in_k(r)) / bw_k,
// where out_k(r) and in_k(r) are the bytes rank r sends and receives over class k in that round
// (several messages on one port share it). With one class this is
//   alpha + max over ranks of max(bytes sent, bytes received) / bw.
// A transfer between two ranks of one node uses the intra parameters, otherwise the inter ones.
double schedule_time(const Schedule& schedule, const GroupShape& group, const AlphaBeta& ab);

// Time of flow phases on uncontended full-duplex links, phases in sequence: the closed form the
// SimGrid engine's flow fidelity is checked against. The rule of schedule_time with a phase of
// R rounds paying R latencies per class it uses and its flows sharing the ports:
//   max over classes k of  R alpha_k + max over ranks r of max(out_k(r), in_k(r)) / bw_k.
// For step_phases(s) it equals schedule_time(s). Merging never makes a phase slower (a max of
// sums is at most the sum of the maxes), and it keeps the time wherever the merged rounds load
// every rank and class alike (ring, halving-doubling, hierarchical, direct: equal to closed_form).
// Throws RuntimeError for a flow with a rank outside the group.
double flow_phase_time(const std::vector<FlowPhase>& phases, const GroupShape& group, const AlphaBeta& ab);

// Bytes each rank 0..group_size-1 sends over all the phases (for metrics: bytes on the wire).
std::vector<double> bytes_sent(const std::vector<FlowPhase>& phases, int group_size);

}  // namespace dtsim
