// Seconds by what communication is for (comm_kind's names: the group kinds, "p2p", "gossip",
// "other"), held inline: a run copies one per rank into its metrics, and a map would allocate for
// each. Iterates in name order, as a std::map of the names would.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include <nlohmann/json_fwd.hpp>

namespace dtsim {

class KindSeconds {
 public:
  using Item = std::pair<std::string_view, double>;
  // Every name comm_kind gives (core/run/metrics.hpp), sorted.
  static constexpr std::size_t kKinds = 10;

  // The kind's seconds, added at 0 when absent. Throws RuntimeError for a name comm_kind never gives.
  double& operator[](std::string_view kind);
  double at(std::string_view kind) const;  // throws RuntimeError when absent
  std::size_t count(std::string_view kind) const { return find(kind) ? 1 : 0; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Item* begin() const { return items_.data(); }
  const Item* end() const { return items_.data() + size_; }

 private:
  const Item* find(std::string_view kind) const;
  std::array<Item, kKinds> items_{};  // the first size_, sorted by name; names point at static text
  std::size_t size_ = 0;
};

// A JSON object of the kinds present: {"data": 0.01, ...}.
void to_json(nlohmann::json& out, const KindSeconds& k);

}  // namespace dtsim
