// The tune model (gui/model/tune.hpp) on a real `dtsim tune` of GPT-3 175B (tests/gui/data/tune):
// every number as tune.json has it, a Pareto front that is non-dominated and covers every ranked
// layout, the command line of a row, file detection, and one clear error for each kind of bad file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "gui/model/document.hpp"
#include "gui/model/json_scanner.hpp"
#include "gui/widgets/tune_chart.hpp"
#include "gui_fixtures.hpp"

using namespace dtsim::gui;
namespace fs = std::filesystem;

namespace {

nlohmann::json sample_json() { return nlohmann::json::parse(read_file(dtsim::test::sample_tune() + "/tune.json")); }

// Writes `text` as `name` in a fresh folder of this test process and returns its path.
std::string write_sample(const std::string& name, const std::string& text) {
  const fs::path dir = fs::path(DTSIM_BINARY_DIR) / "test-output" / ("gui-tune-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

// The message load_document throws for `path`.
std::string load_error(const std::string& path) {
  try {
    load_document(path);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a real tune.json loads with every number as the file has it") {
  const Document doc = load_document(dtsim::test::sample_tune());
  CHECK(doc.kind == FileKind::TuneFolder);
  REQUIRE(doc.tune);
  const TuneData& d = *doc.tune;
  const nlohmann::json j = sample_json();
  // The writer's version (sim/tune/tune_json.hpp, which the viewer does not link) is the one this reader reads.
  CHECK(j["schema_version"] == kTuneSchemaRead);
  CHECK(d.scenario == j["scenario"].get<std::string>());
  CHECK(d.simgrid == j["simgrid"].get<bool>());
  CHECK(d.scenario_file == j["scenario_file"].get<std::string>());
  CHECK(d.objective == j["objective"].get<std::string>());
  CHECK(d.devices == j["devices"].get<int>());
  CHECK(d.device_counts == j["device_counts"].get<std::vector<int>>());
  CHECK(d.global_batch == j["global_batch"].get<int>());
  CHECK(d.layouts == j["layouts"].get<long>());
  CHECK(d.over_memory == j["over_memory"].get<long>());
  CHECK(d.over_memory > 0);  // GPT-3 on 80 GB: most layouts do not fit
  CHECK(d.commonest_overflow == j["commonest_overflow"].get<std::string>());
  CHECK(d.fitting_layouts() == j["layouts"].get<long>() - j["over_memory"].get<long>());
  CHECK(d.memory_allowed_bytes() ==
        Approx(j["device_memory_bytes"].get<double>() * j["max_memory_fraction"].get<double>()));
  CHECK(d.closed_form_seconds == j["closed_form_seconds"].get<double>());
  REQUIRE(d.pareto.size() == j["pareto"].size());
  for (size_t i = 0; i < d.pareto.size(); ++i) {
    CHECK(d.pareto[i].peak_memory_bytes == j["pareto"][i]["peak_memory_bytes"].get<double>());
    CHECK(d.pareto[i].closed_form_s == j["pareto"][i]["closed_form_s"].get<double>());
  }
  REQUIRE(d.ranked.size() == j["ranked"].size());
  int on_simgrid = 0;
  for (size_t i = 0; i < d.ranked.size(); ++i) {
    const TuneRow& r = d.ranked[i];
    const nlohmann::json& e = j["ranked"][i];
    INFO("row " << i << ": " << r.layout);
    CHECK(r.layout == e["layout"].get<std::string>());
    CHECK(r.set == e["set"].get<std::vector<std::string>>());
    CHECK(r.devices == e["devices"].get<int>());
    CHECK(r.closed_form_s == e["closed_form_s"].get<double>());
    // An engine that did not run the layout: null in the file, 0 here (time_on says none).
    for (const auto& [mine, key] : {std::pair{r.analytical_s, "analytical_s"}, std::pair{r.simgrid_s, "simgrid_s"}})
      CHECK(mine == (e[key].is_null() ? 0.0 : e[key].get<double>()));
    for (const auto& [mine, key] :
         {std::pair{r.analytical_error, "analytical_error"}, std::pair{r.simgrid_error, "simgrid_error"}})
      CHECK(mine == (e[key].is_null() ? "" : e[key].get<std::string>()));
    CHECK(r.iteration_time_s == e["iteration_time_s"].get<double>());
    CHECK(r.throughput_samples_per_s == e["throughput_samples_per_s"].get<double>());
    CHECK(r.mfu == e["mfu"].get<double>());
    CHECK(r.bubble_fraction == e["bubble_fraction"].get<double>());
    CHECK(r.peak_memory_bytes == e["peak_memory_bytes"].get<double>());
    CHECK(r.device_seconds_per_sample == e["device_seconds_per_sample"].get<double>());
    CHECK(r.exposed_comm_by_kind_s.size() == e["exposed_comm_by_kind_s"].size());
    for (const auto& [kind, s] : e["exposed_comm_by_kind_s"].items()) CHECK(r.exposed(kind) == s.get<double>());
    // The time a row is ranked by is its most exact engine's.
    CHECK(r.iteration_time_s == Approx(*r.time_on(r.most_exact_engine())));
    CHECK(r.peak_memory_bytes <= d.memory_allowed_bytes());
    on_simgrid += r.time_on(TuneEngine::SimGrid).has_value();
  }
  CHECK(on_simgrid == 1);  // --top 1
  CHECK(d.ranked[0].most_exact_engine() == TuneEngine::SimGrid);
  CHECK(d.engine_ran(TuneEngine::Analytical));
  const std::vector<std::string> kinds = d.exposed_kinds();
  for (const char* kind : {"tensor", "pipeline", "data"})
    CHECK(std::find(kinds.begin(), kinds.end(), kind) != kinds.end());
}

TEST_CASE("a tune over a token budget: each row's and front point's own batch, the chart in time per sample") {
  nlohmann::json j = sample_json();
  CHECK(j["tokens_per_step"].is_null());  // the sample keeps the job's batch
  const Document fixed = load_document(dtsim::test::sample_tune());
  CHECK_FALSE(fixed.tune->batch_searched);
  CHECK(fixed.tune->ranked[0].global_batch == fixed.tune->global_batch);
  CHECK(tune_point(*fixed.tune, fixed.tune->ranked[0]).y() == fixed.tune->ranked[0].iteration_time_s);
  // The same file as a search of 1.5M to 3M tokens would write it: rows and front points carry their batches.
  j["tokens_per_step"] = {1.5e6, 3e6};
  j["ranked"][0]["global_batch"] = 1456;
  j["pareto"][0]["global_batch"] = 1440;
  const Document doc = load_document(write_sample("tune.json", j.dump()));
  REQUIRE(doc.tune);
  const TuneData& d = *doc.tune;
  CHECK(d.batch_searched);
  CHECK(d.min_tokens == 1.5e6);
  CHECK(d.max_tokens == 3e6);
  CHECK(d.ranked[0].global_batch == 1456);
  CHECK(d.pareto[0].global_batch == 1440);
  // Drawn as it is ranked: milliseconds a sample at the row's own batch.
  CHECK(tune_point(d, d.ranked[0]).y() == Approx(1e3 * d.ranked[0].iteration_time_s / 1456));
  CHECK(tune_point(d, d.ranked[0]).x() == Approx(d.ranked[0].peak_memory_bytes / 1e9));
  j["tokens_per_step"] = {1.5e6};
  CHECK_THAT(load_error(write_sample("tune.json", j.dump())), Catch::Contains("tokens_per_step"));
}

TEST_CASE("the Pareto front is non-dominated and no ranked layout lies below it") {
  const TuneData d = load_tune(dtsim::test::sample_tune());
  REQUIRE(d.pareto.size() >= 2);
  for (size_t i = 0; i < d.pareto.size(); ++i) {
    for (size_t k = 0; k < d.pareto.size(); ++k) {
      if (i == k) continue;
      const ParetoPoint& a = d.pareto[i];
      const ParetoPoint& b = d.pareto[k];
      const bool dominates = b.peak_memory_bytes <= a.peak_memory_bytes && b.closed_form_s <= a.closed_form_s &&
                             (b.peak_memory_bytes < a.peak_memory_bytes || b.closed_form_s < a.closed_form_s);
      INFO("point " << k << " dominates point " << i);
      CHECK_FALSE(dominates);
    }
  }
  // By memory, so each step buys time with memory.
  for (size_t i = 1; i < d.pareto.size(); ++i) {
    CHECK(d.pareto[i].peak_memory_bytes > d.pareto[i - 1].peak_memory_bytes);
    CHECK(d.pareto[i].closed_form_s < d.pareto[i - 1].closed_form_s);
  }
  // Every layout that fits is on the front or behind it (closed form).
  for (const TuneRow& r : d.ranked) {
    INFO(r.layout);
    CHECK(std::any_of(d.pareto.begin(), d.pareto.end(), [&](const ParetoPoint& p) {
      return p.peak_memory_bytes <= r.peak_memory_bytes && p.closed_form_s <= r.closed_form_s * (1 + 1e-12);
    }));
  }
}

TEST_CASE("a row's dtsim run command: the search's own overrides the row does not replace, then the row's") {
  TuneData d = load_tune(dtsim::test::sample_tune());
  std::string expected = "dtsim run scenarios/gpt3_175b_megatron.yaml";
  for (const std::string& s : d.ranked[2].set) expected += " --set " + s;
  CHECK(d.run_command(2) == expected);
  d.set = {"run.iterations=3", "strategy.zero=1"};
  const std::vector<std::string> merged = d.run_overrides(0);
  REQUIRE(merged.size() == d.ranked[0].set.size() + 1);
  CHECK(merged[0] == "run.iterations=3");  // strategy.zero is the row's own
  CHECK(std::count(merged.begin(), merged.end(), "strategy.zero=1") == 0);
  CHECK(std::count(merged.begin(), merged.end(), "strategy.zero=0") == 1);
}

TEST_CASE("a tune folder and its tune.json, by name or by content, open as a tune") {
  const std::string dir = dtsim::test::sample_tune();
  CHECK(detect_file_kind(dir) == FileKind::TuneFolder);
  CHECK(detect_file_kind(dir + "/tune.json") == FileKind::Tune);
  const std::string renamed = write_sample("gpt3-search.json", read_file(dir + "/tune.json"));
  CHECK(detect_file_kind(renamed) == FileKind::Tune);
  const Document d = load_document(renamed);
  CHECK(d.tune);
  CHECK(!d.run);
  CHECK(!d.sweep);
  // The other kinds are as they were.
  CHECK(detect_file_kind(dtsim::test::sample_sweep()) == FileKind::SweepFolder);
  CHECK(detect_file_kind(dtsim::test::sample_hybrid() + "/metrics.json") == FileKind::Metrics);
}

TEST_CASE("a bad tune.json gives one line naming the file and what is wrong") {
  const std::string good = read_file(dtsim::test::sample_tune() + "/tune.json");
  const auto check = [](const std::string& path, const std::string& what) {
    const std::string error = load_error(path);
    INFO(error);
    CHECK(error.find(path) == 0);
    CHECK(error.find(what) != std::string::npos);
    CHECK(error.find('\n') == std::string::npos);
  };
  check(write_sample("tune.json", good.substr(0, good.size() / 2)), "not valid JSON");
  nlohmann::json j = nlohmann::json::parse(good);
  j["ranked"][1]["mfu"] = "high";
  check(write_sample("tune.json", j.dump()), "ranked[1].mfu: expected a number, got string");
  j = nlohmann::json::parse(good);
  j["ranked"][0].erase("peak_memory_bytes");
  check(write_sample("tune.json", j.dump()), "ranked[0].peak_memory_bytes: missing");
  j = nlohmann::json::parse(good);
  j["pareto"][3]["closed_form_s"] = -1;
  check(write_sample("tune.json", j.dump()), "pareto[3].closed_form_s: expected a positive number");
  j = nlohmann::json::parse(good);
  j["ranked"] = nlohmann::json::array();
  check(write_sample("tune.json", j.dump()), "ranked: no layout fits in memory");
  j = nlohmann::json::parse(good);
  j.erase("ranked");
  check(write_sample("tune.json", j.dump()), "ranked: missing");
  j = nlohmann::json::parse(good);
  j["schema_version"] = kTuneSchemaRead + 1;
  check(write_sample("tune.json", j.dump()), "schema_version: 2, and this viewer reads 1");
  j = nlohmann::json::parse(good);
  j["over_memory"] = j["layouts"].get<long>() + 1;
  check(write_sample("tune.json", j.dump()), "over_memory");
  // Through the folder, the file is named after the folder.
  const std::string folder = fs::path(write_sample("tune.json", "[1, 2")).parent_path().string();
  check(folder, "tune.json: not valid JSON");
}

TEST_CASE("every field of tune.json of the wrong type, or negative, is named in the error") {
  const nlohmann::json good = sample_json();
  const nlohmann::json flat = good.flatten();
  // Flattening makes empty arrays and objects null: they are put back before parsing.
  std::vector<std::string> empties;
  for (const auto& [pointer, value] : flat.items())
    if (value.is_null() && !good.at(nlohmann::json::json_pointer(pointer)).is_null()) empties.push_back(pointer);
  // Fields the view does not read.
  const std::set<std::string> unread = {"/simgrid_top"};
  // "/ranked/0/set/3" -> "ranked[0].set[3]", as the error names it.
  const auto name_of = [](const std::string& pointer) {
    std::string out;
    size_t at = 1;
    while (at <= pointer.size()) {
      const size_t next = std::min(pointer.find('/', at), pointer.size());
      const std::string part = pointer.substr(at, next - at);
      const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
      out += index ? "[" + part + "]" : (out.empty() ? "" : ".") + part;
      at = next + 1;
    }
    return out;
  };
  int checked = 0;
  for (const auto& [pointer, value] : flat.items()) {
    if (unread.count(pointer)) continue;
    // A null (an engine's time or error where it did not run or did not fail) stands for a number or a string:
    // true is neither.
    std::vector<nlohmann::json> bad = {value.is_null()     ? nlohmann::json(true)
                                       : value.is_string() ? nlohmann::json(7)
                                                           : nlohmann::json("x")};
    if (value.is_number()) bad.push_back(-1);
    for (const nlohmann::json& b : bad) {
      nlohmann::json f = flat;
      f[pointer] = b;
      nlohmann::json edited = f.unflatten();
      for (const std::string& e : empties)
        if (e != pointer) edited[nlohmann::json::json_pointer(e)] = good.at(nlohmann::json::json_pointer(e));
      const std::string text = edited.dump();
      INFO(pointer << " = " << b.dump());
      try {
        parse_tune(text);
        FAIL("loaded");
      } catch (const ParseError& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find(name_of(pointer) + ": expected") == 0);
      }
      ++checked;
    }
  }
  CHECK(checked > 300);
  // Cut anywhere, the file is refused as JSON, never half read.
  const std::string text = good.dump();
  for (size_t n = 0; n < text.size(); n += 97)
    CHECK_THROWS_WITH(parse_tune(text.substr(0, n)), Catch::StartsWith("not valid JSON"));
}
