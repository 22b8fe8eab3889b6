// A Chakra execution trace of one rank in plain C++ (no protobuf types): its metadata and its nodes
// with their dependencies, durations and named attributes. core/chakra/et_file.hpp reads and writes
// it; core/plan/chakra/import.hpp turns a set of them into a Plan.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace dtsim {

// Chakra's NodeType values (et_def.proto). A trace may hold others: a node keeps its raw number.
enum class EtNodeType : int {
  Invalid = 0,
  Metadata = 1,
  MemLoad = 2,
  MemStore = 3,
  Compute = 4,
  Send = 5,
  Recv = 6,
  Collective = 7,
  Storage = 8,
  Batch = 9,
  Checkpoint = 10,
};
std::string_view et_node_type_name(int type);  // "COMP_NODE", ..., "type 42" for an unknown one

// Chakra's CollectiveCommType values (et_def.proto).
enum class EtCommType : int {
  AllReduce = 0,
  Reduce = 1,
  AllGather = 2,
  Gather = 3,
  Scatter = 4,
  Broadcast = 5,
  AllToAll = 6,
  ReduceScatter = 7,
  ReduceScatterBlock = 8,
  Barrier = 9,
};

// An attribute's value: every integer type of the schema as int64, float and double as double,
// string and bytes as string, and the lists likewise.
using EtValue = std::variant<std::int64_t, double, std::string, bool, std::vector<std::int64_t>, std::vector<double>,
                             std::vector<std::string>>;

struct EtAttr {
  std::string name;
  EtValue value;
};

struct EtNode {
  std::uint64_t id = 0;
  std::string name;
  int type = 0;  // an EtNodeType, or a number this schema does not know
  std::vector<std::uint64_t> ctrl_deps;
  std::vector<std::uint64_t> data_deps;
  std::uint64_t start_micros = 0;
  std::uint64_t duration_micros = 0;
  std::vector<EtAttr> attrs;
};

struct EtTrace {
  std::string version;
  std::vector<EtAttr> metadata;  // GlobalMetadata.attr
  std::vector<EtNode> nodes;
};

// The attribute named `name`, or null.
const EtAttr* find_attr(const std::vector<EtAttr>& attrs, std::string_view name);
// Its value as a number (integers and doubles; a bool as 0 or 1), or nullopt when absent or not a number.
std::optional<double> attr_number(const std::vector<EtAttr>& attrs, std::string_view name);
// Its value as text, or nullopt when absent or not a string.
std::optional<std::string> attr_text(const std::vector<EtAttr>& attrs, std::string_view name);
// Its value as a list of integers, or nullopt when absent or not an integer list.
std::optional<std::vector<std::int64_t>> attr_ints(const std::vector<EtAttr>& attrs, std::string_view name);

}  // namespace dtsim
