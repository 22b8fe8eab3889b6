// trace.json's gaps on a rank's compute lane in the summary's categories: the events named "exposed communication"
// add up to the rank's exposed_comm_s in metrics.json, those named "waiting" to its wait_s (before this, every gap was
// "waiting", exposed communication included, while the summary counted the two apart).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

using dtsim::test::run_dtsim;

TEST_CASE("the trace's exposed communication and waiting add up to the metrics' per rank") {
  for (const char* engine : {"simgrid", "analytical"}) {
    const std::string out = dtsim::test::temp_dir(std::string("trace-categories-") + engine);
    const auto r = run_dtsim(std::string("run scenarios/quickstart.yaml --engine ") + engine +
                                 " --set strategy.allreduce.overlap=false --set stragglers.slow_workers=2 "
                                 "--set stragglers.slow_factor=3 --set run.warmup=0 --out '" +
                                 out + "'",
                             std::string("trace-categories-") + engine);
    INFO(engine << r.err);
    REQUIRE(r.code == 0);
    const auto m = nlohmann::json::parse(dtsim::test::slurp(out + "/metrics.json"));
    const auto t = nlohmann::json::parse(dtsim::test::slurp(out + "/trace.json"));
    std::map<int, double> exposed, waiting;
    for (const auto& e : t["traceEvents"]) {
      if (e.value("ph", "") != "X") continue;
      const int rank = e["args"]["rank"].get<int>();
      if (e["name"] == "exposed communication") {
        CHECK(e["cat"] == "exposed");
        exposed[rank] += e["dur"].get<double>() * 1e-6;
      } else if (e["name"] == "waiting") {
        CHECK(e["cat"] == "wait");
        waiting[rank] += e["dur"].get<double>() * 1e-6;
      }
    }
    const double iterations = m["iterations"].get<double>();
    double total_exposed = 0, total_waiting = 0;
    for (const auto& rank : m["per_rank"]) {
      const int id = rank["rank"].get<int>();
      INFO("rank " << id);
      CHECK(exposed[id] / iterations == Approx(rank["exposed_comm_s"].get<double>()).epsilon(1e-6).margin(1e-9));
      CHECK(waiting[id] / iterations == Approx(rank["wait_s"].get<double>()).epsilon(1e-6).margin(1e-9));
      total_exposed += exposed[id];
      total_waiting += waiting[id];
    }
    CHECK(total_exposed > 0);  // no overlap: every AllReduce is exposed
    CHECK(total_waiting > 0);  // the others wait for worker 2
    CHECK(waiting[2] < waiting[0]);
  }
}
