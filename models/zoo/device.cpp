// The device zoo, loaded from the embedded models/zoo/data/devices.yaml.
#include "models/zoo/device.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <optional>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/base/error.hpp"
#include "core/base/suggest.hpp"
#include "core/base/units.hpp"
#include "models/zoo/attention.hpp"
#include "models/zoo/embedded_data.hpp"

namespace dtsim {
namespace {

constexpr std::string_view kDevicesFile = "devices.yaml";

YAML::Node devices_node() {
  const auto text = data::find(kDevicesFile);
  if (!text) throw RuntimeError("the device zoo (devices.yaml) is not compiled in");
  return YAML::Load(std::string(*text))["devices"];
}

double optional_quantity(const YAML::Node& n, const char* key, Quantity q) {
  const YAML::Node v = n[key];
  return v ? parse_quantity(v.as<std::string>(), q) : 0.0;
}

// A per-dtype fraction (kernels.gemm, kernels.conv): one number for every dtype, or a map from dtype
// names to numbers (the dtypes it leaves out get 0: no figure).
std::array<double, kDtypeCount> per_dtype(const YAML::Node& v) {
  std::array<double, kDtypeCount> out{};
  if (!v) return out;
  if (v.IsScalar()) {
    out.fill(v.as<double>());
    return out;
  }
  for (const auto& kv : v) out[static_cast<size_t>(parse_dtype(kv.first.as<std::string>()))] = kv.second.as<double>();
  return out;
}

}  // namespace

double DeviceSpec::peak(Dtype d) const {
  double p = 0;
  switch (d) {
    case Dtype::Fp32: p = peak_fp32; break;
    case Dtype::Tf32: p = peak_tf32; break;
    case Dtype::Fp16: p = peak_fp16; break;
    case Dtype::Bf16: p = peak_bf16; break;
    case Dtype::Fp8: p = peak_fp8; break;
  }
  return p > 0 ? p : peak_fp32;
}

std::vector<std::string> device_names() {
  std::vector<std::string> names;
  for (const auto& kv : devices_node()) names.push_back(kv.first.as<std::string>());
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

DeviceSpec parse_device(std::string_view name) {
  const YAML::Node all = devices_node();
  const YAML::Node n = all[std::string(name)];
  if (!n) {
    const auto names = device_names();
    throw InputError(
        fmt::format("unknown device '{}' (valid: {}){}", name, fmt::join(names, ", "), did_you_mean(name, names)));
  }
  DeviceSpec d;
  d.name = std::string(name);
  d.description = n["description"].as<std::string>();
  d.source = n["source"].as<std::string>();
  d.peak_fp32 = optional_quantity(n, "fp32", Quantity::FlopRate);
  d.peak_tf32 = optional_quantity(n, "tf32", Quantity::FlopRate);
  d.peak_fp16 = optional_quantity(n, "fp16", Quantity::FlopRate);
  d.peak_bf16 = optional_quantity(n, "bf16", Quantity::FlopRate);
  d.peak_fp8 = optional_quantity(n, "fp8", Quantity::FlopRate);
  d.mem_bandwidth = optional_quantity(n, "mem_bandwidth", Quantity::Rate);
  d.mem_capacity = optional_quantity(n, "mem_capacity", Quantity::Bytes);
  d.efficiency = n["efficiency"].as<double>();
  if (const YAML::Node k = n["kernels"]) {
    d.kernels.sms = k["sms"].as<int>();
    d.kernels.tile_m = k["tile"][0].as<int>();
    d.kernels.tile_n = k["tile"][1].as<int>();
    d.kernels.gemm = per_dtype(k["gemm"]);
    d.kernels.conv = per_dtype(k["conv"]);
    d.kernels.gemm_held = per_dtype(k["gemm_held"]);
    d.kernels.fp8_split = k["fp8_split"] ? k["fp8_split"].as<double>() : 0.0;
    // attention: {backend: {forward: f, backward: b}, ...} (models/zoo/attention.hpp)
    for (const auto& entry : k["attention"]) {
      const std::string backend = entry.first.as<std::string>();
      const std::optional<AttentionBackend> b = parse_attention_backend(backend);
      if (!b) throw InputError(fmt::format("devices.yaml: {}: kernels.attention: unknown backend '{}'", name, backend));
      d.kernels.attention[static_cast<size_t>(*b)] = {entry.second["forward"].as<double>(),
                                                      entry.second["backward"].as<double>()};
    }
    d.kernels.memory = k["memory"].as<double>();
    d.kernels.l2 = optional_quantity(k, "l2", Quantity::Bytes);
    d.kernels.layout_copy = k["layout_copy"] ? k["layout_copy"].as<double>() : 0.0;
    d.kernels.source = k["source"].as<std::string>();
  }
  if (const YAML::Node cc = n["compute_capability"])
    d.compute_capability = static_cast<int>(cc.as<double>() * 10 + 0.5);
  if (const YAML::Node pcie = n["pcie"]) d.pcie_generation = pcie.as<int>();
  if (const YAML::Node platform = n["platform"]) d.platform = platform.as<std::string>();
  if (const YAML::Node c = n["contention"]) {
    d.compute_under_comm = c["compute"].as<double>();
    d.contention_source = c["source"].as<std::string>();
  }
  return d;
}

}  // namespace

// The compiled-in zoo never changes: each device is parsed once per process (every point of a sweep looks its
// device up). An unknown name is not remembered: it throws each time.
DeviceSpec load_device(std::string_view name) {
  static std::mutex mutex;
  static std::map<std::string, DeviceSpec, std::less<>> parsed;
  const std::lock_guard lock(mutex);
  if (const auto found = parsed.find(name); found != parsed.end()) return found->second;
  return parsed.emplace(std::string(name), parse_device(name)).first->second;
}

}  // namespace dtsim
