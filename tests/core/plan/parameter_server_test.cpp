// Parameter-server plans: when each worker's pushes start (strategy.parameter_server.overlap).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"

using namespace dtsim;

namespace {

constexpr const char* kPs = R"(name: ps
model:
  name: synthetic
  synthetic: {params: 4e6, flops_per_sample: 1GFLOP, layers: 8}
cluster:
  nodes: 3
  device: a100_40gb
strategy:
  kind: parameter_server
  parameter_server: {shards: 4}
)";

// The op of `r` whose label is `label`.
const Op& op_named(const RankProgram& r, const std::string& label) {
  const auto it = std::find_if(r.ops.begin(), r.ops.end(), [&](const Op& o) { return o.label == label; });
  REQUIRE(it != r.ops.end());
  return *it;
}

}  // namespace

TEST_CASE("with overlap a worker pushes each shard when the backward op of its first layer ends") {
  // 8 layers of 0.5e6 parameters, 4 even shards: shard j holds layers 2j and 2j + 1, so it is ready
  // once layer 2j's backward op has ended (the backward pass runs from layer 7 down to layer 0).
  const Plan plan = compile_plan(load_scenario_text(kPs, "ps.yaml", {"strategy.parameter_server.overlap=true"}));
  const RankProgram& worker = plan.ranks.at(plan.jobs.at(0).workers.at(0));
  for (int j = 0; j < 4; ++j) {
    INFO("shard " << j);
    const Op& push = op_named(worker, "push shard " + std::to_string(j));
    REQUIRE(push.deps.size() == 1);
    CHECK(worker.ops.at(static_cast<size_t>(push.deps.front())).label == "bwd layer_" + std::to_string(2 * j));
  }
  // It is the default. Without it every push waits for the whole backward pass (layer 0's backward op).
  const Plan by_default = compile_plan(load_scenario_text(kPs, "ps.yaml"));
  const RankProgram& w1 = by_default.ranks.at(by_default.jobs.at(0).workers.at(0));
  for (int j = 0; j < 4; ++j) {
    const std::string push = "push shard " + std::to_string(j);
    CHECK(op_named(w1, push).deps == op_named(worker, push).deps);
  }
  const Plan after = compile_plan(load_scenario_text(kPs, "ps.yaml", {"strategy.parameter_server.overlap=false"}));
  const RankProgram& w2 = after.ranks.at(after.jobs.at(0).workers.at(0));
  for (int j = 0; j < 4; ++j) {
    const Op& push = op_named(w2, "push shard " + std::to_string(j));
    CHECK(w2.ops.at(static_cast<size_t>(push.deps.front())).label == "bwd layer_0");
  }
}
