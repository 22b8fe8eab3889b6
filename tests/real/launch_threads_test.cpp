// dtsim-real's launch() on the launcher-free mode's ranks (threads of one process), with an
// executor that needs no GPU: the path `dtsim-real --backend cuda --gpus N` takes on a GPU node
// (world checks, shrinking, the exit-3 agreement, gathering every rank's records and reports,
// metrics.json and trace.json on rank 0), held to what the MPI path writes.
#include <catch2/catch.hpp>

#include <set>

#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "real/launch.hpp"
#include "real/thread_team.hpp"
#include "tests/support/run_process.hpp"

using namespace dtsim;
using namespace dtsim::real;

namespace {

const std::string kTiny = std::string(DTSIM_SOURCE_DIR) + "/tests/real/data/tiny_allreduce.yaml";

// Reports every op of its rank as 1 ms long, back to back.
class FakeExecutor : public RealExecutor {
 public:
  explicit FakeExecutor(HostComm& comm) : comm_(comm) {}
  RunInfo run(const Plan& plan, Observer& observer) override {
    const Clock clock = comm_.aligned_clock();
    double t = clock.now();
    const RankProgram& me = plan.ranks.at(static_cast<size_t>(comm_.rank()));
    for (int k = 0; k < plan.warmup + plan.iterations; ++k) {
      for (size_t i = 0; i < me.ops.size(); ++i) {
        observer.on_op(OpRecord{comm_.rank(), k, static_cast<int>(i), t, t + 1e-3});
        t += 1e-3;
      }
    }
    RunInfo info;
    info.engine = "fake";
    info.fidelity = "real";
    info.wall_time_s = 0.01 * (comm_.rank() + 1);
    return info;
  }
  RankReport report() const override { return {}; }
  std::string device() const override { return "fake:" + std::to_string(comm_.rank()); }

 private:
  HostComm& comm_;
};

ExecutorFactory fake() {
  return [](HostComm& comm, const RealOptions&) { return std::make_unique<FakeExecutor>(comm); };
}

}  // namespace

TEST_CASE("launch on a thread team writes every rank's records, as under mpirun") {
  LaunchOptions o;
  o.scenario = kTiny;
  o.quiet = true;
  o.out = test::temp_dir("launch-threads");
  const int code = run_team(2, [&](HostComm& comm) { return launch(o, comm, fake()); });
  CHECK(code == 0);
  const auto metrics = nlohmann::json::parse(test::slurp(o.out + "/metrics.json"));
  CHECK(metrics["real"]["launcher"] == "threads of one process (--gpus)");
  CHECK(metrics["wall_time_s"].get<double>() == Approx(0.02));  // the slowest rank's
  REQUIRE(metrics["per_rank"].size() == 2);
  const auto trace = nlohmann::json::parse(test::slurp(o.out + "/trace.json"));
  std::set<int> ranks;
  int ops = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] == "wait" || e["cat"] == "exposed") continue;  // ops, not the compute lanes' gaps
    ++ops;
    ranks.insert(e["args"]["rank"].get<int>());
  }
  CHECK(ranks == std::set<int>{0, 1});
  CHECK(ops > 0);
}

TEST_CASE("launch on a thread team shrinks the scenario to the GPUs it has, or says --gpus") {
  LaunchOptions o;
  o.scenario = kTiny;  // 2 ranks
  o.quiet = true;
  o.out = test::temp_dir("launch-threads-shrunk");
  CHECK(run_team(1, [&](HostComm& comm) { return launch(o, comm, fake()); }) == 0);
  const auto metrics = nlohmann::json::parse(test::slurp(o.out + "/metrics.json"));
  CHECK(metrics["real"]["scenario_overrides"] == nlohmann::json::array({"cluster.nodes=1"}));

  o.shrink = false;
  try {
    run_team(1, [&](HostComm& comm) { return launch(o, comm, fake()); });
    FAIL("a 2-rank scenario ran on 1 thread without shrinking");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("needs 2 ranks (2 workers + 0 servers) but --gpus gave 1; use --gpus 2") != std::string::npos);
  }
}

TEST_CASE("one rank without its backend stops every rank of the team with its reason (exit 3)") {
  LaunchOptions o;
  o.scenario = kTiny;
  o.quiet = true;
  o.out = test::temp_dir("launch-threads-unavailable");
  const ExecutorFactory half = [](HostComm& comm, const RealOptions&) -> std::unique_ptr<RealExecutor> {
    if (comm.rank() == 1) throw BackendUnavailable("no GPU for this one");
    return std::make_unique<FakeExecutor>(comm);
  };
  try {
    run_team(2, [&](HostComm& comm) { return launch(o, comm, half); });
    FAIL("the team ran without rank 1's backend");
  } catch (const BackendUnavailable& e) {
    CHECK(std::string(e.what()) == "rank 1: no GPU for this one");
  }
}

TEST_CASE("the cpu backend refuses a thread team: its ranks are MPI processes") {
  LaunchOptions o;
  o.scenario = kTiny;
  o.quiet = true;
  o.out = test::temp_dir("launch-threads-cpu");
  CHECK_THROWS_WITH(run_team(2, [&](HostComm& comm) { return launch(o, comm); }),
                    Catch::Contains("the cpu backend runs its ranks as MPI processes only"));
}
