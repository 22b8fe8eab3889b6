// The rules a hybrid layout must keep for a transformer on a number of devices: sizes that divide
// the devices, the heads, the ffn width, the layers (over stages and model chunks), the sequence and
// the experts; no context parallelism with a sliding window; micro-batches that fill every data-parallel
// rank; a schedule that can run them. One function, used by the scenario loader (which names the key in
// the file) and by whatever searches layouts.
#pragma once

#include <optional>
#include <string>

#include "models/parallel/hybrid.hpp"
#include "models/zoo/transformer.hpp"

namespace dtsim {

struct LayoutProblem {
  std::string key;      // the job key that would fix it ("strategy.tensor", "strategy.pipeline.stages", ...)
  std::string message;  // what is wrong and what would be valid
};

// The first rule `h` breaks for `m` on `devices` devices, or none.
std::optional<LayoutProblem> layout_problem(const TransformerSpec& m, const HybridSpec& h, int devices);

}  // namespace dtsim
