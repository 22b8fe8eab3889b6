// Every file in scenarios/ passes `dtsim check` and runs to completion with sane metrics.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

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
    const auto fast =
        dtsim::test::run_dtsim("run " + file + " --engine analytical --no-trace --out '" + out + "'", "fast-" + name);
    CHECK(fast.code == 0);
  }
  CHECK(count >= 4);
}

TEST_CASE("the Korthikanti et al. validation tables are generated: all eight rows of Table 5, Table 4's layers") {
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
  CHECK(rows == 9 + 6);  // the header and eight rows, then Table 4's header and five settings
  CHECK(text.find("Mean absolute error") != std::string::npos);
  CHECK(text.find("| selective + sequence parallel | 7.2 / 13.1 |") != std::string::npos);
}
