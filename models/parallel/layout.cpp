// HybridLayout: ranks from coordinates through the rank order's strides, and groups as the ranks
// that differ from one rank only along the group's dimensions.
#include "models/parallel/layout.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim {
namespace {

constexpr std::array<Dim, kDims> kAllDims{Dim::Tensor, Dim::Context, Dim::Expert, Dim::Data, Dim::Pipeline};

}  // namespace

std::string_view dim_name(Dim d) {
  switch (d) {
    case Dim::Tensor: return "tp";
    case Dim::Context: return "cp";
    case Dim::Expert: return "ep";
    case Dim::Data: return "dp";
    case Dim::Pipeline: return "pp";
  }
  return "?";
}

std::string_view group_kind_name(GroupKind g) {
  switch (g) {
    case GroupKind::Tensor: return "tensor";
    case GroupKind::Context: return "context";
    case GroupKind::Expert: return "expert";
    case GroupKind::Data: return "data";
    case GroupKind::ExpertData: return "expert_data";
    case GroupKind::Pipeline: return "pipeline";
    case GroupKind::Model: return "model";
  }
  return "?";
}

std::vector<Dim> group_dims(GroupKind kind) {
  switch (kind) {
    case GroupKind::Tensor: return {Dim::Tensor};
    case GroupKind::Context: return {Dim::Context};
    case GroupKind::Expert: return {Dim::Expert};
    case GroupKind::Data: return {Dim::Context, Dim::Expert, Dim::Data};
    case GroupKind::ExpertData: return {Dim::Context, Dim::Data};
    case GroupKind::Pipeline: return {Dim::Pipeline};
    case GroupKind::Model: return {Dim::Tensor, Dim::Pipeline};
  }
  return {};
}

std::array<Dim, kDims> parse_rank_order(std::string_view text) {
  const auto refuse = [&](const std::string& why) -> std::array<Dim, kDims> {
    throw InputError(
        fmt::format("rank order '{}' {} (valid: the five of tp, cp, ep, dp, pp joined by '-', each once, "
                    "fastest-varying first, e.g. tp-cp-ep-dp-pp)",
                    text, why));
  };
  std::array<Dim, kDims> order{};
  std::array<bool, kDims> seen{};
  size_t n = 0;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find('-', begin), text.size());
    const std::string_view name = text.substr(begin, end - begin);
    const auto found = std::find_if(kAllDims.begin(), kAllDims.end(), [&](Dim d) { return dim_name(d) == name; });
    if (found == kAllDims.end()) return refuse(fmt::format("names '{}'", name));
    if (seen[static_cast<int>(*found)]) return refuse(fmt::format("names '{}' twice", name));
    if (n == kDims) return refuse("has too many names");
    seen[static_cast<int>(*found)] = true;
    order[n++] = *found;
    begin = end + 1;
  }
  if (n != kDims) return refuse("misses some");
  return order;
}

HybridLayout::HybridLayout(const HybridSpec& layout) {
  if (layout.data < 1 || layout.tensor < 1 || layout.pipeline < 1 || layout.context < 1 || layout.expert < 1) {
    throw InputError("a hybrid layout needs every parallel size at least 1");
  }
  if (layout.data % layout.expert != 0) {
    throw InputError(
        fmt::format("expert parallel size {} must divide the data-parallel size {}", layout.expert, layout.data));
  }
  extent_[static_cast<int>(Dim::Tensor)] = layout.tensor;
  extent_[static_cast<int>(Dim::Context)] = layout.context;
  extent_[static_cast<int>(Dim::Expert)] = layout.expert;
  extent_[static_cast<int>(Dim::Data)] = layout.data / layout.expert;
  extent_[static_cast<int>(Dim::Pipeline)] = layout.pipeline;
  int stride = 1;
  for (Dim d : parse_rank_order(layout.rank_order)) {
    stride_[static_cast<int>(d)] = stride;
    stride *= extent_[static_cast<int>(d)];
  }
  size_ = stride;
}

Coords HybridLayout::coords(int rank) const {
  Coords c;
  for (int d = 0; d < kDims; ++d) c.at[d] = (rank / stride_[d]) % extent_[d];
  return c;
}

int HybridLayout::rank_of(const Coords& c) const {
  int rank = 0;
  for (int d = 0; d < kDims; ++d) rank += c.at[d] * stride_[d];
  return rank;
}

std::vector<int> HybridLayout::group(int rank, GroupKind kind) const {
  const Coords base = coords(rank);
  std::vector<int> members{0};
  // Start from the group's first member (its coordinates along the group's dimensions at 0).
  Coords first = base;
  const std::vector<Dim> dims = group_dims(kind);
  for (Dim d : dims) first[d] = 0;
  members[0] = rank_of(first);
  for (Dim d : dims) {
    const int step = stride_[static_cast<int>(d)];
    const size_t before = members.size();
    for (int i = 1; i < extent(d); ++i) {
      for (size_t m = 0; m < before; ++m) members.push_back(members[m] + i * step);
    }
  }
  std::sort(members.begin(), members.end());
  return members;
}

std::vector<std::vector<int>> HybridLayout::groups(GroupKind kind) const {
  std::vector<std::vector<int>> all;
  std::vector<bool> taken(static_cast<size_t>(size_), false);
  for (int r = 0; r < size_; ++r) {
    if (taken[static_cast<size_t>(r)]) continue;
    all.push_back(group(r, kind));
    for (int m : all.back()) taken[static_cast<size_t>(m)] = true;
  }
  return all;
}

}  // namespace dtsim
