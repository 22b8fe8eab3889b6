// Shrinking a hybrid-parallel scenario to the ranks launched, when fewer nodes or devices alone
// cannot (a tensor x pipeline layout larger than the world): a small transformer of the same kind
// on one node of `world` devices, keeping as many of the scenario's parallel dimensions as fit:
//   layout   tensor, context, pipeline and expert sizes each at most the scenario's, their product
//            dividing the world (data parallelism takes the rest); the one that keeps the most of
//            the scenario's dimensions above 1 wins, then the one with the most model parallelism
//   model    2 layers per pipeline rank and model chunk, hidden 256, 4 heads per tensor rank (the
//            scenario's grouped-query attention as one key/value head per tensor rank), 128 tokens
//            per context rank, a 2,048-word vocabulary, 2 experts per expert rank (top-k kept
//            where it fits)
//   batch    micro-batch 1, 2 micro-batches per pipeline stage on every data-parallel rank
// Everything else (schedule, virtual stages, ZeRO, recompute, sequence parallelism where the tensor
// size stays above 1, dtypes, optimizer) is the scenario's.
#pragma once

#include <string>
#include <vector>

#include "core/scenario/scenario.hpp"

namespace dtsim::real {

// The candidate shrinks, best first, each as overrides ("key=value", as --set takes them); none
// when the scenario is not a single hybrid job of a transformer. The launcher takes the first
// that compiles to `world` ranks.
std::vector<std::vector<std::string>> hybrid_shrinks(const Scenario& s, int world);

}  // namespace dtsim::real
