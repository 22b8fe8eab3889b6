// `dtsim tune`: the best hybrid layouts of a scenario's job (sim/tune/tuner.hpp), printed as a table and written as
// results.csv and tune.json (whole or not at all). The engine runs are kept in the folder as they finish and reused
// by the same search (sim/tune/search_folder.hpp); --mpi spreads them over MPI ranks as `dtsim sweep --mpi` does
// (cli/mpi/mpi_sweep.hpp), --shard runs a share of a pass and --merge combines the shards (docs/parallelism.md).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/mpi/mpi_sweep.hpp"
#include "cli/shard.hpp"
#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/plan/hybrid/job.hpp"
#include "core/scenario/loader.hpp"
#include "models/parallel/fixed_sizes.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/layout_space.hpp"
#include "models/parallel/schedule.hpp"
#include "plot/chart.hpp"
#include "sim/sweep/sweep_results.hpp"
#include "sim/tune/devices.hpp"
#include "sim/tune/search_folder.hpp"
#include "sim/tune/tune_json.hpp"
#include "sim/tune/tuner.hpp"

namespace dtsim::cli {
namespace {

// --fix key=value: one of the sizes a search may hold fixed (models/parallel/fixed_sizes.hpp).
void apply_fix(const std::string& text, LayoutLimits& limits) {
  const size_t eq = text.find('=');
  const std::string key = text.substr(0, eq);
  const auto* fixed =
      std::find_if(kFixedSizes.begin(), kFixedSizes.end(), [&](const FixedSize& f) { return f.name == key; });
  int value = -1;
  try {
    size_t used = 0;
    if (eq != std::string::npos) value = std::stoi(text.substr(eq + 1), &used);
    if (eq + 1 + used != text.size()) value = -1;
  } catch (const std::exception&) {
    value = -1;
  }
  if (fixed == kFixedSizes.end() || value < fixed->least || value > fixed->most) {
    std::string valid;
    for (const FixedSize& f : kFixedSizes) {
      valid += fmt::format("{}{} ({} to {})", valid.empty() ? "" : ", ", f.name, f.least, f.most);
    }
    throw InputError(fmt::format("--fix {}: expected one of {} = a whole number, e.g. --fix tensor=8", text, valid));
  }
  limits.*fixed->field = value;
}

std::string seconds_or_failed(double s, const std::string& error) {
  return !error.empty() ? "failed" : s > 0 ? fmt::format("{:.3f}", s) : "-";
}

double exposed(const tune::Candidate& c, GroupKind k) { return c.exposed_s[static_cast<size_t>(k)]; }

// A CSV field (RFC 4180): quoted, with its quotes doubled, when it holds a comma, a quote or a line break.
std::string csv_text(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string results_csv(const tune::TuneResult& r) {
  std::string out =
      "rank,layout,tensor,pipeline,data,context,expert,micro_batch,schedule,virtual_stages,recompute,zero,"
      "sequence_parallel,closed_form_s,analytical_s,simgrid_s,throughput_samples_per_s,mfu,bubble_fraction,"
      "peak_memory_bytes,exposed_tensor_s,exposed_pipeline_s,exposed_data_s,devices,device_seconds_per_sample,"
      "analytical_error,simgrid_error\n";
  int rank = 0;
  for (const tune::Candidate& c : r.ranked) {
    const HybridSpec& h = c.layout;
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.4f},{:.4f},{:.6g},{:.6g},"
        "{:.6g},{:.6g},{},{:.6g},{},{}\n",
        ++rank, tune::layout_text(h), h.tensor, h.pipeline, h.data, h.context, h.expert, h.micro_batch,
        schedule_name(h.schedule), h.virtual_stages, recompute_name(h.recompute), h.zero, h.sequence_parallel,
        c.closed.iteration_s, c.analytical_s, c.simgrid_s, r.throughput(c), r.mfu(c), c.bubble_fraction,
        c.peak_memory_bytes, exposed(c, GroupKind::Tensor), exposed(c, GroupKind::Pipeline),
        exposed(c, GroupKind::Data), c.devices, r.device_seconds_per_sample(c), csv_text(c.analytical_error),
        csv_text(c.simgrid_error));
  }
  return out;
}

// Iteration time against memory per rank (time per sample where each layout takes its own batch within a token
// budget, as the ranking does): every layout that fits (closed form), the Pareto front, the layouts the engines ran
// (their most exact time) and the best.
plot::Chart pareto_chart(const tune::TuneResult& r, double memory_fraction) {
  const bool per_sample = r.batch_searched();
  const auto y_of = [per_sample](double seconds, int batch) { return per_sample ? 1e3 * seconds / batch : seconds; };
  plot::Chart chart;
  chart.title = fmt::format("{} on {} devices: {} against memory", r.scenario, r.devices,
                            per_sample ? "time per sample" : "iteration time");
  chart.x_label = "peak memory per rank (GB)";
  chart.y_label = per_sample ? "time per sample (ms)" : "iteration time (s)";
  plot::Series all{"layouts that fit (closed form)", {}, {}, "#bbbbbb", false, true};
  const size_t stride = std::max<size_t>(1, r.space.size() / 4000);  // a readable file of at most ~4,000 points
  for (size_t i = 0; i < r.space.size(); i += stride) {
    all.x.push_back(r.space[i].memory_bytes / 1e9);
    all.y.push_back(y_of(r.space[i].closed_form_s, r.space[i].global_batch));
  }
  plot::Series front{"Pareto front (closed form)", {}, {}, "#1f77b4", true, true};
  for (const tune::TuneResult::SpacePoint& p : r.pareto) {
    front.x.push_back(p.memory_bytes / 1e9);
    front.y.push_back(y_of(p.closed_form_s, p.global_batch));
  }
  plot::Series engines{"on the engines", {}, {}, "#ff7f0e", false, true};
  for (const tune::Candidate& c : r.ranked) {
    engines.x.push_back(c.peak_memory_bytes / 1e9);
    engines.y.push_back(y_of(c.iteration_s(), c.layout.global_batch));
  }
  const tune::Candidate& top = r.ranked.front();
  plot::Series best{
      "the best", {top.peak_memory_bytes / 1e9}, {y_of(top.iteration_s(), top.layout.global_batch)}, "#d62728", false,
      true};
  chart.series = {all, front, engines, best};
  chart.guides.push_back({true, r.device_memory_bytes * memory_fraction / 1e9, "memory allowed", "#888888"});
  chart.legend_bottom = false;
  return chart;
}

}  // namespace

// --tokens MIN:MAX (1.5M:3M, 1500000:3e6): the tune.*_tokens_per_step overrides it stands for.
std::vector<std::string> token_sets(const std::string& text) {
  const auto number = [&](std::string part) {
    double scale = 1;
    if (!part.empty()) {
      const char unit = part.back();
      scale = unit == 'k' || unit == 'K' ? 1e3 : unit == 'M' ? 1e6 : unit == 'G' ? 1e9 : unit == 'T' ? 1e12 : 1;
      if (scale != 1) part.pop_back();
    }
    try {
      size_t used = 0;
      const double x = std::stod(part, &used);
      if (used == part.size() && std::isfinite(x) && x >= 0) return x * scale;
    } catch (const std::exception&) {
    }
    throw InputError(fmt::format("--tokens {}: expected MIN:MAX tokens a step, e.g. 1.5M:3M or 1500000:3000000", text));
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    throw InputError(fmt::format("--tokens {}: expected MIN:MAX tokens a step, e.g. 1.5M:3M", text));
  }
  return {fmt::format("tune.min_tokens_per_step={:.17g}", number(text.substr(0, colon))),
          fmt::format("tune.max_tokens_per_step={:.17g}", number(text.substr(colon + 1)))};
}

int tune_command(TuneOptions o) {
  if (!o.tokens.empty()) {
    const std::vector<std::string> tokens = token_sets(o.tokens);
    o.sets.insert(o.sets.end(), tokens.begin(), tokens.end());
  }
  std::vector<std::string> sets = o.sets;  // what the best layout's command line repeats
  const Scenario given = load_scenario(o.scenario, o.sets);
  // The search's limits: the scenario's tune.* keys, then the command line's.
  LayoutLimits& limits = o.request.limits;
  limits = given.job().tune.limits;
  o.request.max_memory_fraction =
      o.max_memory_fraction > 0 ? o.max_memory_fraction : given.job().tune.max_memory_fraction;
  for (auto [value, slot] :
       {std::pair{o.max_tensor, &limits.max_tensor}, std::pair{o.max_pipeline, &limits.max_pipeline},
        std::pair{o.max_context, &limits.max_context}, std::pair{o.max_micro_batch, &limits.max_micro_batch},
        std::pair{o.max_virtual_stages, &limits.max_virtual_stages}}) {
    if (value >= 0) *slot = value;
  }
  for (const std::string& f : o.fixes) apply_fix(f, limits);
  // --devices: the job's nodes for N devices, starting from a layout that suits them (sim/tune/devices.hpp).
  const tune::DeviceTarget target = tune::target_devices(given, limits, o.devices);
  sets.insert(sets.end(), target.sets.begin(), target.sets.end());
  std::vector<std::string> all = sets;
  all.insert(all.end(), target.start.begin(), target.start.end());
  const Scenario s = load_scenario(o.scenario, all);
  const std::string out = o.out.empty() ? fmt::format("runs/{}-tune", s.name) : o.out;
  const auto [shard, shards] = parse_shard(o.shard);
  if (o.mpi && shards > 1) throw InputError("--mpi and --shard: use one or the other");

  // Rank 0 alone reads and writes the folder; every rank runs the closed form (the same ranking everywhere).
  std::optional<MpiSweep> mpi;
  if (o.mpi) mpi.emplace();
  const bool root = !mpi || mpi->rank() == 0;
  tune::EngineRuns runs;
  runs.shard = shard;
  runs.shards = shards;
  const nlohmann::json search = tune::search_json(o.scenario, sets, o.request);
  std::optional<sweep::Journal> journal;
  if (root) {
    // The folder is read (and a folder of another search refused) once there are layouts to run.
    runs.finished = [&] {
      sweep::JournalRead read =
          o.merge.empty() ? tune::kept_runs(out, search) : tune::merge_search_folders(out, o.merge, search);
      const std::string damage =
          read.summary(o.merge.empty() ? out + "/points.jsonl" : "the journals of --merge and --out");
      if (!damage.empty()) std::cerr << "dtsim tune: " << damage << "\n";
      return std::move(read.points);
    };
    // The folder is claimed with the first run kept, so that a search refused before any run leaves none; a tune.json
    // of before no longer marks the search complete.
    runs.on_run = [&](const std::string& key, const nlohmann::json& metrics) {
      if (!journal) {
        tune::claim_search_folder(out, search);
        std::filesystem::remove(out + "/tune.json");
        journal.emplace(out);
      }
      journal->append(key, metrics);
    };
  }
  if (mpi) {
    runs.run = [&](const std::vector<Scenario>& scenarios, const std::vector<size_t>& pending, int jobs,
                   const std::function<void(size_t, const nlohmann::json&)>& done) {
      mpi->run(scenarios, pending, jobs, done, {}, sweep::OnFailure::Report);
    };
  }
  const tune::TuneResult r = tune::tune(s, o.request, runs);
  if (!root) return 0;

  const int seq = s.job().model.transformer.seq_len;
  const std::string batch =
      r.batch_searched()
          ? fmt::format(
                "global batch searched: {:.4g} to {:.4g} tokens a step ({} to {} sequences of {}), ranked "
                "by time a sample",
                r.min_tokens, r.max_tokens, static_cast<long long>(std::ceil(r.min_tokens / seq)),
                static_cast<long long>(r.max_tokens / seq), seq)
          : fmt::format("global batch {}", r.global_batch);
  if (r.objective == tune::Objective::Time) {
    std::cout << fmt::format("dtsim tune: {} on {} devices, {}\n", s.name, r.devices, batch);
  } else {
    std::cout << fmt::format("dtsim tune: {} on up to {} devices ({}), {}, objective {}\n", s.name, r.devices,
                             fmt::join(r.device_counts, ", "), batch, tune::objective_name(r.objective));
  }
  std::cout << fmt::format("  {} layouts valid; {} need more than {:.0f} % of the {} a device holds", r.layouts,
                           r.over_memory, 100 * o.request.max_memory_fraction, format_bytes(r.device_memory_bytes));
  if (r.over_memory > 0) std::cout << fmt::format(" (most often by their {})", r.commonest_overflow);
  const long ranked = r.layouts - r.over_memory;
  std::cout << fmt::format(
      "\n  {} ranked in closed form (memory and cost of all {} in {:.2f} s, {:.0f} layouts/s); the best {} on the "
      "analytical engine, {} of them on SimGrid, in {:.1f} s\n\n",
      ranked, r.layouts, r.closed_form_seconds, r.layouts / std::max(1e-9, r.closed_form_seconds), r.ranked.size(),
      r.simgrid ? std::min<size_t>(o.request.top, r.ranked.size()) : 0, r.engine_seconds);
  if (!r.simgrid && o.request.top > 0)
    std::cout << "  (this dtsim has no SimGrid engine, the GPU bundle's: --top skipped)\n\n";
  if (r.reused > 0) {
    std::cout << fmt::format("  reused {} engine runs kept in {} ({} run now)\n\n", r.reused, out, r.ran);
  }
  if (r.layouts == 0) {
    throw InputError(fmt::format(
        "tune: no layout of {} on {} devices takes a {} under the search's constraints (tune.fixed.*, "
        "tune.max_*, --fix, --max-*{})",
        s.name, r.devices,
        r.batch_searched() ? "global batch in the tokens searched" : fmt::format("global batch of {}", r.global_batch),
        r.batch_searched() ? ", --tokens" : ""));
  }
  if (r.screened == 0) {
    throw InputError(fmt::format("tune: no layout of {} fits {} devices of {} within --max-memory-fraction {}", s.name,
                                 r.devices, format_bytes(r.device_memory_bytes), o.request.max_memory_fraction));
  }
  tune::claim_search_folder(out, search);
  // A shard's search is done when it holds every run (its share and those merged in); else it says what is next.
  const auto simgrid_done =
      static_cast<size_t>(std::count_if(r.ranked.begin(), r.ranked.end(), [](const tune::Candidate& c) {
        return c.simgrid_s > 0 || !c.simgrid_error.empty();
      }));
  if (!r.pass2_whole) {
    std::cout << fmt::format(
        "  shard {}/{} of the analytical pass: {} of its {} runs kept in {}. Once every shard is done, the SimGrid "
        "pass: the same command with --merge and the shard folders, in shards again (--shard i/n, a folder each) or "
        "whole (no --shard)\n",
        shard, shards, r.ranked.size(), r.screened, out);
    return 0;
  }
  if (simgrid_done < r.simgrid_runs) {
    std::cout << fmt::format(
        "  shard {}/{} of the SimGrid pass: {} of its {} runs kept in {}. Once every shard is done, the ranking: the "
        "same command with --merge and these shard folders, no --shard\n",
        shard, shards, simgrid_done, r.simgrid_runs, out);
    return 0;
  }
  // The objectives over device counts add each layout's devices and its cost.
  const bool counts = r.objective != tune::Objective::Time;
  std::cout << fmt::format("  {:>3} {:<60} {:>9} {:>9} {:>9} {:>10} {:>6} {:>7} {:>9} {:>8} {:>8} {:>8}", "#", "layout",
                           "closed s", "analyt. s", "SimGrid s", "samples/s", "MFU", "bubble", "memory", "tensor s",
                           "pipe s", "data s");
  if (r.batch_searched()) std::cout << fmt::format(" {:>7}", "batch");
  std::cout << (counts ? fmt::format(" {:>7} {:>12}\n", "devices", "dev-s/sample") : "\n");
  const size_t shown = std::min<size_t>(r.ranked.size(), static_cast<size_t>(std::max(o.show, o.request.top)));
  for (size_t i = 0; i < shown; ++i) {
    const tune::Candidate& c = r.ranked[i];
    std::cout << fmt::format(
        "  {:>3} {:<60} {:>9.3f} {:>9} {:>9} {:>10.1f} {:>5.1f}% {:>6.1f}% {:>9} {:>8.3f} {:>8.3f} "
        "{:>8.3f}",
        i + 1, tune::layout_text(c.layout), c.closed.iteration_s, seconds_or_failed(c.analytical_s, c.analytical_error),
        seconds_or_failed(c.simgrid_s, c.simgrid_error), r.throughput(c), 100 * r.mfu(c), 100 * c.bubble_fraction,
        format_bytes(c.peak_memory_bytes), exposed(c, GroupKind::Tensor), exposed(c, GroupKind::Pipeline),
        exposed(c, GroupKind::Data));
    if (r.batch_searched()) std::cout << fmt::format(" {:>7}", c.layout.global_batch);
    std::cout << (counts ? fmt::format(" {:>7} {:>12.4g}\n", c.devices, r.device_seconds_per_sample(c)) : "\n");
  }
  // Engine runs that failed, each with its row and the engine's message (not kept: the same command runs them again).
  for (size_t i = 0; i < r.ranked.size(); ++i) {
    const tune::Candidate& c = r.ranked[i];
    for (const auto& [engine, error] :
         {std::pair{Engine::Analytical, &c.analytical_error}, std::pair{Engine::SimGrid, &c.simgrid_error}}) {
      if (!error->empty())
        std::cout << fmt::format("  #{} {}: the {} run failed: {}\n", i + 1, tune::layout_text(c.layout),
                                 engine_title(engine), *error);
    }
  }
  // The user's and the device count's overrides, then the layout's (which replace any of the same key), on the
  // job's first nodes when the best takes fewer.
  const std::vector<std::string> layout = r.overrides(r.ranked.front());
  const auto key_of = [](const std::string& set) { return set.substr(0, set.find('=')); };
  std::string command = fmt::format("dtsim run {}", o.scenario);
  for (const std::string& set : sets) {
    const bool replaced =
        std::any_of(layout.begin(), layout.end(), [&](const std::string& l) { return key_of(l) == key_of(set); });
    if (!replaced) command += " --set " + set;
  }
  for (const std::string& set : layout) command += " --set " + set;
  std::cout << fmt::format("\n  the best: {}\n", command);

  std::filesystem::create_directories(out);
  const plot::Chart chart = pareto_chart(r, o.request.max_memory_fraction);
  write_file_atomic(out + "/pareto.svg", plot::render_svg(chart));
  std::string plots = "pareto.svg";
  if (plot::png_supported()) {
    plot::write_png(chart, out + "/pareto.png");
    plots += ", pareto.png";
  }
  write_file_atomic(out + "/results.csv", results_csv(r));
  write_file_atomic(out + "/tune.json",
                    tune::tune_json(r, o.request, {o.scenario, sets}).dump(2) + "\n");  // last: the search is complete
  std::cout << fmt::format("wrote {} and results.csv, tune.json in {}\n", plots, out);
  return 0;
}

}  // namespace dtsim::cli
