// A sweep folder's results: points kept in memory without their per-rank metrics, results.json
// written with each point's whole metrics read back from points.jsonl, as one nlohmann dump(2)
// of the whole document would write it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_results.hpp"

using namespace dtsim;

namespace {

// Metrics of one point as metrics.json has them (the fields the CSV reads, and per-rank arrays at the top and in
// the job), `seconds` its iteration time.
nlohmann::json metrics(double seconds, int ranks) {
  nlohmann::json per_rank = nlohmann::json::array();
  for (int r = 0; r < ranks; ++r) per_rank.push_back({{"rank", r}, {"compute_s", seconds / 2}});
  nlohmann::json m{{"iteration_time_s", {{"mean", seconds}, {"p50", seconds}, {"p95", seconds}, {"p99", seconds}}},
                   {"throughput_samples_per_s", 64 / seconds},
                   {"compute_fraction", 0.5},
                   {"comm_fraction", 0.25},
                   {"exposed_comm_fraction", 0.125},
                   {"wait_fraction", 0.375},
                   {"bytes_on_wire_per_iteration", 1e6},
                   {"per_rank", per_rank}};
  nlohmann::json job = m;
  m["jobs"] = nlohmann::json::array({job});
  return m;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

sweep::SweepManifest manifest(int points) {
  sweep::SweepManifest m;
  m.scenario = "test";
  m.param_keys = {"cluster.nodes"};
  for (int i = 1; i <= points; ++i) {
    sweep::SweepPointInfo p;
    p.params = {{"cluster.nodes", std::to_string(i)}};
    p.key = "cluster.nodes=" + std::to_string(i);
    p.workers = 4 * i;
    m.points.push_back(p);
  }
  return m;
}

}  // namespace

TEST_CASE("a point's summary drops the per-rank metrics at the top and in every job, and nothing else") {
  const nlohmann::json whole = metrics(0.5, 3);
  const nlohmann::json summary = sweep::without_ranks(whole);
  CHECK_FALSE(summary.contains("per_rank"));
  CHECK_FALSE(summary["jobs"][0].contains("per_rank"));
  nlohmann::json back = summary;
  back["per_rank"] = whole["per_rank"];
  back["jobs"][0]["per_rank"] = whole["jobs"][0]["per_rank"];
  CHECK(back == whole);
}

TEST_CASE("results.json takes each point's whole metrics from the journal, in the manifest's order") {
  const auto dir = std::filesystem::temp_directory_path() / "dtsim_sweep_results_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const sweep::SweepManifest m = manifest(4);
  sweep::PointResults done;
  {
    sweep::Journal journal(dir.string());
    // Out of order, point 2 twice (a resumed sweep ran it again: the last line counts), point 4 not journaled.
    journal.append(m.points[2].key, metrics(3.0, 12));
    journal.append(m.points[0].key, metrics(9.0, 4));
    journal.append(m.points[0].key, metrics(1.0, 4));
    journal.append(m.points[1].key, metrics(2.0, 8));
  }
  // A line torn by an interruption at the end of the journal is skipped.
  std::ofstream(dir / "points.jsonl", std::ios::app) << R"({"key":"cluster.nodes=2","metrics":{"iteration_ti)";
  for (int i = 0; i < 3; ++i) done[m.points[i].key] = sweep::without_ranks(metrics(i + 1.0, 4 * (i + 1)));
  done[m.points[3].key] = metrics(4.0, 16);
  sweep::write_results(dir.string(), m, done);

  nlohmann::json expected_points = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) {
    expected_points.push_back({{"params", {{"cluster.nodes", std::to_string(i + 1)}}},
                               {"workers", 4 * (i + 1)},
                               {"metrics", metrics(i + 1.0, 4 * (i + 1))}});
  }
  const nlohmann::json expected{{"schema_version", 1},
                                {"scenario", "test"},
                                {"params", m.param_keys},
                                {"mode", "weak"},
                                {"points", expected_points}};
  // The same text as one dump of the whole document.
  CHECK(read(dir / "results.json") == expected.dump(2) + "\n");
  // The CSV from the summaries: one row per point, in order.
  const std::string csv = read(dir / "results.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
  CHECK(csv.find("\n1,,4,1,") != std::string::npos);
  CHECK(csv.find("\n4,,16,4,") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("results.json of a sweep with no point done") {
  const auto dir = std::filesystem::temp_directory_path() / "dtsim_sweep_results_empty_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const sweep::SweepManifest m = manifest(2);
  sweep::write_results(dir.string(), m, {});
  const nlohmann::json expected{{"schema_version", 1},
                                {"scenario", "test"},
                                {"params", m.param_keys},
                                {"mode", "weak"},
                                {"points", nlohmann::json::array()}};
  CHECK(read(dir / "results.json") == expected.dump(2) + "\n");
  std::filesystem::remove_all(dir);
}
