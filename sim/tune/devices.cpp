// The search retargeted to N devices (devices.hpp).
#include "sim/tune/devices.hpp"

#include <optional>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "core/plan/hybrid/job.hpp"
#include "sim/tune/tuner.hpp"

namespace dtsim::tune {

DeviceTarget target_devices(const Scenario& given, const LayoutLimits& limits, int devices) {
  if (devices <= 0 || devices == given.job().devices(given.cluster)) return {};
  const int per_node = given.cluster.devices_per_node;
  if (given.jobs.size() != 1 || devices % per_node != 0 || given.job().strategy.kind != StrategyKind::Hybrid) {
    throw InputError(fmt::format(
        "--devices {}: a whole number of nodes of {} devices, for a scenario of one hybrid job", devices, per_node));
  }
  const HybridSpec h = job_layout(given, given.job());
  LayoutLimits first_limits = limits;
  first_limits.devices = devices;
  if (first_limits.max_tokens <= 0)
    first_limits.global_batch = h.global_batch > 0 ? h.global_batch : h.micro_batch * h.data;
  std::optional<HybridSpec> first;
  for_each_layout(given.job().model.transformer, first_limits, [&](const HybridSpec& l) {
    if (!first) first = l;
  });
  if (!first) {
    throw InputError(
        fmt::format("--devices {}: no layout of {} on {} devices takes a global batch of {} within the search's "
                    "limits (--fix, --max-*); try another --set strategy.global_batch",
                    devices, given.job().model.name, devices, first_limits.global_batch));
  }
  return {{fmt::format("cluster.nodes={}", devices / per_node)}, layout_overrides(*first)};
}

}  // namespace dtsim::tune
