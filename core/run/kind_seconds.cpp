// Seconds by communication kind, inline (kind_seconds.hpp).
#include "core/run/kind_seconds.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "models/parallel/layout.hpp"

namespace dtsim {
namespace {

// The names comm_kind gives, sorted, as views of static text.
const std::array<std::string_view, KindSeconds::kKinds>& kind_names() {
  static const std::array<std::string_view, KindSeconds::kKinds> names = [] {
    std::array<std::string_view, KindSeconds::kKinds> out{};
    size_t n = 0;
    for (int g = 0; g < kGroupKinds; ++g) out[n++] = group_kind_name(static_cast<GroupKind>(g));
    for (std::string_view other : {"p2p", "gossip", "other"}) out[n++] = other;
    if (n != out.size()) throw RuntimeError("KindSeconds: kKinds is not the number of communication kinds");
    std::sort(out.begin(), out.end());
    return out;
  }();
  return names;
}

}  // namespace

double& KindSeconds::operator[](std::string_view kind) {
  Item* const first = items_.data();
  Item* const last = first + size_;
  Item* at = std::lower_bound(first, last, kind, [](const Item& i, std::string_view k) { return i.first < k; });
  if (at != last && at->first == kind) return at->second;
  const auto& names = kind_names();
  const auto name = std::lower_bound(names.begin(), names.end(), kind);
  if (name == names.end() || *name != kind) {
    throw RuntimeError(fmt::format("metrics: '{}' is not a kind of communication", kind));
  }
  std::move_backward(at, last, last + 1);
  *at = Item{*name, 0.0};
  ++size_;
  return at->second;
}

double KindSeconds::at(std::string_view kind) const {
  if (const Item* i = find(kind)) return i->second;
  throw RuntimeError(fmt::format("metrics: no communication of kind '{}'", kind));
}

const KindSeconds::Item* KindSeconds::find(std::string_view kind) const {
  const Item* const last = end();
  const Item* at = std::lower_bound(begin(), last, kind, [](const Item& i, std::string_view k) { return i.first < k; });
  return at != last && at->first == kind ? at : nullptr;
}

void to_json(nlohmann::json& out, const KindSeconds& k) {
  out = nlohmann::json::object();
  for (const auto& [kind, seconds] : k) out[std::string(kind)] = seconds;
}

}  // namespace dtsim
