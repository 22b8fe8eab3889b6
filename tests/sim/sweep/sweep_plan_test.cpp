// Sweep parameters: lists, ranges, grids, strong-scaling batches, and errors before any run.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_plan.hpp"

using namespace dtsim;

namespace {
const std::string kQuickstart = std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
}

TEST_CASE("sweep params: lists and geometric and arithmetic ranges") {
  CHECK(sweep::parse_sweep_param("cluster.nodes=1,2,5").values == std::vector<std::string>{"1", "2", "5"});
  CHECK(sweep::parse_sweep_param("cluster.nodes=1..64:x2").values ==
        std::vector<std::string>{"1", "2", "4", "8", "16", "32", "64"});
  CHECK(sweep::parse_sweep_param("cluster.nodes=1..16:+4").values == std::vector<std::string>{"1", "5", "9", "13"});
  CHECK(sweep::parse_sweep_param("a.b=3..5").values == std::vector<std::string>{"3", "4", "5"});
  CHECK_THROWS_WITH(sweep::parse_sweep_param("cluster.nodes=1..8:y2"),
                    "--param cluster.nodes=1..8:y2: error: 'y2' is not a step (use :x2 for doubling or :+4 for "
                    "adding 4)");
  CHECK_THROWS_AS(sweep::parse_sweep_param("cluster.nodes"), InputError);
  CHECK_THROWS_AS(sweep::parse_sweep_param("cluster.nodes=8..1"), InputError);
  CHECK_THROWS_AS(sweep::parse_sweep_param("cluster.nodes=1,,2"), InputError);
}

TEST_CASE("sweep grid: every combination with the first param slowest") {
  const auto grid = sweep::expand_grid({sweep::parse_sweep_param("a=1,2"), sweep::parse_sweep_param("b=x,y,z")});
  REQUIRE(grid.size() == 6);
  CHECK(grid[0] == std::vector<std::string>{"a=1", "b=x"});
  CHECK(grid[5] == std::vector<std::string>{"a=2", "b=z"});
}

TEST_CASE("sweep plan: a bad key or value fails with the loader's error line") {
  sweep::SweepRequest r;
  r.scenario = kQuickstart;
  r.params = {"cluster.nodez=1,4"};
  CHECK_THROWS_WITH(sweep::plan_sweep(r),
                    Catch::StartsWith("--set cluster.nodez=1: error: unknown key 'cluster.nodez'"));
  r.params = {"cluster.nodes=2,x"};
  CHECK_THROWS_WITH(sweep::plan_sweep(r), Catch::StartsWith("--set cluster.nodes=x: error:"));
}

TEST_CASE("sweep plan: strong scaling keeps the smallest point's global batch") {
  sweep::SweepRequest r;
  r.scenario = kQuickstart;
  r.params = {"cluster.nodes=1..4:x2"};
  r.mode = sweep::ScalingMode::Strong;
  const sweep::SweepPlan plan = sweep::plan_sweep(r);
  REQUIRE(plan.scenarios.size() == 3);
  for (const auto& s : plan.scenarios) CHECK(s.workers() * s.job().model.batch_per_worker == 4 * 64);
  r.params = {"cluster.nodes=1,3"};
  CHECK_THROWS_WITH(sweep::plan_sweep(r), Catch::Contains("does not divide over 12 workers"));
  r.mode = sweep::ScalingMode::Weak;
  for (const auto& s : sweep::plan_sweep(r).scenarios) CHECK(s.job().model.batch_per_worker == 64);
}

TEST_CASE("sweep manifest round-trips through JSON") {
  sweep::SweepRequest r;
  r.scenario = kQuickstart;
  r.params = {"cluster.nodes=1,2", "model.batch_per_worker=8,16"};
  const sweep::SweepManifest m = sweep::plan_sweep(r).manifest;
  const sweep::SweepManifest back = sweep::manifest_from_json(sweep::manifest_json(m));
  REQUIRE(back.points.size() == 4);
  CHECK(back.points[3].key == m.points[3].key);
  CHECK(back.points[3].params == m.points[3].params);
  CHECK(back.points[3].workers == 8);
}
