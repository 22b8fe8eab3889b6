// Scenarios with several jobs: placement, per-job keys, overrides and their errors.
#include <catch2/catch.hpp>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/scenario_error.hpp"

namespace {

const char* const kTwo = R"(name: two
cluster:
  nodes: 4
  devices_per_node: 2
  device: a100_80gb
jobs:
  - name: a
    model: {name: resnet50}
    placement: {first_local: 0, devices_per_node: 1}
  - name: b
    model:
      name: vgg16
    strategy: {kind: parameter_server}
    placement:
      first_local: 1
      devices_per_node: 1
)";

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  return dtsim::test::error_of(text, sets, "j.yaml");
}

}  // namespace

TEST_CASE("two jobs share a cluster on their own devices") {
  const auto s = dtsim::load_scenario_text(kTwo, "j.yaml");
  REQUIRE(s.jobs.size() == 2);
  CHECK(s.jobs[0].name == "a");
  CHECK(s.jobs[1].workload.name == "vgg16");
  CHECK(s.jobs[0].workers(s.cluster) == 4);
  CHECK(s.jobs[1].strategy.kind == dtsim::StrategyKind::ParameterServer);
  const dtsim::Plan plan = dtsim::compile_plan(s);
  REQUIRE(plan.jobs.size() == 2);
  CHECK(plan.jobs[0].workers.size() == 4);
  CHECK(plan.jobs[1].servers.size() == 1);
  for (int r : plan.jobs[0].workers) CHECK(plan.ranks[r].where.local == 0);
  for (int r : plan.jobs[1].workers) CHECK(plan.ranks[r].where.local == 1);
  CHECK(plan.ranks[plan.jobs[1].servers[0]].where.node == 4);  // a dedicated host after the cluster's nodes
}

TEST_CASE("overrides reach one job with jobs.N.key") {
  const auto s = dtsim::load_scenario_text(kTwo, "j.yaml", {"jobs.1.model.batch_per_worker=7"});
  CHECK(s.jobs[1].model.batch_per_worker == 7);
  CHECK(s.jobs[0].model.batch_per_worker == 32);
  CHECK(error_of(kTwo, {"model.batch_per_worker=7"}) ==
        "--set model.batch_per_worker=7: error: model.batch_per_worker: this scenario has a jobs list; use "
        "jobs.N.model.batch_per_worker");
  CHECK(error_of(kTwo, {"jobs.5.model.batch_per_worker=7"}) ==
        "--set jobs.5.model.batch_per_worker=7: error: jobs.5.model.batch_per_worker: there is no job 5");
}

TEST_CASE("mistakes inside a job point at the job's line") {
  std::string bad = kTwo;
  bad.replace(bad.find("      name: vgg16"), 17, "      nme: vgg16");
  CHECK(error_of(bad) == "j.yaml:12:7: error: unknown key 'jobs.1.model.nme' (did you mean 'name'?)");
  std::string overlap = kTwo;
  overlap.replace(overlap.find("first_local: 1"), 14, "first_local: 0");
  CHECK(error_of(overlap) == "j.yaml:15:20: error: job 'a' and job 'b' both use device 0 of node 0");
  CHECK(error_of(std::string(kTwo) + "model:\n  name: alexnet\n") ==
        "j.yaml:18:9: error: model.name: with a jobs list, job keys go inside each job");
  CHECK(error_of("cluster:\n  device: v100\njobs: []\n") ==
        "j.yaml:3:1: error: jobs: expected a list of jobs, each a mapping with model, strategy, placement, ...");
}
