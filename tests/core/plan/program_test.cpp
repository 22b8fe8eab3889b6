// Programs shared between ranks (Program, core/plan/plan.hpp): a data-parallel plan's workers hold
// one copy of their common program, and a rank that changes its ops gets its own copy first.
#include <catch2/catch.hpp>

#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

namespace {

// A program as text: every op's label, stream, phase, layer, deps, kind, bytes, FLOPs and period.
std::string describe(const Program& p) {
  std::string out;
  for (const Op& op : p) {
    out += op.label + "|" + std::to_string(static_cast<int>(op.stream)) + "|" +
           std::to_string(static_cast<int>(op.phase)) + "|" + std::to_string(op.layer) + "|";
    for (int d : op.deps) out += std::to_string(d) + ",";
    out += "|" + std::string(op_kind_name(op.body)) + "|" + std::to_string(op_bytes(op.body)) + "|" +
           std::to_string(op_flops(op.body)) + "|" + std::to_string(op.period) + "\n";
  }
  return out;
}

// Every worker's program of `s`, compiled on a thread of its own: no program compiled before it on this thread.
std::vector<std::string> fresh_programs(const Scenario& s) {
  std::vector<std::string> out;
  std::thread([&] {
    const Plan plan = compile_plan(s);
    for (const RankProgram& r : plan.ranks) out.push_back(describe(r.ops));
  }).join();
  return out;
}

}  // namespace

TEST_CASE("a worker program compiled once for points that share a job equals one compiled afresh") {
  // The compiler keeps the last data-parallel worker program it compiled on a thread (a sweep's points that differ
  // only in their cluster compile it once): each point, compiled after a point of another size, must get the ops
  // a fresh compile gives it, with and without the settings whose ops depend on the number of workers.
  const std::vector<std::vector<std::string>> variants = {
      {},
      {"compression.method=topk", "compression.ratio=0.01"},
      {"sync.policy=backup", "sync.backup_workers=1"},
      {"strategy.allreduce.algorithm=double_binary_tree"},
      {"strategy.allreduce.overlap=false"},
  };
  const std::string file = std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  for (const auto& variant : variants) {
    for (const int nodes : {1, 2, 3, 8, 2}) {
      std::vector<std::string> sets = variant;
      sets.push_back("cluster.nodes=" + std::to_string(nodes));
      INFO(fmt::format("{} at {} nodes", fmt::join(variant, " "), nodes));
      const Scenario s = load_scenario(file, sets);
      const Plan plan = compile_plan(s);
      const std::vector<std::string> fresh = fresh_programs(s);
      REQUIRE(fresh.size() == plan.ranks.size());
      for (size_t r = 0; r < plan.ranks.size(); ++r) CHECK(describe(plan.ranks[r].ops) == fresh[r]);
    }
  }
}
