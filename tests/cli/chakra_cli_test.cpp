// dtsim export-chakra and import-chakra end to end: a scenario's traces made into a scenario folder
// that runs, and a truncated trace refused with exit code 2 and one line, nothing written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/chakra/et_file.hpp"
#include "tests/support/run_process.hpp"

namespace dtsim::test {

TEST_CASE("dtsim export-chakra, import-chakra and run: the traces replay as a scenario folder") {
  if (!chakra_supported()) return;
  const std::string dir = temp_dir("chakra-cli");
  const auto exported = run_dtsim("export-chakra scenarios/quickstart.yaml --out '" + dir + "/et' --gzip", "chakra-x");
  REQUIRE(exported.code == 0);
  CHECK(exported.out.find("wrote 8 Chakra traces") != std::string::npos);
  CHECK(std::filesystem::exists(dir + "/et/quickstart.7.et.gz"));
  const auto imported = run_dtsim("import-chakra '" + dir + "/et' --out '" + dir + "/replay'", "chakra-i");
  REQUIRE(imported.code == 0);
  CHECK(imported.err.empty());
  CHECK(std::filesystem::exists(dir + "/replay/traces/quickstart.0.et.gz"));
  const auto run = run_dtsim("run '" + dir + "/replay/scenario.yaml' --out '" + dir + "/run'", "chakra-r");
  REQUIRE(run.code == 0);
  const auto m = nlohmann::json::parse(slurp(dir + "/run/metrics.json"));
  CHECK(m["workers"] == 8);
  CHECK(m["iteration_time_s"]["mean"].get<double>() > 0);
}

TEST_CASE("dtsim import-chakra refuses a truncated trace with exit code 2 and one line naming rank and offset") {
  if (!chakra_supported()) return;
  const std::string dir = temp_dir("chakra-cli-cut");
  REQUIRE(run_dtsim("export-chakra scenarios/quickstart.yaml --out '" + dir + "/et'", "chakra-cut-x").code == 0);
  const std::string cut = dir + "/et/quickstart.3.et";
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 5);
  const auto r = run_dtsim("import-chakra '" + dir + "/et' --out '" + dir + "/replay'", "chakra-cut-i");
  CHECK(r.code == 2);
  CHECK(r.err.rfind(cut + ": error: rank 3: truncated Chakra trace: the message at byte ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(!std::filesystem::exists(dir + "/replay"));
}

TEST_CASE(
    "dtsim export-chakra refuses tensor-parallel communication overlap by its key, exit code 2, nothing written") {
  if (!chakra_supported()) return;
  const std::string dir = temp_dir("chakra-cli-tp");
  const auto r = run_dtsim(
      "export-chakra scenarios/gpt3_175b_megatron.yaml --set framework.tp_comm_overlap=true --out '" + dir + "/et'",
      "chakra-tp-x");
  CHECK(r.code == 2);
  CHECK(r.err.find("framework.tp_comm_overlap: a Chakra trace has no node for a collective running beside its GEMM") !=
        std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(!std::filesystem::exists(dir + "/et"));
}

}  // namespace dtsim::test
