// Each kind of file the viewer opens loads: a trace, metrics.json and a run folder made by a real
// `dtsim run` of the quickstart scenario, the sample sweep folder and its files, and a scenario.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "gui/model/document.hpp"
#include "gui/model/json_scanner.hpp"
#include "gui_fixtures.hpp"

using namespace dtsim::gui;

TEST_CASE("a real trace.json loads with every complete event, one compute lane per rank") {
  const std::string run = dtsim::test::quickstart_run();
  REQUIRE(!run.empty());
  const std::string text = read_file(run + "/trace.json");
  const Trace t = parse_trace(text);
  size_t complete = 0;
  const auto json = nlohmann::json::parse(text);
  for (const auto& e : json["traceEvents"]) complete += e["ph"] == "X";
  CHECK(t.events.size() == complete);
  CHECK(t.rank_count() == 8);
  int compute_lanes = 0;
  for (const auto& l : t.lanes) compute_lanes += l.name.find("compute") != std::string::npos;
  CHECK(compute_lanes == 8);
  for (const char* kind : {"forward", "backward", "allreduce"}) CHECK(t.kinds.find(kind) >= 0);
  CHECK(t.iteration_starts.size() == 11);  // a warm-up iteration and 10 measured
  CHECK(t.scenario == "quickstart");
  CHECK(detect_file_kind(run + "/trace.json") == FileKind::Trace);
}

TEST_CASE("metrics.json and a run folder load") {
  const std::string run = dtsim::test::quickstart_run();
  const Document m = load_document(run + "/metrics.json");
  CHECK(m.kind == FileKind::Metrics);
  REQUIRE(m.run);
  CHECK(!m.run->trace);
  REQUIRE(m.run->metrics);
  CHECK(m.run->metrics->top.ranks.size() == 8);
  CHECK(m.run->metrics->top.iteration_mean_s > 0);
  const double sum = m.run->metrics->top.compute_fraction + m.run->metrics->top.exposed_comm_fraction +
                     m.run->metrics->top.wait_fraction;
  CHECK(sum == Approx(1).epsilon(1e-6));
  const Document folder = load_document(run);
  CHECK(folder.kind == FileKind::RunFolder);
  REQUIRE(folder.run);
  CHECK(folder.run->trace);
  CHECK(folder.run->metrics);
  const auto deltas = metric_deltas(m.run->metrics->top, m.run->metrics->top);
  for (const auto& d : deltas) CHECK(d.delta() == 0);
}

TEST_CASE("the sample sweep folder loads with its fits and results") {
  const Document d = load_document(dtsim::test::sample_sweep());
  CHECK(d.kind == FileKind::SweepFolder);
  REQUIRE(d.sweep);
  const ScalingData& s = *d.sweep;
  CHECK(s.mode == "strong");
  CHECK(s.param == "cluster.nodes");
  REQUIRE(s.points.size() == 6);
  CHECK(!s.points[0].karp_flatt);
  CHECK(s.points[1].karp_flatt);
  REQUIRE(s.amdahl);
  REQUIRE(s.gustafson);
  CHECK(s.amdahl->residuals.size() == 6);
  CHECK(s.efficiency_below_threshold_at == 8);
  // The fitted curve passes near the points, as its residuals say.
  for (size_t i = 0; i < s.points.size(); ++i)
    CHECK(s.points[i].speedup - amdahl_speedup(s.amdahl->p, s.points[i].workers) ==
          Approx(s.amdahl->residuals[i]).margin(1e-4));
  CHECK(s.results.size() == 6);
  CHECK(s.results[2].first == 4);
  CHECK(amdahl_speedup(0.9, 10) == Approx(1 / (0.1 + 0.09)));
  CHECK(gustafson_speedup(0.9, 10) == Approx(9.1));
  CHECK(load_document(dtsim::test::sample_sweep() + "/scaling.json").sweep->results.size() == 6);
  CHECK(load_document(dtsim::test::sample_sweep() + "/results.json").sweep);
}

TEST_CASE("file kinds are detected; bad files give one clear error") {
  CHECK(detect_file_kind(DTSIM_SOURCE_DIR "/scenarios/quickstart.yaml") == FileKind::Scenario);
  CHECK(detect_file_kind(dtsim::test::sample_sweep() + "/results.json") == FileKind::Results);
  CHECK(detect_file_kind(DTSIM_SOURCE_DIR "/README.md") == FileKind::Unknown);
  CHECK(detect_file_kind("/nonexistent/thing.json") == FileKind::Unknown);
  CHECK_THROWS_WITH(load_document(DTSIM_SOURCE_DIR "/README.md"), Catch::Contains("README.md"));
  CHECK_THROWS_AS(load_document(DTSIM_SOURCE_DIR "/scenarios/quickstart.yaml"), ParseError);
}
