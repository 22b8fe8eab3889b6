// Which ranks form each group of a hybrid layout. A rank's coordinates are its index along each
// dimension (tp, cp, ep, dp, pp); the rank order lists the dimensions fastest-varying first, as
// Megatron-LM's RankGenerator does ("tp-cp-ep-dp-pp": the t ranks of a tensor group are
// consecutive, so they share a node; the pipeline stages are the farthest apart).
// Expert parallelism is carved out of data parallelism: d = e x d', the order places the factor e
// at "ep" and d' at "dp". Groups:
//   tensor   t ranks  varying tp           a layer's matrix shards (TP collectives)
//   context  c ranks  varying cp           one sequence's shards (ring attention)
//   expert   e ranks  varying ep           an MoE layer's experts (all-to-all)
//   data     d x c    varying ep, dp, cp   replicas of the dense weights (gradient reduction, ZeRO)
//   expert_data d x c / e  varying dp, cp  replicas of one expert's weights
//   pipeline p ranks  varying pp           stages (send/recv of activations)
//   model    t x p    varying tp, pp       one replica's shards (the gradient norm before the step)
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "models/parallel/hybrid.hpp"

namespace dtsim {

enum class Dim { Tensor = 0, Context, Expert, Data, Pipeline };
constexpr int kDims = 5;
enum class GroupKind { Tensor = 0, Context, Expert, Data, ExpertData, Pipeline, Model };
constexpr int kGroupKinds = 7;

std::string_view dim_name(Dim d);  // "tp", "cp", "ep", "dp", "pp"
std::string_view group_kind_name(
    GroupKind g);  // "tensor", "context", "expert", "data", "expert_data", "pipeline", "model"

struct Coords {
  std::array<int, kDims> at{};  // by Dim; at[Data] is the index along d' (the data dimension without e)
  int operator[](Dim d) const { return at[static_cast<int>(d)]; }
  int& operator[](Dim d) { return at[static_cast<int>(d)]; }
};

// Parses a rank order: the five names joined by '-', each once. Throws InputError (no location)
// naming what was given and what is valid.
std::array<Dim, kDims> parse_rank_order(std::string_view text);

class HybridLayout {
 public:
  // `layout.data` resolved (> 0); throws InputError when e does not divide d or the order is bad.
  explicit HybridLayout(const HybridSpec& layout);

  int size() const { return size_; }  // t x c x d x p ranks
  int extent(Dim d) const { return extent_[static_cast<int>(d)]; }
  Coords coords(int rank) const;
  int rank_of(const Coords& c) const;
  // The members of `rank`'s group of `kind`, ascending (group rank i is the i-th).
  std::vector<int> group(int rank, GroupKind kind) const;
  // Every group of `kind`, each ascending, ordered by their first member.
  std::vector<std::vector<int>> groups(GroupKind kind) const;
  int stage(int rank) const { return coords(rank)[Dim::Pipeline]; }

 private:
  std::array<int, kDims> extent_{};
  std::array<int, kDims> stride_{};
  int size_ = 1;
};

// Dimensions that vary within a group of `kind`.
std::vector<Dim> group_dims(GroupKind kind);

}  // namespace dtsim
