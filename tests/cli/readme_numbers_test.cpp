// The times README.md quotes from its commands ("A ms -> B ms"), held to what the commands give today: each
// row's two numbers read off the README at the precision it quotes them, and the runs it compares made here.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

namespace {

using dtsim::test::run_dtsim;
using dtsim::test::slurp;
using dtsim::test::temp_dir;

// The README row that shows `command`, and the "A ms -> B ms" it quotes.
std::pair<std::string, std::string> quoted(const std::string& command) {
  std::istringstream readme(slurp(std::string(DTSIM_SOURCE_DIR) + "/README.md"));
  std::string line;
  while (std::getline(readme, line)) {
    if (line.rfind("| `" + command + "`", 0) != 0) continue;
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"(([0-9.]+) ms -> ([0-9.]+) ms)"))) return {m[1], m[2]};
    FAIL("README's row of " << command << " quotes no 'A ms -> B ms'");
  }
  FAIL("README has no row of " << command);
  return {};
}

// The mean iteration time in ms of job `job` of `args` run with `dtsim run`, at the decimals of `as`.
std::string iteration_ms(const std::string& args, int job, const std::string& as, const std::string& tag) {
  const std::string out = temp_dir("readme-" + tag);
  const auto r = run_dtsim("run " + args + " --no-trace --out '" + out + "'", "readme-" + tag);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto m = nlohmann::json::parse(slurp(out + "/metrics.json"));
  const double ms = 1e3 * m["jobs"][static_cast<size_t>(job)]["iteration_time_s"]["mean"].get<double>();
  const size_t dot = as.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(as.size() - dot - 1);
  return fmt::format("{:.{}f}", ms, decimals);
}

}  // namespace

TEST_CASE("README's quoted step times are what the commands give") {
  {  // PyTorch's autocast against the scenario's own mixed precision
    const std::string base = "scenarios/hybrid_gpt_1gpu.yaml";
    const auto [before, after] = quoted("build/bin/dtsim run " + base + " --set framework.mixed_precision=autocast");
    CHECK(iteration_ms(base, 0, before, "gpt-base") == before);
    CHECK(iteration_ms(base + " --set framework.mixed_precision=autocast", 0, after, "gpt-autocast") == after);
  }
  {  // sliding-window attention against the full causal mask
    const std::string base = "scenarios/hybrid_gpt_1gpu.yaml";
    const auto [before, after] = quoted("build/bin/dtsim run " + base + " --set model.transformer.window=512");
    CHECK(iteration_ms(base, 0, before, "gpt-full") == before);
    CHECK(iteration_ms(base + " --set model.transformer.window=512", 0, after, "gpt-window") == after);
  }
  {  // a flapping NIC against a steady one
    const std::string flap =
        " --set cluster.nic_profile=period=50ms,duty=0.6,factor=0.1 --set cluster.nic_profile_nodes=1";
    const auto [before, after] = quoted("build/bin/dtsim run scenarios/quickstart.yaml" + flap);
    CHECK(iteration_ms("scenarios/quickstart.yaml", 0, before, "steady") == before);
    CHECK(iteration_ms("scenarios/quickstart.yaml" + flap, 0, after, "flapping") == after);
  }
  {  // one run of two jobs: a static batch, then dynamic batch sizing
    const auto [before, after] = quoted("build/bin/dtsim run scenarios/heterogeneous_dynamic_batch.yaml");
    CHECK(iteration_ms("scenarios/heterogeneous_dynamic_batch.yaml", 0, before, "mix-static") == before);
    CHECK(iteration_ms("scenarios/heterogeneous_dynamic_batch.yaml", 1, after, "mix-dynamic") == after);
  }
}
