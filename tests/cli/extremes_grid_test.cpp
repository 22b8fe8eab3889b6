// Every numeric scenario key at the smallest and the largest value the loader accepts, through
// `dtsim check` and both engines under a memory cap (ulimit -v) and a time limit: each ends in a
// result or in a refusal of one located line (exit 2), never an internal error, a signal, a timeout
// or a run that `check` passed and the run then refused for another reason; when both engines run,
// they agree within the tolerance docs/reliability.md states.
//
// The bounds are not copied from the key table: they are found from the loader itself (in process),
// by a ladder of values and a bisection between the last accepted and the first refused one.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/scenario/loader.hpp"
#include "core/scenario/schema.hpp"
#include "tests/support/run_process.hpp"

namespace {

// The base scenario a key is tried on, and the values it needs to take effect there.
struct Base {
  std::string prefix;  // the keys it serves (the longest prefix wins)
  std::string file;    // under tests/cli/data/grid/
  std::vector<std::string> sets;
};

// A dragonfly holds exactly the cluster's nodes: the key under test replaces its own of these.
const std::vector<std::string> kDragonfly{"cluster.topology.kind=dragonfly", "cluster.topology.groups=2",
                                          "cluster.topology.routers_per_group=1",
                                          "cluster.topology.nodes_per_router=1"};

const std::vector<Base>& bases() {
  static const std::vector<Base> table{
      {"", "dp.yaml", {}},
      {"model.transformer.", "hybrid.yaml", {}},
      {"model.synthetic.",
       "dp.yaml",
       {"model.name=synthetic", "model.synthetic.params=25e6", "model.synthetic.flops_per_sample=4GFLOP"}},
      {"strategy.tensor", "hybrid.yaml", {}},
      {"strategy.pipeline", "hybrid.yaml", {}},
      {"strategy.pipeline.virtual_stages", "hybrid.yaml", {"strategy.pipeline.schedule=interleaved"}},
      {"strategy.data", "hybrid.yaml", {}},
      {"strategy.expert", "hybrid.yaml", {}},
      {"strategy.context", "hybrid.yaml", {}},
      {"strategy.micro_batch", "hybrid.yaml", {}},
      {"strategy.global_batch", "hybrid.yaml", {}},
      {"strategy.zero", "hybrid.yaml", {}},
      {"strategy.parameter_server.", "ps.yaml", {}},
      {"strategy.workers", "ps.yaml", {}},
      {"cluster.servers.", "ps.yaml", {}},
      {"sync.staleness", "ps.yaml", {"sync.policy=ssp"}},
      {"sync.period", "dp.yaml", {"sync.policy=local_sgd"}},
      {"sync.backup_workers", "dp.yaml", {"sync.policy=backup"}},
      {"stragglers.slow_factor", "dp.yaml", {"stragglers.slow_workers=1"}},
      {"stragglers.sigma", "dp.yaml", {"stragglers.jitter=lognormal"}},
      {"stragglers.tail_mean", "dp.yaml", {"stragglers.jitter=exponential"}},
      {"stragglers.hiccup_", "dp.yaml", {"stragglers.jitter=hiccup"}},
      {"compression.", "dp.yaml", {"compression.method=topk"}},
      {"compression.levels", "dp.yaml", {"compression.method=qsgd"}},
      {"compression.rank", "dp.yaml", {"compression.method=powersgd"}},
      {"cluster.topology.nodes_per_switch", "dp.yaml", {"cluster.topology.kind=fat_tree"}},
      {"cluster.topology.oversubscription", "dp.yaml", {"cluster.topology.kind=fat_tree"}},
      {"cluster.topology.switch_latency", "dp.yaml", {"cluster.topology.kind=fat_tree"}},
      {"cluster.topology.groups", "dp.yaml", kDragonfly},
      {"cluster.topology.routers_per_group", "dp.yaml", kDragonfly},
      {"cluster.topology.nodes_per_router", "dp.yaml", kDragonfly},
      {"faults.", "dp.yaml", {"faults.mtbf=12h"}},
      {"run.convergence.", "dp.yaml", {"run.convergence.enabled=true"}},
  };
  return table;
}

const Base& base_for(const std::string& key) {
  const Base* best = &bases().front();
  for (const Base& b : bases()) {
    if (key.rfind(b.prefix, 0) == 0 && b.prefix.size() > best->prefix.size()) best = &b;
  }
  return *best;
}

// The unit a key's values are written in, or nullopt for a key that is not numeric.
std::optional<std::string> unit_of(const std::string& type) {
  if (type == "count" || type == "number") return "";
  if (type == "time" || type == "iterations or time") return "s";
  if (type == "bytes") return "B";
  if (type == "rate") return "B/s";
  if (type == "FLOP count") return "FLOP";
  return std::nullopt;
}

struct Probe {
  std::string key;
  std::string unit;
  bool integral;
  Base base;

  std::string text(double v) const {
    return integral ? fmt::format("{:.0f}", v) + unit : fmt::format("{:.17g}", v) + unit;
  }
  std::vector<std::string> sets(const std::string& value) const {
    std::vector<std::string> out;
    for (const std::string& s : base.sets) {
      if (s.rfind(key + "=", 0) != 0) out.push_back(s);
    }
    out.push_back(key + "=" + value);
    return out;
  }
  bool accepted(double v) const {
    try {
      dtsim::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/tests/cli/data/grid/" + base.file, sets(text(v)));
      return true;
    } catch (const dtsim::InputError&) {
      return false;
    } catch (const std::exception& e) {  // what the loader must never throw
      FAIL("loading with " << key << "=" << text(v) << ": " << e.what());
      return false;
    }
  }
};

// Between an accepted value and a refused one, the accepted value next to the boundary.
double bisect(const Probe& p, double ok, double bad) {
  for (int i = 0; i < 200; ++i) {
    double mid;
    if (p.integral) {
      if (std::fabs(bad - ok) <= 1) break;
      mid = std::floor((ok + bad) / 2);
    } else if (ok > 0 && bad > 0) {
      mid = std::sqrt(ok) * std::sqrt(bad);
    } else {
      mid = (ok + bad) / 2;
    }
    if (mid == ok || mid == bad) break;
    (p.accepted(mid) ? ok : bad) = mid;
  }
  return ok;
}

// The extremes the loader accepts: the smallest and the largest value of a ladder, each moved to
// the boundary with the next refused value.
std::vector<double> extremes(const Probe& p) {
  std::vector<double> ladder{-1e300, -1e9, -1,  0,   1e-300,       1e-12, 1e-6, 1e-3, 0.5,  1,    2,
                             10,     1e3,  1e6, 1e9, 2147483647.0, 1e12,  1e15, 1e18, 1e30, 1e300};
  if (p.integral) {
    std::erase_if(ladder, [](double v) { return v != std::floor(v); });
  }
  std::vector<int> ok;
  for (int i = 0; i < static_cast<int>(ladder.size()); ++i) {
    if (p.accepted(ladder[i])) ok.push_back(i);
  }
  if (ok.empty()) return {};
  double lo = ladder[ok.front()];
  double hi = ladder[ok.back()];
  if (ok.front() > 0) lo = bisect(p, lo, ladder[ok.front() - 1]);
  if (ok.back() + 1 < static_cast<int>(ladder.size())) hi = bisect(p, hi, ladder[ok.back() + 1]);
  if (hi == lo) return {lo};
  return {lo, hi};
}

// The mean iteration time in a run folder's metrics.json.
double iteration_time(const std::string& dir) {
  const auto m = nlohmann::json::parse(dtsim::test::slurp(dir + "/metrics.json"));
  return m["iteration_time_s"]["mean"].get<double>();
}

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// One dtsim command under the grid's limits: 4 GiB of address space, 120 s.
dtsim::test::ProcessResult limited(const std::string& args, const std::string& tag) {
  return dtsim::test::run_shell(
      "ulimit -v 4194304 && timeout -s KILL 120 '" + std::string(DTSIM_BINARY_DIR) + "/bin/dtsim' " + args, tag);
}

// One value of a key through check and both engines, with the grid's oracles.
void run_point(const Probe& probe, const std::string& value, const std::string& tag) {
  std::string args = "tests/cli/data/grid/" + probe.base.file;
  for (const std::string& s : probe.sets(value)) args += " --set '" + s + "'";
  std::vector<double> times;
  for (const std::string engine : {"simgrid", "analytical"}) {
    // check answers for the scenario's engine: ask it for the engine that runs.
    const std::string with_engine = args + " --set run.engine=" + engine;
    INFO("dtsim check " << with_engine);
    const auto check = limited("check " + with_engine, tag + "-check-" + engine);
    INFO("check: exit " << check.code << ": " << check.err);
    CHECK((check.code == 0 || check.code == 2));
    CHECK(check.err.find("internal error") == std::string::npos);
    if (check.code == 2) CHECK(lines(check.err) == 1);
    const std::string out = dtsim::test::temp_dir(tag + "-" + engine);
    const auto run = limited("run " + with_engine + " --out '" + out + "'", tag + "-" + engine);
    INFO(engine << ": exit " << run.code << ": " << run.err);
    CHECK(run.err.find("internal error") == std::string::npos);
    if (check.code == 2 && run.code == 0) {
      // A layout that does not fit its devices: check refuses it, run times it with a warning.
      CHECK(run.err.rfind("warning: ", 0) == 0);
      CHECK(check.err.find("needs") != std::string::npos);
    } else if (check.code == 2) {
      CHECK(run.code == 2);  // what check refuses, run refuses
    } else {
      CHECK((run.code == 0 || run.code == 2));
    }
    if (run.code == 2) CHECK(lines(run.err) == 1);
    if (run.code == 0) times.push_back(iteration_time(out));
  }
  if (times.size() == 2) {
    INFO("simgrid " << times[0] << " s, analytical " << times[1] << " s");
    CHECK(std::isfinite(times[0]));
    CHECK(times[0] > 0);
    CHECK(std::fabs(times[0] - times[1]) <= 0.05 * std::max(times[0], times[1]));
  }
}

void run_grid(const std::string& section) {
  int tried = 0;
  for (const dtsim::ScenarioKey& k : dtsim::scenario_keys()) {
    if (k.path.rfind(section, 0) != 0) continue;
    const auto unit = unit_of(k.type);
    if (!unit) continue;
    const Probe probe{k.path, *unit, k.type == "count", base_for(k.path)};
    const std::vector<double> values = extremes(probe);
    INFO(k.path << " on " << probe.base.file);
    CHECK_FALSE(values.empty());
    for (double v : values) {
      ++tried;
      run_point(probe, probe.text(v), "grid-" + k.path + "-" + std::to_string(tried));
    }
  }
  CHECK(tried > 0);
}

}  // namespace

TEST_CASE("extremes grid: model keys") { run_grid("model."); }
TEST_CASE("extremes grid: cluster keys") { run_grid("cluster."); }
TEST_CASE("extremes grid: strategy keys") { run_grid("strategy."); }
TEST_CASE("extremes grid: sync, stragglers and compression keys") {
  run_grid("sync.");
  run_grid("stragglers.");
  run_grid("compression.");
}
// Keys whose values are lists or shapes, at their extremes by hand: the fewest and the most entries,
// the smallest and the largest sizes.
TEST_CASE("extremes grid: list and shape keys") {
  const Base dp{"", "dp.yaml", {}};
  const Base torus{"", "dp.yaml", {"cluster.topology.kind=torus"}};
  const Base mix{"", "dp.yaml", {"cluster.device=a100_40gb"}};
  const std::vector<std::pair<Probe, std::vector<std::string>>> lists{
      {Probe{"cluster.topology.dims", "", true, torus}, {"2", "1x2", "1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2"}},
      {Probe{"stragglers.slow_workers", "", true, dp}, {"", "0", "3", "0,1,2,3"}},
      {Probe{"cluster.device_mix", "", true, mix}, {"a100_40gb:1,v100:1", "h100_sxm:2"}},
      {Probe{"cluster.intra_node.collective_busbw", "", true, dp}, {"1B:1B/s", "1PB:100TB/s", "1KB:1GB/s,1TB:1TB/s"}},
  };
  int n = 0;
  for (const auto& [probe, values] : lists) {
    for (const std::string& v : values) {
      INFO(probe.key << "=" << v);
      run_point(probe, v, "grid-list-" + std::to_string(++n));
    }
  }
}

TEST_CASE("extremes grid: run, faults, placement and framework keys") {
  run_grid("run.");
  run_grid("faults.");
  run_grid("placement.");
  run_grid("framework.");
}
