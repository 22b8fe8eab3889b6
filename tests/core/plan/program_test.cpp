// Programs shared between ranks (Program, core/plan/plan.hpp): a data-parallel plan's workers hold
// one copy of their common program, and a rank that changes its ops gets its own copy first.
#include <catch2/catch.hpp>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/tiny_job.hpp"

using namespace dtsim;

TEST_CASE("a data-parallel plan's workers share one program") {
  const Scenario s = load_scenario_text(test::kTinyJob, "t.yaml", {"cluster.devices_per_node=2"});
  const Plan plan = compile_plan(s);
  const std::vector<int>& workers = plan.jobs.front().workers;
  REQUIRE(workers.size() == 8);
  const Program& first = plan.ranks[workers.front()].ops;
  REQUIRE(first.size() > 3);  // forward, backward, an AllReduce, the step
  for (int w : workers) CHECK(plan.ranks[w].ops.shares(first));
  // A plan of representatives compiles the first worker only, to the same ops.
  const Plan reps = compile_plan(s, PlanScope::Representatives);
  const Program& rep = reps.ranks[reps.jobs.front().workers.front()].ops;
  REQUIRE(rep.size() == first.size());
  for (size_t i = 0; i < rep.size(); ++i) {
    CHECK(rep[i].label == first[i].label);
    CHECK(rep[i].deps == first[i].deps);
    CHECK(rep[i].body.index() == first[i].body.index());
  }
  CHECK(reps.ranks[reps.jobs.front().workers.back()].ops.empty());
}

TEST_CASE("changing one rank's shared program leaves the others' as they were") {
  const Scenario s = load_scenario_text(test::kTinyJob, "t.yaml");
  Plan plan = compile_plan(s);
  RankProgram& a = plan.ranks[0];
  const RankProgram& b = plan.ranks[1];
  REQUIRE(a.ops.shares(b.ops));
  const size_t n = b.ops.size();
  const std::string label = b.ops[0].label;
  a.ops.edit()[0].label = "changed";
  a.ops.push_back(Op{});
  CHECK_FALSE(a.ops.shares(b.ops));
  CHECK(a.ops.size() == n + 1);
  CHECK(a.ops[0].label == "changed");
  CHECK(b.ops.size() == n);
  CHECK(b.ops[0].label == label);
  CHECK(plan.ranks[2].ops.shares(b.ops));  // the others still share theirs
  // A program nobody else holds is changed in place.
  const Op* before = &a.ops[0];
  a.ops.edit()[1].label = "again";
  CHECK(&a.ops[0] == before);
  // An empty program reads as empty and starts its own copy when written.
  Program none;
  CHECK(none.empty());
  CHECK(none.begin() == none.end());
  none.push_back(Op{});
  CHECK(none.size() == 1);
}
