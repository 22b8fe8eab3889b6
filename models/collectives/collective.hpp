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
};

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
struct Transfer {
  int src = 0;
  int dst = 0;
  int chunk = 0;        // which piece of the buffer (the algorithm's own numbering)
  double bytes = 0;
  bool reduce = false;  // the receiver adds it into its copy of the chunk (else overwrites)
};

// Transfers of one round may run at once; a round starts when the previous one has finished.
struct Round {
  std::vector<Transfer> transfers;
};

struct Schedule {
  int chunks = 1;  // the buffer is cut into this many chunks of equal size
  std::vector<Round> rounds;
};

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual bool supports(CollectiveKind kind, const GroupShape& group) const = 0;
  // Throws InputError if !supports(kind, group).
  virtual Schedule schedule(CollectiveKind kind, const GroupShape& group, double bytes) const = 0;
  // Time on uncontended full-duplex links, reduction compute ignored.
  virtual double closed_form(CollectiveKind kind, const GroupShape& group, double bytes,
                             const AlphaBeta& ab) const = 0;
};

// Names in the table, e.g. "ring", "double_binary_tree", "halving_doubling", "hierarchical", "direct".
std::vector<std::string_view> algorithm_names();
// Throws InputError (no location) naming the valid algorithms.
const CollectiveAlgorithm& find_algorithm(std::string_view name);

// Time of a schedule when it runs on uncontended full-duplex links: rounds in sequence, each as
// long as its slowest transfer (alpha + bytes / bw of that pair's class).
double schedule_time(const Schedule& schedule, const GroupShape& group, const AlphaBeta& ab);

}  // namespace dtsim
