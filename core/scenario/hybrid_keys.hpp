// The hybrid-parallel job keys (strategy.tensor, strategy.pipeline.*, strategy.zero, ...) and
// their checks across keys: the layout must cover the job's devices, and the model must split
// over it (layers over stages, heads over t, experts over e, the batch over micro-batches).
#pragma once

#include "core/scenario/key_table.hpp"

namespace dtsim {

// Appends the keys to the scenario key table (schema.cpp builds it).
void add_hybrid_keys(KeyTable& keys);

// Throws InputError at the key to change when job `index` (strategy.kind: hybrid) cannot run;
// does nothing for other strategies, but refuses hybrid keys set for them.
void check_hybrid(const Scenario& s, size_t index);

}  // namespace dtsim
