// Internal to models/collectives/: the algorithm instances the table in registry.cpp lists, and
// the pieces several algorithms share (ring phases, per-round alpha-beta costs).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/collectives/collective.hpp"

namespace dtsim::collectives {

const CollectiveAlgorithm& direct_algorithm();
const CollectiveAlgorithm& double_binary_tree_algorithm();
const CollectiveAlgorithm& halving_doubling_algorithm();
const CollectiveAlgorithm& hierarchical_algorithm();
const CollectiveAlgorithm& nccl_algorithm();
const CollectiveAlgorithm& ring_algorithm();

// alpha + bytes / bw of one link class.
double class_time(const AlphaBeta& ab, bool inter, double bytes);
// A round in which every rank sends and receives at most `bytes` per class, with transfers on
// the classes flagged: the max over those classes of class_time (0 if neither is used).
double round_time(const AlphaBeta& ab, bool uses_intra, bool uses_inter, double bytes);

// Which chunks make up piece p of a ring phase:
//   offset + p * piece_stride + j * elem_stride  for j in 0..count-1.
struct PieceLayout {
  int offset = 0;
  int piece_stride = 1;
  int count = 1;
  int elem_stride = 0;
};

// Adds the n-1 rounds of a ring phase among `members` (in ring order: member i sends to member
// i+1 mod n) to rounds[first], rounds[first+1], ..., growing `rounds` as needed, so that rings
// over disjoint members can run side by side. Reduce-scatter (reduce = true): in step s member
// i sends piece (i-s-1) mod n and ends holding piece i fully reduced. All-gather: member i
// starts with piece i and in step s sends piece (i-s) mod n. Each chunk is one transfer.
void add_ring_phase(std::vector<Round>& rounds, std::size_t first, const std::vector<int>& members,
                    const PieceLayout& pieces, double chunk_bytes, bool reduce);

// x added up `times` times from the left (x + x + ...), the order in which step_phases sums
// same-pair transfers of a round and merge_phases sums rounds; 0 when times < 1.
double repeated_sum(double x, int times);

// The flows of one round of a ring among `members` (member i sends `bytes` to member i+1 mod n),
// appended to `out`; none for fewer than two members.
void add_ring_flows(std::vector<Flow>& out, const std::vector<int>& members, double bytes);

// Flow phases built round by round without a schedule, merged as merge_phases(step_phases(s))
// merges them: the same flows in the same order, the same rounds, bytes summed in the same order.
// Lets algorithms build the phases of N^2-sized schedules in O(N).
class PhaseBuilder {
 public:
  // One more phase of merge_phases' input.
  void add_phase(FlowPhase phase);
  // `rounds` consecutive rounds that each send `flows` (a round's same-pair transfers already
  // merged, or merged here). Costs O(flows log flows) plus O(rounds) per distinct pair of
  // (bytes so far, bytes per round) among the flows.
  void add_rounds(std::vector<Flow> flows, int rounds);
  std::vector<FlowPhase> take() { return std::move(phases_); }

 private:
  std::vector<FlowPhase> phases_;
};

}  // namespace dtsim::collectives
