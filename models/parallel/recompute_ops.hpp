// What a block runs again before its backward under each strategy.recompute mode (the rules: transformer_ops.hpp,
// Recompute).
#pragma once

#include <vector>

#include "models/parallel/transformer_ops.hpp"

namespace dtsim {

// Nothing, the attention core, the block's whole forward, or under torchtitan's per-op policy its forward less what
// the policy keeps.
std::vector<KernelStep> block_recompute(const TransformerSpec& m, const ShardShape& sh, Recompute mode);

}  // namespace dtsim
