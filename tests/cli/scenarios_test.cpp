// Every file in scenarios/ passes `dtsim check` and runs to completion with sane metrics, and gives
// the same metrics.json (but the wall time) and trace.json, byte for byte, when run again on either engine.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

namespace {

// metrics.json without its wall_time_s fields (the only ones that differ between two runs).
std::string without_wall_time(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  auto strip = [](auto& self, nlohmann::json& v) -> void {
    if (v.is_object()) {
      v.erase("wall_time_s");
      for (auto& [key, child] : v.items()) self(self, child);
    } else if (v.is_array()) {
      for (auto& child : v) self(self, child);
    }
  };
  strip(strip, j);
  return j.dump();
}

}  // namespace

TEST_CASE("every scenario checks and runs") {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DTSIM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    const std::string name = entry.path().stem().string();
    const std::string file = "scenarios/" + entry.path().filename().string();
    INFO(file);
    const auto check = dtsim::test::run_dtsim("check " + file, "check-" + name);
    CHECK(check.code == 0);
    CHECK(check.err.empty());
    const std::string out = dtsim::test::temp_dir("scenario-" + name);
    const auto run = dtsim::test::run_dtsim("run " + file + " --out '" + out + "'", "run-" + name);
    REQUIRE(run.code == 0);
    const auto m = nlohmann::json::parse(dtsim::test::slurp(out + "/metrics.json"));
    CHECK(m["iteration_time_s"]["mean"].get<double>() > 0);
    CHECK(m["throughput_samples_per_s"].get<double>() > 0);
    CHECK(m["wait_fraction"].get<double>() >= 0);
    CHECK(m["engine"] == "simgrid");
    const std::string fast_out = dtsim::test::temp_dir("scenario-fast-" + name);
    const auto fast =
        dtsim::test::run_dtsim("run " + file + " --engine analytical --out '" + fast_out + "'", "fast-" + name);
    CHECK(fast.code == 0);
    // Determinism: the same scenario on the same engine gives the same files, byte for byte (but
    // the wall time in metrics.json).
    for (const auto& [engine, first] :
         {std::pair{std::string("simgrid"), out}, std::pair{std::string("analytical"), fast_out}}) {
      INFO(engine);
      const std::string again = dtsim::test::temp_dir("scenario-again-" + engine + "-" + name);
      const auto rerun =
          dtsim::test::run_dtsim("run " + file + " --engine " + engine + " --out '" + again + "'", "again-" + name);
      REQUIRE(rerun.code == 0);
      CHECK(without_wall_time(dtsim::test::slurp(first + "/metrics.json")) ==
            without_wall_time(dtsim::test::slurp(again + "/metrics.json")));
      CHECK((dtsim::test::slurp(first + "/trace.json") == dtsim::test::slurp(again + "/trace.json")));
    }
  }
  CHECK(count >= 4);
}

TEST_CASE(
    "the Korthikanti et al. validation tables are generated: all eight rows of Table 5, with rings too, Table 4's "
    "layers") {
  // bench/validation/korthikanti/run on the analytical fast path: every row runs and gets an error.
  const std::string table = dtsim::test::temp_dir("korthikanti") + "/table.md";
  const auto run =
      dtsim::test::run_shell("cd '" + std::string(DTSIM_SOURCE_DIR) + "' && TABLE='" + table + "' DTSIM='" +
                                 std::string(DTSIM_BINARY_DIR) + "/bin/dtsim' bench/validation/korthikanti/run",
                             "korthikanti");
  REQUIRE(run.code == 0);
  const std::string text = dtsim::test::slurp(table);
  int rows = 0;
  for (size_t at = text.find("\n| "); at != std::string::npos; at = text.find("\n| ", at + 1)) ++rows;
  // The header and eight rows, the same with rings, then Table 4's header and five settings.
  CHECK(rows == 9 + 9 + 6);
  CHECK(text.find("Mean absolute error") != std::string::npos);
  CHECK(text.find("Mean absolute error with rings") != std::string::npos);
  CHECK(text.find("| selective + sequence parallel | 7.2 / 13.1 |") != std::string::npos);
}

TEST_CASE("every published LLM run of bench/llm runs, and its table regenerates unchanged") {
  // bench/llm/run: each scenario on the analytical engine; the committed table.md is what it writes (the date aside).
  const std::string table = dtsim::test::temp_dir("llm") + "/table.md";
  const auto run = dtsim::test::run_shell("cd '" + std::string(DTSIM_SOURCE_DIR) + "' && TABLE='" + table +
                                              "' DTSIM='" + std::string(DTSIM_BINARY_DIR) + "/bin/dtsim' bench/llm/run",
                                          "llm");
  REQUIRE(run.code == 0);
  const auto without_date = [](std::string text) {
    const std::string before = "analytical engine, ";
    const size_t at = text.find(before);
    if (at != std::string::npos) text.erase(at + before.size(), std::string("YYYY-MM-DD").size());
    return text;
  };
  const std::string made = dtsim::test::slurp(table);
  CHECK(without_date(made) == without_date(dtsim::test::slurp(std::string(DTSIM_SOURCE_DIR) + "/bench/llm/table.md")));
  int rows = 0;
  for (size_t at = made.find("\n| "); at != std::string::npos; at = made.find("\n| ", at + 1)) ++rows;
  CHECK(rows >= 100);
}

TEST_CASE("the published nccl-tests curves of bench/collectives run, and their table regenerates unchanged") {
  // bench/collectives/run: dtsim collectives for each curve of systems.csv; the committed table.md is what it writes
  // (the date aside), and the committed plots of docs/img/collectives/ are what it draws.
  const std::string dir = dtsim::test::temp_dir("collectives");
  const std::string table = dir + "/table.md";
  const auto run = dtsim::test::run_shell("cd '" + std::string(DTSIM_SOURCE_DIR) + "' && TABLE='" + table +
                                              "' PLOTS='" + dir + "/plots' DTSIM='" + std::string(DTSIM_BINARY_DIR) +
                                              "/bin/dtsim' bench/collectives/run",
                                          "collectives");
  REQUIRE(run.code == 0);
  int plots = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/plots")) {
    const std::string name = entry.path().filename().string();
    INFO(name);
    CHECK(dtsim::test::slurp(entry.path().string()) ==
          dtsim::test::slurp(std::string(DTSIM_SOURCE_DIR) + "/docs/img/collectives/" + name));
    ++plots;
  }
  // One per curve of systems.csv (its lines less the header).
  std::istringstream systems(dtsim::test::slurp(std::string(DTSIM_SOURCE_DIR) + "/bench/collectives/systems.csv"));
  int curves = -1;
  for (std::string line; std::getline(systems, line);) curves += line.empty() ? 0 : 1;
  CHECK(curves >= 22);
  CHECK(plots == curves);
  const auto without_date = [](std::string text) {
    const std::string before = "`bench/collectives/run` (";
    const size_t at = text.find(before);
    if (at != std::string::npos) text.erase(at + before.size(), std::string("YYYY-MM-DD").size());
    return text;
  };
  const std::string made = dtsim::test::slurp(table);
  CHECK(without_date(made) ==
        without_date(dtsim::test::slurp(std::string(DTSIM_SOURCE_DIR) + "/bench/collectives/table.md")));
  CHECK(made.find("| Nebius, 8 H100 SXM") != std::string::npos);
}
