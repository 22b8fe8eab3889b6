// RunFolder (core/run/run_folder.hpp): a run's folder loses an earlier run's metrics.json when it is opened, and
// gets this run's files whole, metrics.json last.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/run/run_folder.hpp"
#include "core/scenario/loader.hpp"

using namespace dtsim;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(DTSIM_BINARY_DIR) / "test-output" / (name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

}  // namespace

TEST_CASE("a run folder removes an earlier run's metrics.json first, and writes this run's last") {
  const fs::path dir = fresh_dir("run-folder");
  fs::create_directories(dir);
  std::ofstream(dir / "metrics.json") << "{\"an\": \"earlier run\"}";
  std::ofstream(dir / "trace.json") << "{\"traceEvents\": []}";
  const RunFolder folder((dir / "deeper").string());  // parents made as need be
  CHECK(fs::exists(dir / "metrics.json"));            // another folder's is left alone
  const RunFolder same(dir.string());
  // Opened, the folder no longer says it holds a finished run: its trace may be an older run's.
  CHECK_FALSE(fs::exists(dir / "metrics.json"));
  CHECK(fs::exists(dir / "trace.json"));

  const Scenario s = load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  const Plan plan = compile_plan(s);
  same.write_trace(plan, {}, s.cluster.nodes);
  const nlohmann::json trace = nlohmann::json::parse(slurp(dir / "trace.json"));
  CHECK(trace.at("traceEvents").is_array());
  same.write("convergence.csv", "job,updates,time_s,loss,accuracy\n");
  CHECK(slurp(dir / "convergence.csv") == "job,updates,time_s,loss,accuracy\n");
  const nlohmann::json metrics = {{"schema_version", 2}, {"iteration_time_s", {{"mean", 0.5}}}};
  same.write_metrics(metrics);
  CHECK(nlohmann::json::parse(slurp(dir / "metrics.json")) == metrics);
  CHECK(same.path("metrics.json") == (dir / "metrics.json").string());
  // No temporaries are left beside them.
  for (const auto& e : fs::directory_iterator(dir))
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("a run folder that cannot be made is one error naming it") {
  const fs::path dir = fresh_dir("run-folder-file");
  fs::create_directories(dir);
  std::ofstream(dir / "a_file") << "not a folder";
  const std::string bad = (dir / "a_file" / "run").string();
  CHECK_THROWS_WITH(RunFolder(bad), Catch::StartsWith("cannot create output folder " + bad));
}
