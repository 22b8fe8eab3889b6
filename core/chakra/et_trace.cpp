// Names of Chakra's node types and lookups of named attributes.
#include "core/chakra/et_trace.hpp"

#include <array>

namespace dtsim {

std::string_view et_node_type_name(int type) {
  static constexpr std::array<std::string_view, 11> kNames{
      "INVALID_NODE",   "METADATA_NODE",  "MEM_LOAD_NODE", "MEM_STORE_NODE", "COMP_NODE",      "COMM_SEND_NODE",
      "COMM_RECV_NODE", "COMM_COLL_NODE", "STORAGE_NODE",  "BATCH_NODE",     "CHECKPOINT_NODE"};
  if (type >= 0 && type < static_cast<int>(kNames.size())) return kNames[static_cast<size_t>(type)];
  return "an unknown type";
}

const EtAttr* find_attr(const std::vector<EtAttr>& attrs, std::string_view name) {
  for (const EtAttr& a : attrs) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::optional<double> attr_number(const std::vector<EtAttr>& attrs, std::string_view name) {
  const EtAttr* a = find_attr(attrs, name);
  if (a == nullptr) return std::nullopt;
  if (const auto* i = std::get_if<std::int64_t>(&a->value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&a->value)) return *d;
  if (const auto* b = std::get_if<bool>(&a->value)) return *b ? 1.0 : 0.0;
  return std::nullopt;
}

std::optional<std::string> attr_text(const std::vector<EtAttr>& attrs, std::string_view name) {
  const EtAttr* a = find_attr(attrs, name);
  if (a == nullptr) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(&a->value)) return *s;
  return std::nullopt;
}

std::optional<std::vector<std::int64_t>> attr_ints(const std::vector<EtAttr>& attrs, std::string_view name) {
  const EtAttr* a = find_attr(attrs, name);
  if (a == nullptr) return std::nullopt;
  if (const auto* v = std::get_if<std::vector<std::int64_t>>(&a->value)) return *v;
  return std::nullopt;
}

}  // namespace dtsim
