// Checks across keys once a scenario is read, and resolution of its workload.
#pragma once

#include <optional>
#include <string>

#include "core/scenario/scenario.hpp"

namespace dtsim {

// Throws InputError pointing at the key to change; fills each job's workload and defaults that depend on other keys.
void finish_scenario(Scenario& s);

// The `faults.*` checks of job `index` (core/scenario/fault_keys.cpp): loads faults.trace.
void finish_faults(const Scenario& s, size_t index, JobSpec& job);

// The `model.transformer.*` checks of job `index` (core/scenario/transformer_keys.cpp), once job.workload holds the
// model's rows (or, for model.name: transformer, only its name). `shape` is the model's own shape: the keys' defaults
// for model.name: transformer, a shape-defined zoo model's or model file's shape, nullopt for a layer table or a
// synthetic model. The keys the scenario sets override the shape; the result must make a transformer (else an error
// at the key, or at `model_key` when the value is the model's own) and becomes job.model.transformer, and the rows
// are generated from it when a key changed it. A key set for a model without a shape is refused.
void finish_transformer(const Scenario& s, size_t index, JobSpec& job, const std::optional<TransformerSpec>& shape,
                        const std::string& model_key);

// The `run.convergence.*` checks (core/scenario/convergence_keys.cpp): resolves and checks the data files.
void finish_convergence(Scenario& s);

}  // namespace dtsim
