// `dtsim validate`: the real run (dtsim-real spawned under the launcher), the simulated run of the
// same scaled Plan with the profile, and the table of their differences.
#include "calibrate/validate.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "calibrate/bench_util.hpp"
#include "core/base/atomic_file.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/calibration/calibration.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/plan/compiler.hpp"
#include "core/run/metrics.hpp"
#include "core/run/run_folder.hpp"
#include "core/run/trace.hpp"
#include "core/scenario/loader.hpp"
#include "models/cost/cores.hpp"
#include "real/plan_scale.hpp"
#include "sim/run.hpp"

namespace dtsim::calib {
namespace fs = std::filesystem;
namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw RuntimeError(fmt::format("cannot read {}", path));
  return nlohmann::json::parse(in);
}

std::string slurp_tail(const std::string& path, size_t most) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  return s.size() > most ? s.substr(s.size() - most) : s;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Mean over worker ranks of a per-rank field of metrics.json.
double worker_mean(const nlohmann::json& m, const char* field) {
  double sum = 0;
  int n = 0;
  for (const auto& r : m.at("per_rank")) {
    if (r.value("role", "worker") != "worker") continue;
    sum += r.at(field).get<double>();
    ++n;
  }
  return n > 0 ? sum / n : 0.0;
}

std::string real_binary(const ValidateOptions& o) {
  if (!o.real_binary.empty()) return o.real_binary;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path next = self.parent_path() / "dtsim-real";
  if (!ec && fs::exists(next)) return next.string();
  return "dtsim-real";
}

double parse_scale(const std::string& text, const Plan& plan) {
  if (text == "auto") return real::auto_compute_scale(plan);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (!(v > 0) || !std::isfinite(v) || *end != '\0') {
    throw InputError(fmt::format("--compute-scale: '{}' is not a positive number or 'auto'", text));
  }
  return v;
}

// The launcher prefix with the rank count: "{n}" replaced where it appears (srun -n {n}), else
// "-np N" appended (mpirun).
std::string launcher(const std::string& prefix, int ranks) {
  const auto at = prefix.find("{n}");
  if (at == std::string::npos) return fmt::format("{} -np {}", prefix, ranks);
  std::string out = prefix;
  out.replace(at, 3, std::to_string(ranks));
  return out;
}

bool is_collective_kind(const std::string& kind) {
  for (const char* k : {"allreduce", "reduce_scatter", "allgather", "broadcast", "reduce", "alltoall"}) {
    if (kind == k) return true;
  }
  return false;
}

// One real run of the scenario into run_dir (its metrics.json, trace.json and real.log). Returns 0,
// or dtsim-real's exit code 2 or 3 after printing its output's tail; throws on other failures.
int run_real(const ValidateOptions& o, int ranks, double scale, const fs::path& run_dir, std::ostream& out) {
  fs::create_directories(run_dir);
  // "none": no launcher, dtsim-real drives `ranks` GPUs of this node from one process.
  const bool threads = o.mpirun == "none";
  if (threads && o.backend != Backend::Cuda) {
    throw InputError("--mpirun none: only --backend cuda runs without a launcher (a thread per GPU of this node)");
  }
  std::string cmd = geteuid() == 0 ? "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " : "";
  if (!threads) cmd += launcher(o.mpirun, ranks) + " ";
  cmd += fmt::format("{} {} --backend {} --compute-scale {:.17g} --quiet --out {}", quote(real_binary(o)),
                     quote(o.scenario), backend_name(o.backend), scale, quote(run_dir.string()));
  if (threads) cmd += fmt::format(" --gpus {}", ranks);
  for (const std::string& set : o.sets) cmd += " --set " + quote(set);
  const std::string log = (run_dir / "real.log").string();
  cmd += " >" + quote(log) + " 2>&1";
  if (!o.json) out << fmt::format("running: {}\n", cmd) << std::flush;
  const int status = std::system(cmd.c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (code == 0) return 0;
  const std::string tail = slurp_tail(log, 2000);
  if (code == 2 || code == 3) {
    out << tail;
    return code;
  }
  throw RuntimeError(
      fmt::format("the real run failed (exit code {}); its output ({}) ends with:\n{}", code, log, tail));
}

// The mean and largest absolute error over the metrics.
void summarize(ValidationReport& r) {
  double sum = 0;
  int n = 0;
  r.max_abs_error_pct = 0;
  for (const ValidationRow& m : r.metrics) {
    if (m.measured == 0) continue;
    sum += std::abs(m.error_pct());
    r.max_abs_error_pct = std::max(r.max_abs_error_pct, std::abs(m.error_pct()));
    ++n;
  }
  r.mean_abs_error_pct = n > 0 ? sum / n : 0.0;
}

// Copies the real run of median iteration time (real-<i>) to <dir>/real, the folder a user opens
// beside <dir>/sim.
void keep_median_run(const fs::path& dir, const std::vector<ValidationReport>& runs) {
  std::vector<std::pair<double, size_t>> by_time;
  for (size_t i = 0; i < runs.size(); ++i) by_time.emplace_back(runs[i].metrics.front().measured, i);
  std::sort(by_time.begin(), by_time.end());
  const size_t pick = by_time[(by_time.size() - 1) / 2].second;
  fs::remove_all(dir / "real");
  fs::copy(dir / fmt::format("real-{}", pick + 1), dir / "real", fs::copy_options::recursive);
}

// Rows of the same name across runs, in the order of their first appearance, measured = median.
std::vector<ValidationRow> median_rows(const std::vector<const std::vector<ValidationRow>*>& runs) {
  std::vector<ValidationRow> out;
  std::map<std::string, size_t> at;
  for (const auto* rows : runs) {
    for (const ValidationRow& x : *rows) {
      auto [it, fresh] = at.try_emplace(x.name, out.size());
      if (fresh) out.push_back(ValidationRow{x.name, x.unit, x.predicted, 0, {}});
      out[it->second].runs.push_back(x.measured);
    }
  }
  for (ValidationRow& x : out) x.measured = median(x.runs);
  return out;
}

}  // namespace

double ValidationReport::without_contention_error_pct() const {
  const double m = metrics.empty() ? 0.0 : metrics.front().measured;
  return m > 0 && iteration_without_contention > 0 ? 100.0 * (iteration_without_contention - m) / m : 0.0;
}

double ValidationRow::spread_pct() const {
  if (runs.size() < 2 || measured == 0) return 0.0;
  const auto [lo, hi] = std::minmax_element(runs.begin(), runs.end());
  return 100.0 * (*hi - *lo) / std::abs(measured);
}

ValidationReport median_over_runs(const std::vector<ValidationReport>& runs) {
  if (runs.empty()) throw RuntimeError("median_over_runs: no runs");
  ValidationReport r = runs.front();
  std::vector<const std::vector<ValidationRow>*> metrics, kinds;
  for (const ValidationReport& x : runs) {
    metrics.push_back(&x.metrics);
    kinds.push_back(&x.op_kinds);
  }
  r.metrics = median_rows(metrics);
  r.op_kinds = median_rows(kinds);
  r.repeats = static_cast<int>(runs.size());
  summarize(r);
  return r;
}

std::vector<std::pair<std::string, double>> op_kind_means(const nlohmann::json& trace, int warmup) {
  const nlohmann::json& events = trace.is_object() ? trace.at("traceEvents") : trace;
  std::map<std::string, std::pair<double, int>> sums;
  for (const auto& e : events) {
    if (e.value("ph", "") != "X" || !e.contains("args")) continue;
    const auto& a = e.at("args");
    if (a.value("iteration", 0) < warmup) continue;
    const std::string base = a.value("kind", "op");
    // "wait" and "exposed": the trace writer's gaps on a compute lane before an op (under the rank's own
    // communication, or not), not ops.
    const std::string kind = base == "compute"   ? fmt::format("compute:{}", e.value("cat", ""))
                             : base == "wait"    ? std::string("idle gap (trace's waiting)")
                             : base == "exposed" ? std::string("idle gap under communication (trace's exposed)")
                                                 : base;
    auto& [sum, count] = sums[kind];
    sum += e.at("dur").get<double>() * 1e-6;  // Chrome traces are in microseconds
    ++count;
  }
  // Collectives again, from the moment the last rank of each instance (same label and iteration)
  // entered: what is left once the skew between ranks is taken out.
  std::map<std::pair<std::string, int>, std::vector<std::pair<double, double>>> instances;
  for (const auto& e : events) {
    if (e.value("ph", "") != "X" || !e.contains("args")) continue;
    const auto& a = e.at("args");
    const std::string kind = a.value("kind", "op");
    if (a.value("iteration", 0) < warmup || !is_collective_kind(kind)) continue;
    const double start = e.at("ts").get<double>();
    instances[{kind + "\t" + e.value("name", ""), a.value("iteration", 0)}].emplace_back(
        start, start + e.at("dur").get<double>());
  }
  for (const auto& [key, spans] : instances) {
    double last = 0;
    for (const auto& [start, end] : spans) last = std::max(last, start);
    auto& [sum, count] = sums[key.first.substr(0, key.first.find('\t')) + " after the last rank entered"];
    for (const auto& [start, end] : spans) {
      sum += std::max(0.0, end - last) * 1e-6;
      ++count;
    }
  }
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [kind, s] : sums) out.emplace_back(kind, s.first / s.second);
  return out;
}

ValidationReport compare_runs(const nlohmann::json& pm, const nlohmann::json& mm, const nlohmann::json& pt,
                              const nlohmann::json& mt, int warmup) {
  ValidationReport r;
  const auto row = [&](const char* name, const char* unit, double p, double m) {
    r.metrics.push_back(ValidationRow{name, unit, p, m, {m}});
  };
  row("iteration time", "s", pm.at("iteration_time_s").at("mean"), mm.at("iteration_time_s").at("mean"));
  row("compute", "s", worker_mean(pm, "compute_s"), worker_mean(mm, "compute_s"));
  row("communication", "s", worker_mean(pm, "comm_s"), worker_mean(mm, "comm_s"));
  row("exposed communication", "s", worker_mean(pm, "exposed_comm_s"), worker_mean(mm, "exposed_comm_s"));
  row("throughput", "samples/s", pm.at("throughput_samples_per_s"), mm.at("throughput_samples_per_s"));
  // Hybrid jobs: the pipeline bubble, and the exposed communication by what it is for.
  if (pm.contains("bubble_fraction")) {
    const auto bubble = [](const nlohmann::json& m) { return m.at("wait_by_cause_s").value("pipeline_bubble", 0.0); };
    row("pipeline bubble", "s", bubble(pm), bubble(mm));
    std::map<std::string, std::pair<double, double>> kinds;
    const auto collect = [&kinds](const nlohmann::json& m, double std::pair<double, double>::*side) {
      const auto found = m.find("exposed_comm_by_kind_s");
      if (found == m.end()) return;
      for (auto it = found->begin(); it != found->end(); ++it) kinds[it.key()].*side = it->get<double>();
    };
    collect(pm, &std::pair<double, double>::first);
    collect(mm, &std::pair<double, double>::second);
    for (const auto& [kind, v] : kinds) {
      r.metrics.push_back(ValidationRow{"exposed communication: " + kind, "s", v.first, v.second, {v.second}});
    }
    // The largest rank's peak: the memory model's, and the real run's buffers (dtsim-real's real.memory).
    double measured_peak = 0;
    if (mm.contains("real") && mm["real"].contains("memory")) {
      for (const auto& rank : mm["real"]["memory"])
        measured_peak = std::max(measured_peak, rank["measured_peak_bytes"].get<double>());
    }
    if (pm.contains("memory") && measured_peak > 0) row("peak memory", "B", pm["memory"]["peak_bytes"], measured_peak);
  }
  summarize(r);
  std::map<std::string, double> predicted;
  for (const auto& [kind, mean] : op_kind_means(pt, warmup)) predicted[kind] = mean;
  for (const auto& [kind, mean] : op_kind_means(mt, warmup)) {
    r.op_kinds.push_back(ValidationRow{kind, "s", predicted.count(kind) ? predicted[kind] : 0.0, mean, {mean}});
  }
  return r;
}

nlohmann::json report_json(const ValidationReport& r) {
  const auto rows = [](const std::vector<ValidationRow>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const ValidationRow& x : v) {
      a.push_back({{"name", x.name},
                   {"unit", x.unit},
                   {"predicted", x.predicted},
                   {"measured", x.measured},
                   {"measured_runs", x.runs},
                   {"spread_pct", x.spread_pct()},
                   {"error_pct", x.error_pct()}});
    }
    return a;
  };
  return {{"scenario", r.scenario},
          {"profile", r.profile},
          {"backend", backend_name(r.backend)},
          {"engine", r.engine},
          {"ranks", r.ranks},
          {"compute_scale", r.compute_scale},
          {"repeats", r.repeats},
          {"metrics", rows(r.metrics)},
          {"op_kinds", rows(r.op_kinds)},
          {"mean_abs_error_pct", r.mean_abs_error_pct},
          {"without_contention",
           {{"iteration_time_s", r.iteration_without_contention}, {"error_pct", r.without_contention_error_pct()}}},
          {"max_abs_error_pct", r.max_abs_error_pct},
          {"caveats", r.caveats},
          {"profile_cautions", r.profile_cautions}};
}

std::vector<std::string> validation_caveats(const ValidationReport& r, const ClusterSpec& cluster, const Plan& plan) {
  std::vector<std::string> out;
  for (const ValidationRow& x : r.metrics) {
    if (x.name != "iteration time" || x.runs.size() < 2 || x.spread_pct() <= 5.0) continue;
    out.push_back(fmt::format(
        "the {} real runs' iteration times spread {:.1f} %: this machine did not repeat itself closer than that, "
        "and an error below it cannot be told from noise (bench_steadiness shows how steady the cores are)",
        x.runs.size(), x.spread_pct()));
  }
  if (!cluster.calibration) return out;
  const MachineInfo& m = cluster.calibration->machine;
  const int ranks = static_cast<int>(plan.ranks.size());
  if (!cost::shared_cores(cluster, plan).empty()) {
    out.push_back(
        fmt::format("{} ranks share {} cores: the engines queue their compute on the cores and hold the cores for "
                    "communication, but not the OS's scheduling of the ranks' communication (on the 2-core machine of "
                    "docs/VALIDATION.md parameter servers sharing cores were predicted 10 to 40 % fast)",
                    ranks, m.cores));
  } else if (m.hosts == 1 && m.cores > 0 && ranks > m.cores) {  // shared_cores() needs the same rank count
    out.push_back(fmt::format(
        "the profile was measured with {} ranks and this Plan has {} on {} cores: the engines give every rank a "
        "core of its own; calibrate with -np {} so that they know how the ranks share the cores",
        m.ranks, ranks, m.cores, ranks));
  }
  return out;
}

std::vector<std::string> profile_cautions(const CalibrationProfile& p) {
  std::vector<std::string> out;
  if (p.self_check && !p.self_check->passed()) {
    const SelfCheck& c = *p.self_check;
    out.push_back(
        fmt::format("the profile's self-check failed: calibrate ran its job ({}) for real in {:.4g} ms and "
                    "predicted {:.4g} ms with the profile ({:+.1f} %, past {:g} %): this profile mispredicts "
                    "the machine it was measured on; calibrate again",
                    c.job, c.measured_s * 1e3, c.predicted_s * 1e3, c.error_pct(), kSelfCheckBoundPct));
  }
  if (p.fit_checks.empty()) {
    out.push_back(
        fmt::format("{} was written before dtsim calibrate checked its fits: calibrate again to know "
                    "whether each fitted curve is within its bounds",
                    p.path));
    return out;
  }
  for (const FitCheck& c : p.fit_checks) {
    if (c.verdict == FitVerdict::Ok) continue;
    out.push_back(fmt::format("the profile's {} curve {} is {}: {}{}", c.group, c.name, fit_verdict_name(c.verdict),
                              c.reason,
                              c.verdict == FitVerdict::Refused ? " (left out: the model's cost stands in for it)"
                                                               : " (predictions through it carry that misfit)"));
  }
  return out;
}

void print_report(std::ostream& out, const ValidationReport& r) {
  out << fmt::format(
      "validation of {} on {} ranks: {} backend (measured) against {} engine with {} (predicted); "
      "compute scale {:.6g}\n",
      r.scenario, r.ranks, backend_name(r.backend), r.engine, r.profile, r.compute_scale);
  const auto table = [&](const char* title, const std::vector<ValidationRow>& rows) {
    out << fmt::format("\n  {:<38} {:>14} {:>14} {:>9} {:>8}\n", title, "predicted", "measured", "error", "spread");
    for (const ValidationRow& x : rows) {
      const auto value = [&x](double v) {
        if (x.unit == "s") return fmt::format("{:.4g} ms", v * 1e3);
        return x.unit == "B" ? format_bytes(v) : fmt::format("{:.4g} {}", v, x.unit);
      };
      out << fmt::format("  {:<38} {:>14} {:>14} {:>8.1f}% {:>7.1f}%\n", x.name, value(x.predicted), value(x.measured),
                         x.error_pct(), x.spread_pct());
    }
  };
  if (r.repeats > 1) {
    out << fmt::format("measured: the median of {} real runs; spread: (largest - smallest) / median over them\n",
                       r.repeats);
  }
  table("metric (per iteration)", r.metrics);
  table("op kind (mean per op)", r.op_kinds);
  out << fmt::format("\n  mean absolute error {:.1f} %, largest {:.1f} % (over the metrics)\n", r.mean_abs_error_pct,
                     r.max_abs_error_pct);
  if (r.iteration_without_contention > 0 && !r.metrics.empty() && r.metrics.front().measured > 0) {
    out << fmt::format(
        "  without contention (cluster.contention.compute=1) the iteration is predicted {:.4g} ms: {:+.1f} % "
        "(with it {:+.1f} %)\n",
        r.iteration_without_contention * 1e3, r.without_contention_error_pct(), r.metrics.front().error_pct());
  }
  for (const std::string& c : r.caveats) out << "  caution: " << c << "\n";
}

int validate(const ValidateOptions& o, std::ostream& out) {
  if (o.calibration.empty()) throw InputError("--calibration: a profile from dtsim calibrate is required");
  // Refuses a missing, malformed or other-backend profile first; says what its fit checks found.
  const std::vector<std::string> profile_notes = profile_cautions(*load_calibration_profile(o.calibration, o.backend));
  if (!o.json) {
    for (const std::string& c : profile_notes) out << "caution: " << c << "\n";
  }
  std::vector<std::string> sets = o.sets;
  sets.push_back("cluster.calibration=" + fs::absolute(o.calibration).string());
  if (!o.engine.empty()) sets.push_back("run.engine=" + o.engine);
  const Scenario s = load_scenario(o.scenario, sets);
  Plan plan = compile_plan(s);
  const double scale = parse_scale(o.compute_scale, plan);
  real::scale_plan(plan, scale, 1.0);
  const int ranks = static_cast<int>(plan.ranks.size());

  const fs::path dir = o.out.empty() ? fs::path("runs") / (s.name + "-validate") : fs::path(o.out);
  fs::create_directories(dir);

  if (o.repeats < 1) throw InputError(fmt::format("--repeats: {} is not a positive count", o.repeats));
  // Measured: dtsim-real on the same scenario and compute scale, o.repeats times (real-1, ...).
  for (int i = 1; i <= o.repeats; ++i) {
    const fs::path run_dir = dir / fmt::format("real-{}", i);
    fs::remove_all(run_dir);
    const int code = run_real(o, ranks, scale, run_dir, out);
    if (code != 0) return code;
  }

  // Predicted: the same scaled Plan, simulated with the profile.
  // The same scaled Plan on the scenario's engine (sim/run.hpp).
  const sim::RunResult predicted = sim::run_plan(s, plan);
  const nlohmann::json sim_metrics = run_metrics_json(predicted.metrics);
  const std::string sim_trace = trace_json(plan, predicted.records, s.cluster.nodes);
  const RunFolder sim_folder((dir / "sim").string());  // metrics.json last, as `dtsim run` writes a run
  sim_folder.write("trace.json", sim_trace);
  sim_folder.write_metrics(sim_metrics);

  // The same without contention, beside it (the whole Plan again with cluster.contention.compute=1);
  // on the analytical engine only (SimGrid runs one simulation per process).
  double without_contention = 0;
  if (s.run.engine == Engine::Analytical) {
    std::vector<std::string> off = sets;
    off.emplace_back("cluster.contention.compute=1");
    const Scenario s_off = load_scenario(o.scenario, off);
    Plan p_off = compile_plan(s_off);
    real::scale_plan(p_off, scale, 1.0);
    without_contention = sim::run_plan(s_off, std::move(p_off)).metrics.front().iteration_time.mean;
  }
  const nlohmann::json sim_trace_json = nlohmann::json::parse(sim_trace);
  std::vector<ValidationReport> runs;
  for (int i = 1; i <= o.repeats; ++i) {
    const fs::path run_dir = dir / fmt::format("real-{}", i);
    runs.push_back(compare_runs(sim_metrics, read_json((run_dir / "metrics.json").string()), sim_trace_json,
                                read_json((run_dir / "trace.json").string()), plan.warmup));
  }
  keep_median_run(dir, runs);
  ValidationReport r = median_over_runs(runs);
  r.scenario = s.name;
  r.profile = o.calibration;
  r.backend = o.backend;
  r.engine = std::string(engine_name(s.run.engine));
  r.ranks = ranks;
  r.compute_scale = scale;
  r.caveats = validation_caveats(r, s.cluster, plan);
  r.profile_cautions = profile_notes;
  r.iteration_without_contention = without_contention;
  const nlohmann::json j = report_json(r);
  write_file_atomic((dir / "validation.json").string(), j.dump(2) + "\n");
  if (o.json) {
    out << j.dump(2) << "\n";
  } else {
    print_report(out, r);
    out << fmt::format(
        "wrote {}/validation.json (the real run of median iteration time in {}/real, the others in "
        "{}/real-N; the simulation in {}/sim)\n",
        dir.string(), dir.string(), dir.string(), dir.string());
  }
  return 0;
}

}  // namespace dtsim::calib
