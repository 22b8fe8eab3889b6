// A sweep's table (sim/sweep/sweep_table.hpp): a row per point and job, each cell its job's own metric, the scaling
// analysis on the first job's rows only, results.csv and the Python rows written from the same cells.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_table.hpp"

using namespace dtsim;
using Json = nlohmann::json;

namespace {

// One job's metrics as metrics.json has them: `seconds` its iteration time, a transformer's tokens when `tokens`.
Json job(const std::string& name, int workers, double seconds, bool tokens) {
  Json m{{"job", name},
         {"workers", workers},
         {"iteration_time_s", {{"mean", seconds}, {"p50", seconds}, {"p95", 1.1 * seconds}, {"p99", 1.2 * seconds}}},
         {"throughput_samples_per_s", 64 / seconds},
         {"tokens_per_s", tokens ? Json(64 / seconds * 2048) : Json()},
         {"tokens_per_s_per_device", tokens ? Json(64 / seconds * 2048 / workers) : Json()},
         {"mfu", 0.25 / seconds},
         {"hfu", 0.3 / seconds},
         {"compute_fraction", 0.5},
         {"comm_fraction", 0.25},
         {"exposed_comm_fraction", 0.125},
         {"wait_fraction", 0.375},
         {"bytes_on_wire_per_iteration", 1e6 * workers}};
  return m;
}

// A point of two jobs: metrics.json's top level is the first job's, `jobs` both.
Json point(double seconds) {
  const Json a = job("llm, big", 8, seconds, true);
  const Json b = job("cnn", 4, 2 * seconds, false);
  Json m = a;
  m["jobs"] = Json::array({a, b});
  return m;
}

sweep::SweepManifest manifest() {
  sweep::SweepManifest m;
  m.param_keys = {"cluster.nodes"};
  for (int i : {1, 2}) {
    sweep::SweepPointInfo p;
    p.params = {{"cluster.nodes", std::to_string(i)}};
    p.key = "cluster.nodes=" + std::to_string(i);
    p.workers = 8 * i;
    m.points.push_back(p);
  }
  return m;
}

size_t column(const sweep::SweepTable& t, const std::string& name) {
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c] == name) return c;
  }
  FAIL("no column " << name);
  return 0;
}

}  // namespace

TEST_CASE("a sweep of two jobs has a row for each job of each point, each with its own metrics", "[sweep]") {
  const sweep::SweepManifest m = manifest();
  const sweep::PointResults done{{"cluster.nodes=1", point(1.0)}, {"cluster.nodes=2", point(0.5)}};
  const sweep::ScalingReport report =
      sweep::analyze_scaling({{8, 1.0, 64.0}, {16, 0.5, 128.0}}, 0.8, sweep::ScalingMode::Weak);
  const sweep::SweepTable t = sweep::sweep_table(m, done, report);
  CHECK(t.several_jobs);
  CHECK_FALSE(t.convergence);
  CHECK(t.columns.front() == "cluster.nodes");
  CHECK(t.columns[1] == "job");
  CHECK(std::find(t.columns.begin(), t.columns.end(), "time_to_target_s") == t.columns.end());
  REQUIRE(t.rows.size() == 4);
  const std::vector<std::string> jobs{"llm, big", "cnn", "llm, big", "cnn"};
  for (size_t i = 0; i < 4; ++i) {
    const Json& point_metrics = done.at(m.points[i / 2].key);
    const Json& own = point_metrics["jobs"][i % 2];
    INFO("row " << i);
    CHECK(t.rows[i].job == static_cast<int>(i % 2));
    CHECK(t.cells[i][column(t, "job")] == jobs[i]);
    CHECK(t.cells[i][column(t, "cluster.nodes")] == m.points[i / 2].params[0].second);
    for (const char* name : {"throughput_samples_per_s", "tokens_per_s", "tokens_per_s_per_device", "mfu", "hfu",
                             "compute_fraction", "bytes_on_wire_per_iteration"}) {
      CHECK(t.cells[i][column(t, name)] == own[name]);
    }
    CHECK(t.cells[i][column(t, "iteration_time_p99_s")] == own["iteration_time_s"]["p99"]);
    // The point's workers on the first job's row (what the scaling analysis measures), the job's own on the other.
    CHECK(t.cells[i][column(t, "workers")] == (i % 2 == 0 ? m.points[i / 2].workers : own["workers"].get<int>()));
    CHECK(t.cells[i][column(t, "speedup")] == (i % 2 == 0 ? Json(report.points[i / 2].speedup) : Json()));
    CHECK(t.cells[i][column(t, "memory_peak_bytes")].is_null());
  }
  CHECK(t.cells[1][column(t, "tokens_per_s")].is_null());  // the CNN has no sequence
}

TEST_CASE("results.csv and the Python rows are the table's cells", "[sweep]") {
  const sweep::SweepManifest m = manifest();
  const sweep::PointResults done{{"cluster.nodes=1", point(1.0)}, {"cluster.nodes=2", point(0.5)}};
  const sweep::SweepTable t = sweep::sweep_table(m, done, std::nullopt);
  const std::string csv = sweep::to_csv(t);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  CHECK(line.rfind("cluster.nodes,job,workers,iteration_time_s,", 0) == 0);
  std::getline(in, line);
  // A job name with a comma is quoted; an absent value (no scaling analysis) is an empty cell.
  CHECK(line.rfind("1,\"llm, big\",8,1,1,1.1,1.2,64,131072,16384,0.25,0.3,", 0) == 0);
  std::getline(in, line);
  CHECK(line.rfind("1,cnn,4,2,2,2.2,2.4,32,,,0.125,0.15,", 0) == 0);
  const Json rows = sweep::rows_json(t);
  REQUIRE(rows.size() == t.cells.size());
  for (size_t i = 0; i < t.cells.size(); ++i) {
    REQUIRE(rows[i].size() == t.columns.size());
    for (size_t c = 0; c < t.columns.size(); ++c) CHECK(rows[i][t.columns[c]] == t.cells[i][c]);
  }
}

TEST_CASE("a point without jobs[] (a single job's metrics) has one row, a convergence sweep has its columns",
          "[sweep]") {
  sweep::SweepManifest m = manifest();
  m.points.resize(1);
  Json single = job("main", 8, 1.0, false);
  single["convergence"] = {{"time_to_target_s", 12.5}, {"updates_to_target", nullptr}};
  const sweep::SweepTable t = sweep::sweep_table(m, {{"cluster.nodes=1", single}}, std::nullopt);
  CHECK_FALSE(t.several_jobs);
  CHECK(t.convergence);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.cells[0][column(t, "time_to_target_s")] == 12.5);
  CHECK(t.cells[0][column(t, "updates_to_target")].is_null());
}
