// The Learner under backup workers and gossip (analytical engine): backup_workers 0 trains as BSP
// without overlap bit for bit; with a 3x straggler and one backup worker each update averages the
// N-1 gradients that were ready first (never the straggler's); gossip keeps the workers' models
// close and its mean model reaches the target; with 2 workers the AD-PSGD recursion holds exactly;
// results repeat per seed and the timeline is the same with and without the Learner.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "learn/events.hpp"
#include "learn/sync_rule.hpp"
#include "learn_fixtures.hpp"

using namespace dtsim;
using namespace dtsim::learn;

namespace {

using test::only;
using test::same_curve;
using Run = test::LearnRun;

Scenario scenario(const std::vector<std::string>& sets) { return test::learn_scenario(test::kLearnJob, sets); }
Run run(const std::vector<std::string>& sets) { return test::learn_run(test::kLearnJob, sets); }

bool same_records(const std::vector<OpRecord>& x, const std::vector<OpRecord>& y) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const OpRecord &a = x[i], &b = y[i];
    if (a.rank != b.rank || a.op != b.op || a.iteration != b.iteration || a.start != b.start || a.end != b.end) {
      return false;
    }
  }
  return true;
}

const std::vector<std::string> kBackup = {"sync.policy=backup", "sync.backup_workers=1", "stragglers.slow_workers=3",
                                          "stragglers.slow_factor=3"};

}  // namespace

TEST_CASE("backup workers with b = 0 train exactly as BSP without overlap, bit for bit") {
  const Run backup = run({"sync.policy=backup", "sync.backup_workers=0"});
  const Run bsp = run({"strategy.allreduce.overlap=false"});
  CHECK(same_curve(only(backup), only(bsp)));
  REQUIRE(only(backup).kept_gradients);
  CHECK(*only(backup).kept_gradients == 4 * 200);
  CHECK_FALSE(only(bsp).kept_gradients);
  CHECK(only(backup).policy == "allreduce backup(0)");
}

TEST_CASE("backup workers with b = 0 and a compressor still train exactly as BSP without overlap") {
  for (const std::string method : {"topk", "qsgd", "powersgd"}) {
    const std::vector<std::string> c = {"compression.method=" + method, "compression.ratio=0.05", "run.iterations=60"};
    auto backup = c, bsp = c;
    backup.insert(backup.end(), {"sync.policy=backup", "sync.backup_workers=0"});
    bsp.push_back("strategy.allreduce.overlap=false");
    CHECK(same_curve(only(run(backup)), only(run(bsp))));
  }
}

TEST_CASE("backup workers exchange the kept gradients through the compressor, each with its own error feedback") {
  for (const std::string method : {"topk", "powersgd"}) {
    auto sets = kBackup;
    sets.insert(sets.end(), {"compression.method=" + method, "compression.ratio=0.05"});
    const ConvergenceResult c = only(run(sets));
    REQUIRE(c.kept_gradients);
    CHECK(*c.kept_gradients == 3 * 200);
    CHECK(c.time_to_target_s);
  }
}

TEST_CASE("with a 3x straggler and one backup worker every update averages the 3 first gradients") {
  const Run r = run(kBackup);
  const ConvergenceResult& c = only(r);
  CHECK(c.updates == 200);
  CHECK(c.gradients == 4 * 200);  // everyone computes (the straggler's is abandoned)
  REQUIRE(c.kept_gradients);
  CHECK(*c.kept_gradients == 3 * 200);
  // Per iteration: exactly 3 kept, never the straggler, all at the moment the quorum passed.
  std::map<int, std::vector<int>> kept;
  for (const LearnEvent& e : learner_events(r.plan, 0, r.records)) {
    if (e.kind == EventKind::Kept) kept[e.iteration].push_back(e.worker);
  }
  REQUIRE(kept.size() == 200);
  bool three = true, straggler = false;
  for (const auto& [it, workers] : kept) {
    three = three && workers.size() == 3;
    for (int w : workers) straggler = straggler || w == 3;
  }
  CHECK(three);
  CHECK_FALSE(straggler);
  REQUIRE(c.time_to_target_s);
  // It reaches the target sooner in simulated time than BSP with the same straggler.
  const ConvergenceResult bsp = only(run({"stragglers.slow_workers=3", "stragglers.slow_factor=3"}));
  REQUIRE(bsp.time_to_target_s);
  CHECK(*c.time_to_target_s < *bsp.time_to_target_s);
}

TEST_CASE("the quorum keeps the first N-b gradients: never a straggler's, even one cut in its last op") {
  // Worker 0 straggles. 1.02x: it is cut in its last backward op (all its ops ran, the last one shortened);
  // without a straggler the 4 equal workers tie and 3 of them are kept, each iteration.
  for (const std::string factor : {"1.02", "3", "1"}) {
    const Run r = run({"sync.policy=backup", "sync.backup_workers=1", "stragglers.slow_workers=0",
                       "stragglers.slow_factor=" + factor, "run.iterations=30"});
    std::map<int, std::vector<int>> kept;
    for (const LearnEvent& e : learner_events(r.plan, 0, r.records)) {
      if (e.kind == EventKind::Kept) kept[e.iteration].push_back(e.worker);
    }
    REQUIRE(kept.size() == 30);
    bool three = true, straggler = false;
    for (const auto& [it, workers] : kept) {
      three = three && workers.size() == 3;
      for (int w : workers) straggler = straggler || w == 0;  // the lowest rank: ties by rank would keep it
    }
    CHECK(three);
    if (factor != "1") CHECK_FALSE(straggler);
  }
}

TEST_CASE("gossip keeps the workers' models close and their mean model reaches the target") {
  const ConvergenceResult c = only(run({"sync.policy=gossip", "run.iterations=300"}));
  CHECK(c.policy == "allreduce gossip");
  CHECK(c.updates == 4 * 300);  // every worker's step is an update
  REQUIRE(c.final_consensus);
  CHECK(*c.mean_consensus > 0);
  CHECK(*c.mean_consensus <= *c.max_consensus);
  // Bounded: each averaging halves the gap between two models while a step adds at most lr |g|,
  // so the spread stays at the scale of a few steps instead of growing with the run.
  CHECK(*c.max_consensus < 0.1);
  CHECK(*c.final_consensus <= *c.max_consensus);
  CHECK(c.time_to_target_s);
}

TEST_CASE("gossip with 2 workers follows the AD-PSGD recursion exactly") {
  // Each exchange is with the other worker: both models become their average, then each worker
  // steps on its own gradient, taken on its model before the exchange. So after round k the mean
  // model is m_k - lr (g0(x0) + g1(x1)) / 2 and the consensus distance is (lr/2)^2 |g0 - g1|^2.
  const Scenario s = scenario({});
  const Split data = load_split(s);
  Training t(s.run.convergence, CompressionSpec{}, data, 2, 11),
      oracle(s.run.convergence, CompressionSpec{}, data, 2, 11);
  const auto rule = make_gossip_rule(t, 2);
  const double lr = t.lr();
  Eigen::VectorXd x0 = oracle.initial(), x1 = oracle.initial();
  double time = 0, consensus = 0;
  for (int k = 0; k < 3; ++k) {
    const auto event = [&](EventKind kind, int w) {
      rule->on(LearnEvent{time += 1, kind, k, w, -1, kind == EventKind::Gossip ? 1 - w : -1, w, 0});
    };
    event(EventKind::Gradient, 0);
    event(EventKind::Gradient, 1);
    const Eigen::VectorXd g0 = oracle.gradient(0, x0), g1 = oracle.gradient(1, x1);
    event(EventKind::Gossip, 0);
    event(EventKind::Gossip, 1);
    event(EventKind::WorkerStep, 0);
    event(EventKind::WorkerStep, 1);
    const Eigen::VectorXd m = 0.5 * (x0 + x1);
    x0 = m - lr * g0;
    x1 = m - lr * g1;
    consensus = 0.25 * lr * lr * (g0 - g1).squaredNorm();
  }
  const Eigen::VectorXd expected = 0.5 * (x0 + x1);
  CHECK((rule->model() - expected).cwiseAbs().maxCoeff() <= 1e-12 * expected.cwiseAbs().maxCoeff());
  const ConvergenceResult c = t.finish(time, rule->model());
  CHECK(c.updates == 6);
  REQUIRE(c.final_consensus);
  CHECK(*c.final_consensus == Approx(consensus).epsilon(1e-9));
}

TEST_CASE("backup workers and gossip are deterministic per seed") {
  for (const auto& sets : {kBackup, std::vector<std::string>{"sync.policy=gossip"}}) {
    const Run a = run(sets), b = run(sets);
    CHECK(same_curve(only(a), only(b)));
    auto other = sets;
    other.push_back("run.seed=2");
    CHECK(only(run(other)).curve.back().loss != only(a).curve.back().loss);
  }
}

TEST_CASE("backup workers and gossip have the same timeline with and without the Learner") {
  for (auto sets : {kBackup, std::vector<std::string>{"sync.policy=gossip", "stragglers.slow_workers=1"}}) {
    sets.push_back("run.iterations=20");
    const Run on = run(sets);
    sets.push_back("run.convergence.enabled=false");
    const Run off = run(sets);
    CHECK(off.results.empty());
    CHECK_FALSE(on.results.empty());
    CHECK(same_records(on.records, off.records));
  }
}
