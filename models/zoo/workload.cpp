// Workload totals, synthetic workloads and the compiled-in model zoo.
#include "models/zoo/workload.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/base/error.hpp"
#include "core/base/suggest.hpp"
#include "models/zoo/embedded_data.hpp"
#include "models/zoo/model_file.hpp"
#include "models/zoo/transformer.hpp"

namespace dtsim {
namespace {

constexpr std::string_view kZooPrefix = "models/";
constexpr std::string_view kZooSuffix = ".yaml";

// The zoo model `name` as its file defines it; nullopt when the zoo has no such file. The zoo is compiled in and
// never changes, so each file is parsed once per process (a sweep loads every point's model: parsing ResNet-50's
// table took most of a point's 5.8 ms load, bench_sweep BM_SweepPointLoad).
std::optional<ModelDefinition> zoo_definition(std::string_view name) {
  static std::mutex mutex;
  static std::map<std::string, std::optional<ModelDefinition>, std::less<>> parsed;
  const std::lock_guard lock(mutex);
  if (const auto found = parsed.find(name); found != parsed.end()) return found->second;
  const std::string path = fmt::format("{}{}{}", kZooPrefix, name, kZooSuffix);
  const auto text = name.find('/') == std::string_view::npos ? data::find(path) : std::nullopt;
  std::optional<ModelDefinition> definition;
  if (text) definition = parse_model_definition(*text, "models/zoo/data/" + path);
  return parsed.emplace(std::string(name), std::move(definition)).first->second;
}

template <typename Field>
double sum_of(const std::vector<Layer>& layers, Field field) {
  double total = 0;
  for (const auto& layer : layers) total += layer.*field;
  return total;
}

}  // namespace

double Workload::total_params() const { return sum_of(layers, &Layer::params); }
double Workload::fwd_flops_per_sample() const { return sum_of(layers, &Layer::fwd_flops); }
double Workload::bwd_flops_per_sample() const { return sum_of(layers, &Layer::bwd_flops); }
double Workload::activations_per_sample() const { return sum_of(layers, &Layer::activations); }

Workload make_synthetic(double params, double fwd_flops_per_sample, int layers) {
  if (layers < 1) throw InputError(fmt::format("a synthetic workload needs at least 1 layer, not {}", layers));
  if (!(params >= 0) || !(fwd_flops_per_sample >= 0)) {
    throw InputError(fmt::format("a synthetic workload needs non-negative params and FLOPs (got {} and {})", params,
                                 fwd_flops_per_sample));
  }
  Workload w;
  w.name = "synthetic";
  w.source = fmt::format("synthetic: {:g} params and {:g} forward FLOPs per sample over {} equal layers; bwd = 2 x fwd",
                         params, fwd_flops_per_sample, layers);
  w.input = "1 sample";
  // Each layer takes the share that brings the running sum to its exact fraction of the total, so the sums that
  // Workload's totals compute give back `params` and `fwd_flops_per_sample` exactly.
  double params_so_far = 0;
  double flops_so_far = 0;
  for (int i = 1; i <= layers; ++i) {
    Layer layer;
    layer.name = fmt::format("layer_{}", i - 1);
    const double fraction = static_cast<double>(i) / layers;
    layer.params = (i == layers ? params : params * fraction) - params_so_far;
    layer.fwd_flops = (i == layers ? fwd_flops_per_sample : fwd_flops_per_sample * fraction) - flops_so_far;
    layer.bwd_flops = 2 * layer.fwd_flops;
    params_so_far += layer.params;
    flops_so_far += layer.fwd_flops;
    w.layers.push_back(std::move(layer));
  }
  return w;
}

std::vector<std::string> zoo_model_names() {
  std::vector<std::string> names;
  for (const auto& f : data::files()) {
    if (f.path.starts_with(kZooPrefix) && f.path.ends_with(kZooSuffix)) {
      const auto stem = f.path.substr(kZooPrefix.size(), f.path.size() - kZooPrefix.size() - kZooSuffix.size());
      if (stem.find('/') == std::string_view::npos) names.emplace_back(stem);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Workload load_zoo_model(std::string_view name) {
  if (auto definition = zoo_definition(name)) return std::move(definition->workload);
  const auto names = zoo_model_names();
  const auto match = closest_match(name, names);
  const std::string hint = match ? fmt::format("did you mean '{}'? ", *match) : std::string();
  throw InputError(fmt::format("unknown model '{}' ({}valid: {})", name, hint, fmt::join(names, ", ")));
}

std::optional<TransformerSpec> zoo_transformer(std::string_view name) {
  auto definition = zoo_definition(name);
  return definition ? definition->shape : std::nullopt;
}

}  // namespace dtsim
