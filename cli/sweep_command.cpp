// `dtsim sweep` and `dtsim merge`: run a grid of points (locally, over MPI ranks, or one shard
// of it), keep a resumable journal, and write the results, the scaling analysis and its plots.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/mpi/mpi_sweep.hpp"
#include "cli/progress.hpp"
#include "cli/shard.hpp"
#include "cli/sweep_report.hpp"
#include "learn/learner.hpp"
#include "plot/chart.hpp"
#include "sim/sweep/point_runner.hpp"
#include "sim/sweep/sweep_results.hpp"

namespace dtsim::cli {
namespace {

std::string point_text(const sweep::SweepPointInfo& p) {
  std::string s;
  for (const auto& [k, v] : p.params) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

void report(const std::string& out, const sweep::SweepManifest& m, const sweep::PointResults& done, bool plots) {
  const auto scaling = sweep::scaling_of(m, done);
  std::cout << fmt::format("dtsim {}: sweep of {} ({} points)\n\n", DTSIM_VERSION, m.scenario, m.points.size());
  print_sweep_table(std::cout, m, done, scaling);
  if (scaling) print_scaling(std::cout, m, *scaling);
  std::vector<std::string> files{out + "/results.csv", out + "/results.json"};
  if (scaling) {
    files.push_back(out + "/scaling.json");
    if (plots) {
      for (auto& f : write_scaling_plots(out, m, *scaling)) files.push_back(std::move(f));
    }
  } else if (m.param_keys.size() > 1) {
    std::cout << "\n(no scaling analysis: it needs a sweep of one --param whose points have distinct worker counts)\n";
  }
  std::cout << fmt::format("\nwrote {}\n", fmt::join(files, ", "));
  if (scaling && plots && !plot::png_supported())
    std::cout << "(plots as SVG only: this dtsim was built without Qt 6 Gui)\n";
}

}  // namespace

int sweep_command(const SweepOptions& o) {
  sweep::SweepRequest request = o.request;
  request.mode = o.scaling == "strong" ? sweep::ScalingMode::Strong : sweep::ScalingMode::Weak;
  const sweep::SweepPlan plan = sweep::plan_sweep(request);  // every point checked before anything runs
  const sweep::SweepManifest& m = plan.manifest;
  const auto [shard, shards] = parse_shard(o.shard);
  if (o.mpi && shards > 1) throw InputError("--mpi and --shard: use one or the other");
  const std::string out = o.out.empty() ? (std::filesystem::path("runs") / (m.scenario + "-sweep")).string() : o.out;
  for (const Scenario& s : plan.scenarios) {
    if (s.run.convergence.enabled) learn::load_split(s);  // a bad data file is reported before any point runs
  }

  std::optional<MpiSweep> mpi;
  if (o.mpi) mpi.emplace();
  const bool root = !mpi || mpi->rank() == 0;
  sweep::PointResults done;
  std::vector<size_t> pending;
  std::optional<sweep::Journal> journal;
  if (root) {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) throw RuntimeError(fmt::format("cannot create output folder {}: {}", out, ec.message()));
    sweep::check_same_sweep(out, m);
    sweep::write_manifest(out, m);
    // Points keep their metrics without every rank's (sweep_results.hpp); results.json reads those back.
    const sweep::JournalRead read = sweep::read_journal(out, sweep::RankDetail::Summary);
    if (const std::string damage = read.summary(out + "/points.jsonl"); !damage.empty())
      std::cerr << "dtsim sweep: " << damage << "\n";
    const sweep::PointResults& journaled = read.points;
    for (size_t i = 0; i < m.points.size(); ++i) {
      if (i % shards != shard) continue;
      if (const auto f = journaled.find(m.points[i].key); f != journaled.end()) {
        done.emplace(f->first, f->second);
      } else {
        pending.push_back(i);
      }
    }
    journal.emplace(out);
  }
  const size_t total = root ? done.size() + pending.size() : 0;
  std::optional<Progress> progress;
  if (root) progress.emplace(total, done.size());
  // The results so far are rewritten whole every half second, or less often when rewriting them takes longer:
  // at least ten times the last rewrite apart, so that rewriting never takes more than a tenth of the sweep (a
  // rewrite after each point made a sweep quadratic in its points: 107 s for 256 points of 4 to 1,024 ranks).
  auto last_write = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration write_interval = std::chrono::milliseconds(500);
  const auto on_done = [&](size_t index, const nlohmann::json& metrics) {
    const sweep::SweepPointInfo& p = m.points[index];
    journal->append(p.key, metrics);
    done[p.key] = sweep::without_ranks(metrics);
    progress->point_done(
        fmt::format("{}: {:.6g} s/iteration", point_text(p), metrics["iteration_time_s"]["mean"].get<double>()));
    const auto now = std::chrono::steady_clock::now();
    if (now - last_write > write_interval) {
      sweep::write_results(out, m, done);
      last_write = std::chrono::steady_clock::now();
      write_interval =
          std::max<std::chrono::steady_clock::duration>(std::chrono::milliseconds(500), 10 * (last_write - now));
    }
  };
  // The Learner needs every op record: only sweeps that train it give up the analytical fast path.
  const bool learns = std::any_of(plan.scenarios.begin(), plan.scenarios.end(),
                                  [](const Scenario& s) { return s.run.convergence.enabled; });
  const sweep::PointHook hook = learns ? sweep::PointHook(learn::add_convergence) : sweep::PointHook();
  try {
    if (mpi) {
      mpi->run(plan.scenarios, pending, o.jobs, on_done, hook);
    } else {
      sweep::run_points(plan.scenarios, pending, o.jobs, on_done, hook);
    }
  } catch (...) {
    if (root) {
      progress->finish();
      sweep::write_results(out, m, done);
    }
    throw;
  }
  if (!root) return 0;
  progress->finish();
  sweep::write_results(out, m, done);
  report(out, m, done, o.plots);
  return 0;
}

int merge_command(const std::string& out, const std::vector<std::string>& shards) {
  const sweep::PointResults done =
      sweep::merge_sweeps(out, shards, [](const std::string& line) { std::cerr << "dtsim merge: " << line << "\n"; });
  const sweep::SweepManifest m = sweep::read_manifest(out);
  if (done.size() < m.points.size()) {
    std::cerr << fmt::format("dtsim merge: warning: {} of {} points are missing from the shards\n",
                             m.points.size() - done.size(), m.points.size());
  }
  report(out, m, done, true);
  return 0;
}

}  // namespace dtsim::cli
