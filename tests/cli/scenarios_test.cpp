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
