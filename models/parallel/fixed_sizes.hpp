// The sizes a layout search may hold fixed (the scenario's tune.fixed.* keys, dtsim tune's --fix): one table, so that
// both read the same names, fields and bounds.
#pragma once

#include <array>
#include <string_view>

#include "models/parallel/layout_space.hpp"

namespace dtsim {

struct FixedSize {
  std::string_view name;  // "tensor": tune.fixed.tensor, --fix tensor=N
  std::string_view what;  // for docs and errors
  int LayoutLimits::*field;
  int least;  // the smallest value that fixes it (0 for ZeRO's stage)
  int most;
};

inline constexpr std::array<FixedSize, 6> kFixedSizes{{
    {"tensor", "tensor-parallel size", &LayoutLimits::tensor, 1, 1 << 20},
    {"pipeline", "pipeline stages", &LayoutLimits::pipeline, 1, 1 << 20},
    {"context", "context-parallel size", &LayoutLimits::context, 1, 1 << 20},
    {"expert", "expert-parallel size", &LayoutLimits::expert, 1, 1 << 20},
    {"micro_batch", "micro-batch (searched as powers of two)", &LayoutLimits::micro_batch, 1, 1 << 20},
    {"zero", "ZeRO stage", &LayoutLimits::zero, 0, 3},
}};

}  // namespace dtsim
