// Names of the node attributes dtsim reads, and their lookup: one hash per attribute of a node.
#include "core/plan/chakra/node_attrs.hpp"

#include <unordered_map>

#include "core/plan/chakra/attrs.hpp"

namespace dtsim {
namespace {

namespace a = chakra_attr;

constexpr std::array<std::string_view, kNodeKeys> kNames{
    a::kNumOps,      a::kTensorSize, a::kCommType, a::kCommSize,     a::kCommSrc,        a::kCommDst,   a::kCommTag,
    a::kPgName,      a::kStream,     a::kPhase,    a::kLayer,        a::kMicroBatch,     a::kPeriod,    a::kDtype,
    a::kKernelClass, a::kGemm,       a::kHost,     a::kUpdateParams, a::kUpdateLaunches, a::kAlgorithm, a::kReread};

}  // namespace

std::string_view node_key_name(NodeKey k) { return kNames[static_cast<size_t>(k)]; }

int NodeAttrs::key_of(std::string_view name) {
  static const std::unordered_map<std::string_view, int> keys = [] {
    std::unordered_map<std::string_view, int> m;
    for (int k = 0; k < kNodeKeys; ++k) m.emplace(kNames[static_cast<size_t>(k)], k);
    for (std::string_view ignored : a::kIgnored) m.emplace(ignored, kIgnored);
    return m;
  }();
  const auto it = keys.find(name);
  return it == keys.end() ? kUnknown : it->second;
}

std::optional<double> NodeAttrs::number(NodeKey k) const {
  const EtValue* v = value(k);
  if (v == nullptr) return std::nullopt;
  if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  if (const auto* b = std::get_if<bool>(v)) return *b ? 1.0 : 0.0;
  return std::nullopt;
}

std::optional<std::string> NodeAttrs::text(NodeKey k) const {
  const EtValue* v = value(k);
  if (v == nullptr) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  return std::nullopt;
}

}  // namespace dtsim
