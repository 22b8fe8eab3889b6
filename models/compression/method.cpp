// The table of compression methods: one entry per method, each with its traits (method.hpp).
#include "models/compression/method.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/base/suggest.hpp"

namespace dtsim {
namespace {

constexpr RealSupport kBoth{true, true};
constexpr RealSupport kAllReduceOnly{true, false};
constexpr RealSupport kPushesOnly{false, true};
constexpr RealSupport kNowhere{false, false};

// The entries. -Wswitch flags a method without one. int8 and qsgd pack integers that a float
// collective cannot sum, so dtsim-real runs them in parameter-server pushes only; a server cannot
// combine PowerSGD's factors (the scenario refuses it); the cuda backend has no qsgd kernel.
constexpr std::optional<MethodTraits> entry(CompressionMethod m) {
  using enum CompressionMethod;
  using enum Exchange;
  switch (m) {
    // name, exchange, dtsim-real --backend cpu and cuda, calibration kernel
    case None: return MethodTraits{m, "none", AllReduce, kBoth, kBoth, ""};
    case Fp16: return MethodTraits{m, "fp16", AllReduce, kBoth, kBoth, "fp16"};
    case Bf16: return MethodTraits{m, "bf16", AllReduce, kBoth, kBoth, "bf16"};
    case Int8: return MethodTraits{m, "int8", AllReduce, kPushesOnly, kPushesOnly, "int8"};
    case Qsgd: return MethodTraits{m, "qsgd", AllReduce, kPushesOnly, kNowhere, "qsgd"};
    case TopK: return MethodTraits{m, "topk", AllGather, kBoth, kBoth, "topk"};
    case RandomK: return MethodTraits{m, "randomk", AllGather, kBoth, kBoth, "randomk"};
    case Sign: return MethodTraits{m, "sign", AllGather, kBoth, kBoth, "sign"};
    case PowerSgd: return MethodTraits{m, "powersgd", LowRank, kAllReduceOnly, kAllReduceOnly, ""};
  }
  return std::nullopt;  // past the last method
}

// The methods are the enumerators from 0 up to the first without an entry.
constexpr size_t count_methods() {
  size_t n = 0;
  while (entry(static_cast<CompressionMethod>(n))) ++n;
  return n;
}

constexpr std::array<MethodTraits, count_methods()> kTable = [] {
  std::array<MethodTraits, count_methods()> table{};
  for (size_t i = 0; i < table.size(); ++i) table[i] = *entry(static_cast<CompressionMethod>(i));
  return table;
}();

}  // namespace

std::span<const MethodTraits> compression_methods() { return kTable; }

const MethodTraits& method_traits(CompressionMethod m) {
  const auto i = static_cast<size_t>(m);
  if (i >= kTable.size()) throw RuntimeError(fmt::format("compression method {} has no entry", i));
  return kTable[i];
}

std::string_view method_name(CompressionMethod m) { return method_traits(m).name; }

CompressionMethod parse_compression_method(std::string_view name) {
  std::vector<std::string> names;
  for (const MethodTraits& t : kTable) {
    if (t.name == name) return t.method;
    names.emplace_back(t.name);
  }
  throw InputError(fmt::format("unknown compression method '{}' (valid: {}){}", name, fmt::join(names, ", "),
                               did_you_mean(name, names)));
}

}  // namespace dtsim
