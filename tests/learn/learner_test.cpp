// The Learner along simulated runs (analytical engine): top-k of 100% equals no compression bit
// for bit, error feedback rescues top-k 1%, a larger SSP bound means staler updates and more of
// them to the target, results repeat per seed, and the timeline is the same with and without it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "learn_fixtures.hpp"

using namespace dtsim;
using namespace dtsim::learn;

namespace {

using test::LearnRun;
using test::only;
using test::same_curve;
using Run = LearnRun;

Run run_text(const std::string& text, const std::vector<std::string>& sets) { return test::learn_run(text, sets); }
Run run(const std::vector<std::string>& sets) { return run_text(test::kLearnJob, sets); }

}  // namespace

TEST_CASE("the held-out loss falls along a BSP AllReduce run and reaches the target") {
  const Run r = run({});
  const ConvergenceResult& c = only(r);
  CHECK(c.updates == 200);
  CHECK(c.gradients == 4 * 200);
  CHECK(c.curve.front().updates == 0);
  CHECK(c.curve.front().time_s == 0);
  CHECK(c.curve.front().loss == Approx(std::log(10.0)));
  CHECK(c.curve.back().loss < 0.5 * c.curve.front().loss);
  REQUIRE(c.time_to_target_s);
  CHECK(*c.updates_to_target % 5 == 0);
  CHECK(c.mean_staleness == 0);
  // Time to target is the simulated end of that update's iteration.
  double end = 0;
  for (const OpRecord& rec : r.records) {
    if (rec.iteration == *c.updates_to_target - 1) end = std::max(end, rec.end);
  }
  CHECK(*c.time_to_target_s == end);
}

TEST_CASE("top-k of 100% trains exactly as no compression, bit for bit") {
  const Run none = run({});
  const Run all = run({"compression.method=topk", "compression.ratio=1"});
  // The AllGather of (index, value) pairs takes longer than the AllReduce: the numbers are the same, the times not.
  CHECK(same_curve(only(none), only(all), false));
  CHECK(only(none).curve.back().time_s < only(all).curve.back().time_s);
  const Run ps_none = run({"strategy.kind=parameter_server", "strategy.parameter_server.shards=2"});
  const Run ps_all = run({"strategy.kind=parameter_server", "strategy.parameter_server.shards=2",
                          "compression.method=topk", "compression.ratio=1"});
  CHECK(same_curve(only(ps_none), only(ps_all), false));
}

TEST_CASE("top-k 1% reaches the target with error feedback, later or never without") {
  const std::vector<std::string> topk{"compression.method=topk", "compression.ratio=0.01", "run.iterations=400"};
  std::vector<std::string> no_ef = topk;
  no_ef.push_back("compression.error_feedback=false");
  const ConvergenceResult with = only(run(topk)), without = only(run(no_ef));
  REQUIRE(with.updates_to_target);
  if (without.updates_to_target) CHECK(*without.updates_to_target > *with.updates_to_target);
  CHECK(with.curve.back().loss < without.curve.back().loss);
}

TEST_CASE("a larger SSP bound gives staler updates and needs more of them to reach the target") {
  // Eight workers, half of them ten times slower, two shards on a fast network: with a loose bound
  // the fast workers run ahead and the slow workers' gradients arrive tens of updates stale.
  auto ssp = [](int bound) {
    return only(run({"cluster.nodes=8", "cluster.nic.rate=100Gbps", "model.synthetic.params=1e6",
                     "strategy.kind=parameter_server", "strategy.parameter_server.shards=2",
                     "stragglers.slow_workers=0,1,2,3", "stragglers.slow_factor=10", "sync.policy=ssp",
                     "sync.staleness=" + std::to_string(bound), "run.iterations=100", "run.convergence.lr=0.5",
                     "run.convergence.batch=128", "run.convergence.eval_every=1", "run.convergence.target_loss=0.55"}));
  };
  const ConvergenceResult tight = ssp(0), loose = ssp(40);
  CHECK(tight.max_staleness == 7);  // N - 1: every other worker's update of the shard, no more
  CHECK(loose.max_staleness > 4 * tight.max_staleness);
  // The mean need not grow: under the loose bound most updates come from the fast workers, and each
  // of theirs sees mostly its three fast peers' updates, not the seven others' of the tight bound
  // (metrics.json's mean staleness of this job is lower under the loose bound on both engines).
  REQUIRE(tight.updates_to_target);
  REQUIRE(loose.updates_to_target);
  CHECK(*loose.updates_to_target > *tight.updates_to_target);
  CHECK(loose.curve.back().loss > tight.curve.back().loss);
}

TEST_CASE("the Learner is deterministic per seed") {
  for (const std::string method : {"none", "randomk", "qsgd"}) {
    const Run a = run({"compression.method=" + method}), b = run({"compression.method=" + method});
    CHECK(same_curve(only(a), only(b)));
    const Run c = run({"compression.method=" + method, "run.seed=2"});
    CHECK(only(c).curve.back().loss != only(a).curve.back().loss);
  }
}

TEST_CASE("a run has the same timeline with and without the Learner") {
  for (const std::string strategy : {"allreduce", "parameter_server"}) {
    const Run on = run({"strategy.kind=" + strategy, "compression.method=int8", "run.iterations=20"});
    const Run off = run(
        {"strategy.kind=" + strategy, "compression.method=int8", "run.iterations=20", "run.convergence.enabled=false"});
    CHECK(off.results.empty());
    REQUIRE(on.records.size() == off.records.size());
    bool same = true;
    for (size_t i = 0; i < on.records.size(); ++i) {
      const OpRecord &a = on.records[i], &b = off.records[i];
      same = same && a.rank == b.rank && a.op == b.op && a.iteration == b.iteration && a.start == b.start &&
             a.end == b.end;
    }
    CHECK(same);
  }
}

TEST_CASE("local SGD averages the models every period and still converges") {
  const ConvergenceResult c = only(run({"sync.policy=local_sgd", "sync.period=4"}));
  CHECK(c.updates == 200);
  CHECK(c.time_to_target_s);
}

TEST_CASE("under BSP the numbers do not depend on the network: only the times do") {
  const ConvergenceResult slow = only(run({"cluster.nic.rate=1Gbps"})), fast = only(run({"cluster.nic.rate=100Gbps"}));
  CHECK(same_curve(slow, fast, false));
  CHECK(slow.curve.back().time_s > fast.curve.back().time_s);
  REQUIRE(slow.time_to_target_s);
  CHECK(*slow.updates_to_target == *fast.updates_to_target);
  CHECK(*slow.time_to_target_s > *fast.time_to_target_s);
}

TEST_CASE("the MLP proxy trains along a parameter-server run, the same way every time") {
  const std::vector<std::string> sets{"run.convergence.model=mlp", "run.convergence.hidden=16",
                                      "strategy.kind=parameter_server", "sync.policy=asp", "run.iterations=50"};
  const ConvergenceResult a = only(run(sets)), b = only(run(sets));
  CHECK(a.updates == 4 * 50);
  CHECK(same_curve(a, b));
  CHECK(a.curve.back().loss < 0.5 * a.curve.front().loss);
}

TEST_CASE("on compression_vs_bandwidth, compression wins at 10 Gbps and loses with a 100 Gbps NIC per GPU") {
  auto jobs = [](const std::vector<std::string>& sets) {
    std::vector<std::string> all{"run.engine=analytical"};
    all.insert(all.end(), sets.begin(), sets.end());
    const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/compression_vs_bandwidth.yaml", all);
    const Plan plan = compile_plan(s);
    Recorder rec;
    analytical::AnalyticalExecutor(s.cluster).run(plan, rec);
    return train_jobs(s, plan, rec.records(), load_split(s));
  };
  const auto slow = jobs({});
  REQUIRE(slow.size() == 3);
  for (const auto& r : slow) REQUIRE(r.time_to_target_s);
  CHECK(*slow[2].time_to_target_s < *slow[0].time_to_target_s);  // PowerSGD before plain AllReduce
  CHECK(*slow[1].time_to_target_s < *slow[0].time_to_target_s);  // top-k 1% too
  const auto fast = jobs({"cluster.nic.count=8", "cluster.nic.rate=100Gbps"});
  CHECK(*fast[0].time_to_target_s < *fast[2].time_to_target_s);  // plain AllReduce before PowerSGD
  const auto no_ef = jobs({"jobs.1.compression.error_feedback=false"});
  CHECK_FALSE(no_ef[1].time_to_target_s);
}

TEST_CASE("the gradient is complete when the last layer with parameters has its backward done") {
  // Worker 1 is 4x slower: its parameter-free first layer finishes its backward after the others stepped.
  std::string text = test::kLearnJob;
  text.replace(text.find("  name: synthetic\n"), std::string("  name: synthetic\n").size(),
               "  file: data/param_free_first_layer.yaml\n");
  text.replace(text.find("  synthetic: {"),
               text.find('\n', text.find("  synthetic: {")) - text.find("  synthetic: {") + 1, "");
  for (const std::string strategy : {"allreduce", "parameter_server"}) {
    const Run r = run_text(text, {"strategy.kind=" + strategy, "run.iterations=20", "stragglers.slow_workers=1",
                                  "stragglers.slow_factor=4"});
    CHECK(only(r).updates == 20);
  }
}
