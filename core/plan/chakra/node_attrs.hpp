// A Chakra node's attributes that dtsim reads, found in one pass over the node (a trace may hold
// millions of nodes; looking each name up again per question would cost more than the rest).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/chakra/et_trace.hpp"

namespace dtsim {

enum class NodeKey {
  NumOps,
  TensorSize,
  CommType,
  CommSize,
  CommSrc,
  CommDst,
  CommTag,
  PgName,
  Stream,
  Phase,
  Layer,
  MicroBatch,
  Period,
  Dtype,
  KernelClass,
  Gemm,
  Host,
  UpdateParams,
  UpdateLaunches,
  Algorithm,
  Reread,
};
inline constexpr int kNodeKeys = static_cast<int>(NodeKey::Reread) + 1;

std::string_view node_key_name(NodeKey k);  // the attribute's name in a trace (core/plan/chakra/attrs.hpp)

class NodeAttrs {
 public:
  // Calls `unknown(attr)` for each attribute that is neither read nor on the list of those ignored.
  template <class Unknown>
  NodeAttrs(const EtNode& node, Unknown&& unknown) {
    for (const EtAttr& a : node.attrs) {
      const int k = key_of(a.name);
      if (k >= 0) {
        at_[static_cast<size_t>(k)] = &a.value;
      } else if (k == kUnknown) {
        unknown(a);
      }
    }
  }

  const EtValue* value(NodeKey k) const { return at_[static_cast<size_t>(k)]; }
  std::optional<double> number(NodeKey k) const;  // integers and doubles (a bool as 0 or 1)
  std::optional<std::string> text(NodeKey k) const;

 private:
  static constexpr int kIgnored = -1, kUnknown = -2;
  static int key_of(std::string_view name);  // a NodeKey, kIgnored or kUnknown

  std::array<const EtValue*, kNodeKeys> at_{};
};

}  // namespace dtsim
