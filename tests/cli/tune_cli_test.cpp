// `dtsim tune` as a user runs it: the table, results.csv and tune.json, and one line for bad constraints.
#include <algorithm>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

namespace dtsim::test {

TEST_CASE("dtsim tune prints the best layouts and writes results.csv and tune.json", "[tune]") {
  const std::string out = temp_dir("tune-gpt3");
  const auto r = run_dtsim(
      "tune scenarios/gpt3_175b_megatron.yaml --top 1 --screen 4 --fix tensor=8 --fix zero=1 "
      "--max-micro-batch 1 --out '" +
          out + "'",
      "tune-gpt3");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("dtsim tune: gpt3_175b_megatron on 64 devices, global batch 64") != std::string::npos);
  CHECK(r.out.find("the best: dtsim run scenarios/gpt3_175b_megatron.yaml --set strategy.tensor=8") !=
        std::string::npos);
  const auto tune = nlohmann::json::parse(slurp(out + "/tune.json"));
  REQUIRE(tune.at("ranked").size() == 4);
  const auto& best = tune.at("ranked").at(0);
  CHECK(best.at("simgrid_s").get<double>() > 0);
  CHECK(best.at("iteration_time_s").get<double>() == best.at("simgrid_s").get<double>());
  CHECK(tune.at("ranked").at(1).at("simgrid_s").is_null());  // --top 1: SimGrid did not run it
  for (const auto& c : tune.at("ranked")) CHECK(c.at("layout").get<std::string>().rfind("t8 ", 0) == 0);
  CHECK(tune.at("layouts").get<long>() > tune.at("over_memory").get<long>());
  CHECK(slurp(out + "/pareto.svg").find("Pareto front") != std::string::npos);
  CHECK(!tune.at("pareto").empty());
  // results.csv: a header and one row per ranked layout.
  const std::string csv = slurp(out + "/results.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
  CHECK(csv.rfind("rank,layout,tensor,pipeline,data", 0) == 0);
  // The best layout's command runs and gives the iteration time tune reported.
  const auto run = run_dtsim(
      "run scenarios/gpt3_175b_megatron.yaml --engine simgrid --no-trace --json " +
          [&] {
            std::string sets;
            for (const auto& s : best.at("set")) sets += " --set " + s.get<std::string>();
            return sets;
          }(),
      "tune-gpt3-best");
  REQUIRE(run.code == 0);
  const auto metrics = nlohmann::json::parse(run.out);
  CHECK(metrics.at("iteration_time_s").at("mean").get<double>() == Approx(best.at("simgrid_s").get<double>()));
}

TEST_CASE("dtsim tune --objective cost: the cheapest device count, and its command runs it", "[tune]") {
  const std::string out = temp_dir("tune-cost");
  const auto r = run_dtsim(
      "tune scenarios/gpt3_175b_megatron.yaml --devices 1024 --objective cost --top 1 --screen 4 "
      "--out '" +
          out + "'",
      "tune-cost");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("on up to 1024 devices (8, 16, 32, 64, 128, 256, 512, 1024), global batch 64, objective cost") !=
        std::string::npos);
  const auto tune = nlohmann::json::parse(slurp(out + "/tune.json"));
  CHECK(tune.at("objective") == "cost");
  const auto& ranked = tune.at("ranked");
  REQUIRE(ranked.size() == 4);
  for (size_t i = 1; i < ranked.size(); ++i) {
    CHECK(ranked[i - 1].at("device_seconds_per_sample").get<double>() <=
          ranked[i].at("device_seconds_per_sample").get<double>());
  }
  // 64 sequences a step: the cheapest layout needs far fewer devices than 1,024.
  const auto& best = ranked.at(0);
  const int devices = best.at("devices").get<int>();
  CHECK(devices < 1024);
  CHECK(best.at("device_seconds_per_sample").get<double>() ==
        Approx(devices * best.at("iteration_time_s").get<double>() / 64));
  std::string sets;
  for (const auto& s : best.at("set")) sets += " --set " + s.get<std::string>();
  CHECK(sets.find("placement.nodes=" + std::to_string(devices / 8)) != std::string::npos);
  // tune.json's own overrides are the search's, --devices' cluster.nodes among them: the command the viewer builds
  // from them (those the row does not replace, then the row's) is the CLI's best, and runs. (The viewer's command once
  // left cluster.nodes out, and was refused.)
  CHECK(tune.at("set") == nlohmann::json::array({"cluster.nodes=128"}));
  std::string command = "dtsim run scenarios/gpt3_175b_megatron.yaml";
  for (const auto& s : tune.at("set")) {
    const std::string key = s.get<std::string>().substr(0, s.get<std::string>().find('='));
    if (sets.find(" --set " + key + "=") == std::string::npos) command += " --set " + s.get<std::string>();
  }
  command += sets;
  CHECK(r.out.find("the best: " + command + "\n") != std::string::npos);
  // Its overrides on the 1,024-device scenario run the job on its first nodes, at the time tune reported.
  const auto run =
      run_dtsim(command.substr(std::string("dtsim ").size()) + " --engine simgrid --no-trace --json", "tune-cost-best");
  REQUIRE(run.code == 0);
  const auto metrics = nlohmann::json::parse(run.out);
  CHECK(metrics.at("workers").get<int>() == devices);
  CHECK(metrics.at("iteration_time_s").at("mean").get<double>() == Approx(best.at("simgrid_s").get<double>()));
}

TEST_CASE("dtsim tune takes its constraints from the scenario's tune keys, the command line over them", "[tune]") {
  const std::string out = temp_dir("tune-keys");
  const std::string base =
      "tune scenarios/gpt3_175b_megatron.yaml --top 0 --screen 3 --set tune.max_micro_batch=1 "
      "--set tune.fixed.tensor=4 --set tune.max_memory_fraction=0.95 --out '";
  const auto keys = run_dtsim(base + out + "'", "tune-keys");
  INFO(keys.out << keys.err);
  REQUIRE(keys.code == 0);
  auto tune = nlohmann::json::parse(slurp(out + "/tune.json"));
  CHECK(tune.at("max_memory_fraction").get<double>() == 0.95);
  for (const auto& c : tune.at("ranked")) {
    CHECK(c.at("layout").get<std::string>().rfind("t4 ", 0) == 0);
    CHECK(c.at("layout").get<std::string>().find(" mb1 ") != std::string::npos);
  }
  // Another search: in a folder of its own (the first one's refuses it, as a sweep's folder refuses another sweep).
  const auto refused = run_dtsim(base + out + "' --fix tensor=8 --max-memory-fraction 1", "tune-keys-refused");
  CHECK(refused.code == 2);
  CHECK(refused.err == out +
                           ": error: holds the runs of a different search (scenario, --set, --devices, constraints "
                           "or objective); choose another --out or remove it\n");
  const std::string other = temp_dir("tune-keys-over");
  const auto over = run_dtsim(base + other + "' --fix tensor=8 --max-memory-fraction 1", "tune-keys-over");
  REQUIRE(over.code == 0);
  tune = nlohmann::json::parse(slurp(other + "/tune.json"));
  CHECK(tune.at("max_memory_fraction").get<double>() == 1.0);
  for (const auto& c : tune.at("ranked")) CHECK(c.at("layout").get<std::string>().rfind("t8 ", 0) == 0);
  const auto bad = run_dtsim("tune scenarios/gpt3_175b_megatron.yaml --set tune.fixed.zero=5", "tune-keys-bad");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("tune.fixed.zero") != std::string::npos);
}

TEST_CASE("dtsim tune refuses bad constraints and jobs it cannot lay out in one line", "[tune]") {
  const auto fix = run_dtsim("tune scenarios/gpt3_175b_megatron.yaml --fix tensr=8", "tune-bad-fix");
  CHECK(fix.code == 2);
  CHECK(fix.err.find("--fix tensr=8: expected one of tensor (1 to 1048576), pipeline (1 to 1048576)") !=
        std::string::npos);
  CHECK(run_dtsim("tune scenarios/gpt3_175b_megatron.yaml --fix zero=4", "tune-bad-zero").err.find("zero (0 to 3)") !=
        std::string::npos);
  const auto dp = run_dtsim("tune scenarios/quickstart.yaml", "tune-not-hybrid");
  CHECK(dp.code == 2);
  CHECK(dp.err.find("must be a hybrid job of a transformer") != std::string::npos);
  const auto none = run_dtsim("tune scenarios/gpt3_175b_megatron.yaml --fix tensor=3", "tune-no-layout");
  CHECK(none.code == 2);
  CHECK(none.err.find("no layout of gpt3_175b_megatron on 64 devices takes a global batch of 64 under the search's "
                      "constraints") != std::string::npos);
  const auto tight = run_dtsim("tune scenarios/gpt3_175b_megatron.yaml --max-memory-fraction 0.05", "tune-no-fit");
  CHECK(tight.code == 2);
  CHECK(tight.err.find("no layout of gpt3_175b_megatron fits 64 devices of 80 GB") != std::string::npos);
  const auto devices = run_dtsim("tune scenarios/gpt3_175b_megatron.yaml --devices 12", "tune-bad-devices");
  CHECK(devices.code == 2);
  CHECK(devices.err.find("--devices 12: a whole number of nodes of 8 devices") != std::string::npos);
}

}  // namespace dtsim::test
