// The table of collective algorithms by name: a fixed list of the instances defined one per
// file in this folder (no registration at start-up, nothing mutable).
#include <array>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/base/error.hpp"
#include "core/base/suggest.hpp"
#include "models/collectives/detail.hpp"

namespace dtsim {
namespace {

// Sorted by name.
const std::array<const CollectiveAlgorithm*, 6>& table() {
  static const std::array<const CollectiveAlgorithm*, 6> algorithms{
      &collectives::direct_algorithm(),
      &collectives::double_binary_tree_algorithm(),
      &collectives::halving_doubling_algorithm(),
      &collectives::hierarchical_algorithm(),
      &collectives::nccl_algorithm(),
      &collectives::ring_algorithm(),
  };
  return algorithms;
}

}  // namespace

std::vector<std::string_view> algorithm_names() {
  std::vector<std::string_view> names;
  for (const CollectiveAlgorithm* algorithm : table()) names.push_back(algorithm->name());
  return names;
}

const CollectiveAlgorithm& find_algorithm(std::string_view name) {
  for (const CollectiveAlgorithm* algorithm : table()) {
    if (algorithm->name() == name) return *algorithm;
  }
  const std::vector<std::string_view> names = algorithm_names();
  throw InputError(fmt::format("unknown collective algorithm '{}' (valid: {}){}", name, fmt::join(names, ", "),
                               did_you_mean(name, std::vector<std::string>(names.begin(), names.end()))));
}

}  // namespace dtsim
