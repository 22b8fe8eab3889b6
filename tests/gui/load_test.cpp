// Each kind of file the viewer opens loads: a trace, metrics.json and a run folder made by a real
// `dtsim run` of the quickstart scenario, the sample hybrid run (stages, micro-batches, memory by
// stage), the sample sweep folder and its files, and a scenario.
#include <sys/resource.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "gui/model/document.hpp"
#include "gui/model/json_scanner.hpp"
#include "gui_fixtures.hpp"
#include "tests/support/fork_run.hpp"

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

TEST_CASE("file kinds are detected, bad files give one clear error") {
  CHECK(detect_file_kind(DTSIM_SOURCE_DIR "/scenarios/quickstart.yaml") == FileKind::Scenario);
  CHECK(detect_file_kind(dtsim::test::sample_sweep() + "/results.json") == FileKind::Results);
  CHECK(detect_file_kind(DTSIM_SOURCE_DIR "/README.md") == FileKind::Unknown);
  CHECK(detect_file_kind("/nonexistent/thing.json") == FileKind::Unknown);
  CHECK_THROWS_WITH(load_document(DTSIM_SOURCE_DIR "/README.md"), Catch::Contains("README.md"));
  CHECK_THROWS_AS(load_document(DTSIM_SOURCE_DIR "/scenarios/quickstart.yaml"), ParseError);
}

TEST_CASE("a hybrid run folder loads: stages, micro-batches of every op, memory by stage, the bubble") {
  const std::string dir = dtsim::test::sample_hybrid();
  const Document d = load_document(dir);
  REQUIRE(d.kind == FileKind::RunFolder);
  REQUIRE(d.run->trace);
  REQUIRE(d.run->metrics);
  const Trace& t = *d.run->trace;
  CHECK(t.has_stages());
  CHECK(t.rank_count() == 8);
  // Every op's stage and micro-batch as written.
  const auto trace_json = nlohmann::json::parse(read_file(dir + "/trace.json"));
  std::multiset<std::tuple<double, int, int, int>> written, parsed;  // start, rank, stage, micro-batch
  for (const auto& e : trace_json["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const auto& a = e["args"];
    written.insert({e["ts"].get<double>(), a.value("rank", -1), a.value("stage", -1), a.value("micro_batch", -1)});
  }
  for (const auto& e : t.events) parsed.insert({e.start, e.rank, e.stage, e.micro_batch});
  CHECK(parsed == written);
  // Processes are the stages; every compute lane runs the forward and the backward (with its
  // recompute) of each of the 4 micro-batches, and the ranks of a stage run the same spans.
  std::set<std::string> processes;
  std::map<int, std::vector<std::tuple<int, std::string, double>>> spans_of_stage;
  for (const auto& lane : t.lanes) {
    processes.insert(lane.process_name);
    CHECK(lane.stage == (lane.rank < 4 ? 0 : 1));
    if (lane.name.find("compute") == std::string::npos) continue;
    std::map<std::string, std::set<int>> passes;
    std::vector<std::tuple<int, std::string, double>> spans;
    for (const auto& s : lane.micro_batches) {
      passes[t.kinds.info(s.kind).name].insert(s.micro_batch);
      spans.emplace_back(s.micro_batch, t.kinds.info(s.kind).name, s.start);
    }
    for (const char* pass : {"forward", "backward"}) CHECK(passes[pass] == std::set<int>{0, 1, 2, 3});
    CHECK(passes.count("recompute") == 0);  // full recompute runs inside each backward
    auto [it, first] = spans_of_stage.emplace(lane.stage, spans);
    if (!first) CHECK(it->second == spans);
  }
  CHECK(processes == std::set<std::string>{"pipeline stage 0", "pipeline stage 1"});
  CHECK(t.kinds.find("recompute") >= 0);
  // metrics.json: the bubble, memory per stage by category, each rank's stage and peak.
  const auto m_json = nlohmann::json::parse(read_file(dir + "/metrics.json"));
  const JobMetrics& m = d.run->metrics->top;
  REQUIRE(m.bubble_fraction);
  CHECK(*m.bubble_fraction == Approx(m_json["bubble_fraction"].get<double>()));
  CHECK(m.pipeline_bubble_s == Approx(m_json["wait_by_cause_s"]["pipeline_bubble"].get<double>()));
  REQUIRE(m.memory);
  CHECK(m.memory->device_bytes == m_json["memory"]["device_bytes"].get<double>());
  CHECK(m.memory->peak_bytes == m_json["memory"]["peak_bytes"].get<double>());
  CHECK(m.memory->fits);
  CHECK(m.memory->fits_device());
  REQUIRE(m.memory->stages.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const StageMemory& s = m.memory->stages[i];
    const auto& js = m_json["memory"]["per_stage"][i];
    CHECK(s.stage == static_cast<int>(i));
    CHECK(s.total_bytes == js["total_bytes"].get<double>());
    CHECK(s.activations_bytes == js["activations_bytes"].get<double>());
    CHECK(s.micro_batches_in_flight == js["micro_batches_in_flight"].get<int>());
    CHECK(s.parameters_bytes + s.gradients_bytes + s.optimizer_bytes + s.activations_bytes + s.communication_bytes ==
          Approx(s.total_bytes));
  }
  CHECK(m.memory->needed_bytes() == m.memory->peak_bytes);
  REQUIRE(m.ranks.size() == 8);
  for (const auto& r : m.ranks) {
    CHECK(r.stage == (r.rank < 4 ? 0 : 1));
    CHECK(r.memory_peak_bytes == m.memory->stages[r.stage].total_bytes);
  }
  CHECK(stage_ranks_label(m, 0) == "ranks 0-3");
  CHECK(stage_ranks_label(m, 1) == "ranks 4-7");
  CHECK(stage_ranks_label(m, 2).empty());
  CHECK(memory_verdict(*m.memory).find(": fits") != std::string::npos);
  // The compare table gains the bubble and the memory peak.
  const auto deltas = metric_deltas(m, m);
  CHECK(deltas.back().name == "memory peak per rank");
  CHECK(deltas[deltas.size() - 2].name == "pipeline bubble fraction");
}

TEST_CASE("memory in metrics.json: a layout that does not fit says so, a data-parallel run has none") {
  auto j = nlohmann::json::parse(R"({"iteration_time_s":{"mean":1},"bubble_fraction":0.25,
    "memory":{"device_bytes":80e9,"peak_bytes":120e9,"fits":false,"per_stage":[
      {"stage":0,"parameters_bytes":9e9,"gradients_bytes":9e9,"optimizer_bytes":14e9,"activations_bytes":88e9,
       "communication_bytes":0,"total_bytes":120e9,"micro_batches_in_flight":4},
      {"stage":1,"parameters_bytes":9e9,"gradients_bytes":9e9,"optimizer_bytes":14e9,"activations_bytes":20e9,
       "communication_bytes":0,"total_bytes":52e9,"micro_batches_in_flight":1}]},
    "per_rank":[{"rank":0,"stage":0},{"rank":1,"stage":0},{"rank":3,"stage":0},{"rank":2,"stage":1}]})");
  const RunMetrics r = run_metrics_from_json(j);
  REQUIRE(r.top.memory);
  CHECK_FALSE(r.top.memory->fits_device());
  CHECK(r.top.memory->peak_stage()->stage == 0);
  CHECK(memory_verdict(*r.top.memory) ==
        "does not fit (stage 0 needs 120 GB per rank, the device has 80 GB; 1 of 2 stages over)");
  CHECK(stage_ranks_label(r.top, 0) == "ranks 0, 1, 3");
  CHECK(stage_ranks_label(r.top, 1) == "rank 2");
  // A rank over the device even where "fits" was not written.
  j["memory"].erase("fits");
  CHECK_FALSE(run_metrics_from_json(j).top.memory->fits_device());
  const Document dp = load_document(dtsim::test::quickstart_run() + "/metrics.json");
  CHECK_FALSE(dp.run->metrics->top.memory);
  CHECK_FALSE(dp.run->metrics->top.bubble_fraction);
  CHECK(dp.run->metrics->top.ranks[0].stage == -1);
  CHECK(metric_deltas(dp.run->metrics->top, dp.run->metrics->top).size() == 10);
}

TEST_CASE("events with times no viewer can draw are left out and named, and other fields are clamped") {
  // These hung the viewer at 100 % CPU (ts = -1e308, ts >= 1e50, dur = 1e308).
  for (const char* bad : {R"("ts":-1e308,"dur":5)", R"("ts":1e50,"dur":5)", R"("ts":1,"dur":1e308)",
                          R"("ts":1,"dur":-1e300)", R"("ts":1e16,"dur":0)"}) {
    INFO(bad);
    const Trace t =
        parse_trace(std::string(R"({"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":10,"pid":0,"tid":0},)") +
                    R"({"name":"b","ph":"X",)" + bad + R"(,"pid":0,"tid":0}]})");
    CHECK(t.events.size() == 1);
    REQUIRE(t.problems.size() == 1);
    CHECK(t.problems[0].rfind("left out 1 event whose ts is not within +-1e15 us", 0) == 0);
    CHECK(t.t_max == 10);
  }
  // At the bounds the event stays; an iteration of a billion is drawn but not indexed; a pid beyond
  // int's range is clamped.
  const Trace t = parse_trace(
      R"({"traceEvents":[{"name":"a","ph":"X","ts":-1e15,"dur":1e15,"pid":1e30,"tid":0,"args":{"iteration":1e9}}]})");
  CHECK(t.problems.empty());
  REQUIRE(t.events.size() == 1);
  CHECK(t.events[0].iteration == -1);
  CHECK(t.iteration_starts.empty());
  CHECK(t.lanes[0].pid == 2147483647);
}

// Found by fuzz_gui_metrics (an hour's run, 2026-11-27): a count of 1.5e75 was cast to int unchecked.
TEST_CASE("a metrics.json with counts beyond an int names them and reads them as missing") {
  const auto j = nlohmann::json::parse(
      R"({"per_rank":[{"rank":1e300,"node":-2}],"iteration_time_s":{"mean":1},"workers":1.5e75,"iterations":2.5,)"
      R"("memory":{"per_stage":[{"stage":1e40,"micro_batches_in_flight":-1e20}]}})");
  const RunMetrics r = run_metrics_from_json(j);
  const std::vector<std::string> expected = {
      "metrics.json workers: is 1.5e+75, expected a whole number from 0 to 2147483647",
      "metrics.json iterations: is 2.5, expected a whole number from 0 to 2147483647",
  };
  CHECK(r.problems == expected);
  CHECK(r.top.workers == 0);
  CHECK(r.top.iterations == 0);
  REQUIRE(r.top.ranks.size() == 1);
  CHECK(r.top.ranks[0].rank == 0);
  CHECK(r.top.ranks[0].node == 0);
}

TEST_CASE("a metrics.json with fields of the wrong type names them instead of drawing empty charts") {
  const auto j = nlohmann::json::parse(
      R"({"per_rank":[],"iteration_time_s":{"mean":"fast"},"workers":"eight","jobs":[{"per_rank":[],"engine":3},7]})");
  const RunMetrics r = run_metrics_from_json(j);
  const std::vector<std::string> expected = {
      "metrics.json workers: is string, expected a number",
      "metrics.json iteration_time_s.mean: is string, expected a number",
      "metrics.json jobs.0.engine: is number, expected a string",
      "metrics.json jobs.1: is number, expected an object",
  };
  CHECK(r.problems == expected);
  Document d;
  d.run = RunData{nullptr, r};
  CHECK(d.problems() == expected);
  // A well-formed one has none.
  CHECK(run_metrics_from_json(nlohmann::json::parse(R"({"per_rank":[],"iteration_time_s":{"mean":1}})"))
            .problems.empty());
}

TEST_CASE(
    "a sort index beyond a long's range sorts at the end, not into undefined behaviour (found by fuzz_gui_trace)") {
  const Trace t = parse_trace(
      R"({"traceEvents":[{"name":"thread_sort_index","ph":"M","pid":0,"tid":1,"args":{"sort_index":7.7e94}},)"
      R"({"name":"thread_sort_index","ph":"M","pid":0,"tid":2,"args":{"sort_index":-1e300}},)"
      R"({"name":"a","ph":"X","ts":0,"dur":1,"pid":0,"tid":1},{"name":"b","ph":"X","ts":0,"dur":1,"pid":0,"tid":2}]})");
  REQUIRE(t.lanes.size() == 2);
  CHECK(t.lanes[0].tid == 2);
  CHECK(t.lanes[1].tid == 1);
}

TEST_CASE("values nested a hundred thousand deep are refused, not a stack overflow (found by fuzz_gui_trace)") {
  const std::string deep = R"({"traceEvents":[{"name":"a","ph":"X","ts":0,"dur":1,"pid":0,"tid":1,"args":{"x":)" +
                           std::string(100000, '[') + std::string(100000, ']') + "}}]}";
  CHECK_THROWS_WITH(parse_trace(deep), Catch::Contains("nested more than 256 deep"));
}

TEST_CASE("a trace too big to open in the memory there is is refused before it is read") {
  // Issue #51: the viewer read a trace whole whatever its size. In a child under `ulimit -v` of 1.2 GB (100 MB left
  // for data), a 100 MB trace (170 MB to open) is refused in one line; the same trace opens without the limit's
  // question, as the test's files do above.
  const std::string path = (std::filesystem::temp_directory_path() / "dtsim-gui-big-trace.json").string();
  std::ofstream(path) << "[";
  std::filesystem::resize_file(path, 100'000'000);
  const dtsim::test::ChildResult child = dtsim::test::fork_run([&] {
    const rlimit limit{1'200'000'000, 1'200'000'000};
    setrlimit(RLIMIT_AS, &limit);
    try {
      load_trace(path);
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
    return std::string("opened");
  });
  std::filesystem::remove(path);
  CHECK(child.output ==
        "the trace is 100 MB: opened, it would hold about 170 MB (1.7 B a byte), more than the 100 MB the 1.2 GB "
        "address space of `ulimit -v` leaves for data");
}
