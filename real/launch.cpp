// Loading, checking the world, running and merging the results of dtsim-real.
#include "real/launch.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/plan/hybrid/job.hpp"
#include "core/run/metrics.hpp"
#include "core/run/run_folder.hpp"
#include "core/scenario/loader.hpp"
#include "core/scenario/sync_policy.hpp"
#include "core/scenario/warnings.hpp"
#include "models/compression/method.hpp"
#include "real/executor.hpp"
#include "real/hybrid_shrink.hpp"
#include "real/plan_scale.hpp"
#include "real/report.hpp"

namespace dtsim::real {
namespace {

int plan_ranks(const std::string& scenario, std::vector<std::string> sets) {
  try {
    return static_cast<int>(compile_plan(load_scenario(scenario, sets)).ranks.size());
  } catch (const std::exception&) {
    return -1;
  }
}

double parse_scale(const std::string& text, const Plan& plan) {
  if (text == "auto") return auto_compute_scale(plan);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (!(v > 0) || !std::isfinite(v) || *end != '\0')
    throw InputError(fmt::format("--compute-scale: '{}' is not a positive number or 'auto'", text));
  return v;
}

std::string hostname() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

}  // namespace

namespace {

// Up to `limit` exact shrinks to `world` ranks, each a list of raw overrides.
std::vector<std::vector<std::string>> shrinks(const LaunchOptions& o, int world, size_t limit) {
  std::vector<std::vector<std::string>> found;
  auto attempt = [&](std::vector<std::string> extra) {
    if (found.size() >= limit) return;
    std::vector<std::string> sets = o.sets;
    sets.insert(sets.end(), extra.begin(), extra.end());
    if (plan_ranks(o.scenario, sets) == world) found.push_back(std::move(extra));
  };
  for (int n = 1; n <= 64 && found.empty(); ++n) attempt({fmt::format("cluster.nodes={}", n)});
  for (int d = 1; d <= 16 && found.size() < limit; ++d) attempt({fmt::format("cluster.devices_per_node={}", d)});
  for (int n = 1; n <= 16 && found.empty(); ++n) {
    for (int d = 1; d <= 16 && found.empty(); ++d) {
      attempt({fmt::format("cluster.nodes={}", n), fmt::format("cluster.devices_per_node={}", d)});
    }
  }
  return found;
}

std::string as_set_flags(const std::vector<std::string>& sets) {
  std::string text;
  for (const auto& e : sets) text += (text.empty() ? "--set " : " --set ") + e;
  return text;
}

// The dtsim beside this dtsim-real (build/bin/dtsim, relative to the current folder when below
// it), or plain `dtsim`.
std::string dtsim_command() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "dtsim";
  const std::filesystem::path dtsim = self.parent_path() / "dtsim";
  if (!std::filesystem::exists(dtsim, ec)) return "dtsim";
  const std::filesystem::path rel = std::filesystem::relative(dtsim, std::filesystem::current_path(), ec);
  return !ec && !rel.empty() && *rel.begin() != ".." ? rel.string() : dtsim.string();
}

// `dtsim run` of the scenario as this run executed it (the user's --set and any shrink), its
// output beside this run's: `runs/quickstart-real` -> `runs/quickstart-sim`.
std::string simulate_command(const LaunchOptions& o, const std::string& out) {
  std::string sim_out = out;
  if (sim_out.size() > 5 && sim_out.ends_with("-real")) {
    sim_out.replace(sim_out.size() - 5, 5, "-sim");
  } else {
    sim_out += "-sim";
  }
  std::string cmd = dtsim_command() + " run " + o.scenario;
  if (!o.sets.empty()) cmd += " " + as_set_flags(o.sets);
  return cmd + " --out " + sim_out;
}

}  // namespace

std::vector<std::string> world_size_hints(const LaunchOptions& o, int world) {
  std::vector<std::string> out;
  for (const auto& s : shrinks(o, world, 2)) out.push_back(as_set_flags(s));
  return out;
}

std::vector<std::string> shrink_overrides(const LaunchOptions& o, int world) {
  auto found = shrinks(o, world, 1);
  return found.empty() ? std::vector<std::string>{} : found.front();
}

void check_world_size(const Plan& plan, int world, const LaunchOptions& o, bool threads) {
  const int needed = static_cast<int>(plan.ranks.size());
  if (needed == world) return;
  int servers = 0;
  for (const auto& r : plan.ranks) servers += r.role == Role::Server;
  std::string msg =
      threads
          ? fmt::format(
                "scenario needs {} ranks ({} workers + {} servers) but --gpus gave {}; use --gpus {} on a "
                "node of {} GPUs (or mpirun -np {} over several nodes)",
                needed, needed - servers, servers, world, needed, needed, needed)
          : fmt::format("scenario needs {} ranks ({} workers + {} servers) but mpirun started {}; use mpirun -np {}",
                        needed, needed - servers, servers, world, needed);
  const std::vector<std::string> hints = world_size_hints(o, world);
  if (!hints.empty()) {
    msg += fmt::format(", or shrink the scenario to {} ranks with {}", world, hints.front());
    if (hints.size() > 1) msg += fmt::format(" (or {})", hints[1]);
  }
  throw InputError(SourceLocation{o.scenario, 0, 0}, msg);
}

namespace {

// "a", "a and b", "a, b and c".
std::string spoken_list(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == names.size() ? " and " : ", ", names[i]);
  }
  return out;
}

// The sync policies dtsim-real runs with --backend cpu (cuda = false) or cuda, and with cpu only.
std::vector<std::string_view> real_policies(bool cuda) {
  std::vector<std::string_view> names;
  for (const SyncPolicyTraits& p : sync_policies()) {
    if (cuda ? p.real_cuda : p.real_cpu) names.push_back(p.name);
  }
  return names;
}

std::vector<std::string_view> cpu_only_policies() {
  std::vector<std::string_view> names;
  for (const SyncPolicyTraits& p : sync_policies()) {
    if (p.real_cpu && !p.real_cuda) names.push_back(p.name);
  }
  return names;
}

// The compression methods (none aside) a backend carries out in a job of this exchange: those it
// carries out in both kinds of job first, then those of this kind only ("fp16, ..., sign, powersgd").
// With `other_only`: those it carries out in the other kind of job only ("int8 and qsgd").
std::vector<std::string_view> real_methods(RealSupport MethodTraits::*backend, bool allreduce,
                                           bool other_only = false) {
  std::vector<std::string_view> both, only;
  for (const MethodTraits& m : compression_methods()) {
    if (m.method == CompressionMethod::None) continue;
    const RealSupport& r = m.*backend;
    const bool here = r.in(allreduce), there = r.in(!allreduce);
    if (other_only ? there && !here : here) (here && there ? both : only).push_back(m.name);
  }
  both.insert(both.end(), only.begin(), only.end());
  return both;
}

}  // namespace

// What a backend does not execute yet: the proxy model of convergence runs, the sync policies and
// compression methods their tables do not give it (core/scenario/sync_policy.cpp and
// models/compression/method.cpp), speed profiles, dynamic batches, tensor-parallel communication overlap, device
// mixes and NIC profiles (simulator only).
void check_supported(const Scenario& s, Backend backend) {
  if (s.run.convergence.enabled) {
    throw InputError(s.location_of("run.convergence.enabled"),
                     "run.convergence.enabled: dtsim-real does not train the proxy model yet (it runs in the "
                     "simulator: dtsim run)");
  }
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    const JobSpec& job = s.jobs[j];
    const SyncPolicyTraits& policy = sync_policy(job.sync.kind);
    if (!policy.real_cpu) {
      const std::string key = s.job_key(j, "sync.policy");
      throw InputError(s.location_of(key),
                       fmt::format("{}: dtsim-real runs {} (backup workers and gossip run in the simulator: dtsim run)",
                                   key, spoken_list(real_policies(false))));
    }
    if (!job.stragglers.speed_profile.times.empty() || job.strategy.dynamic_batch) {
      const std::string key =
          s.job_key(j, job.strategy.dynamic_batch ? "strategy.dynamic_batch" : "stragglers.speed_profile");
      throw InputError(s.location_of(key),
                       fmt::format("{}: dtsim-real does not apply speed profiles or dynamic batches "
                                   "yet (they run in the simulator: dtsim run)",
                                   key));
    }
    const MethodTraits& method = method_traits(job.compression.method);
    const bool allreduce = job.strategy.kind == StrategyKind::AllReduce;
    if (method.method != CompressionMethod::None) {
      const std::string key = s.job_key(j, "compression.method");
      if (!method.cpu.in(allreduce)) {
        throw InputError(s.location_of(key),
                         fmt::format("{}: dtsim-real does not carry out {} in an AllReduce job (its packed integers "
                                     "need an integer-sum collective; valid here: {}; {} run in parameter-server jobs)",
                                     key, method.name, fmt::join(real_methods(&MethodTraits::cpu, true), ", "),
                                     spoken_list(real_methods(&MethodTraits::cpu, true, true))));
      }
      if (job.model.grad_dtype != Dtype::Fp32) {
        throw InputError(
            s.location_of(s.job_key(j, "model.grad_dtype")),
            fmt::format("{}: dtsim-real compresses fp32 gradients only", s.job_key(j, "model.grad_dtype")));
      }
    }
    if (tp_comm_overlap_applies(job)) {
      const std::string key = s.job_key(j, "framework.tp_comm_overlap");
      throw InputError(s.location_of(key),
                       fmt::format("{}: dtsim-real does not overlap tensor-parallel collectives with their GEMMs "
                                   "(userbuffers); set it false to run the layout, or simulate it with dtsim run",
                                   key));
    }
    if (backend != Backend::Cuda) continue;
    if (!policy.real_cuda) {
      const std::string key = s.job_key(j, "sync.policy");
      throw InputError(s.location_of(key),
                       fmt::format("{}: dtsim-real --backend cuda runs {} only ({} run with "
                                   "--backend cpu)",
                                   key, spoken_list(real_policies(true)), spoken_list(cpu_only_policies())));
    }
    if (!method.cuda.in(allreduce)) {
      const std::string key = s.job_key(j, "compression.method");
      throw InputError(
          s.location_of(key),
          fmt::format("{}: dtsim-real --backend cuda does not carry out {} yet (valid with --backend "
                      "cuda: {}; {} runs with --backend cpu)",
                      key, method.name, fmt::join(real_methods(&MethodTraits::cuda, allreduce), ", "), method.name));
    }
  }
  // The real run's devices are what they are: a device mix or a NIC profile describes another machine.
  for (const char* key : {"cluster.device_mix", "cluster.nic_profile"}) {
    if (s.where.count(key) > 0) {
      throw InputError(s.location_of(key), fmt::format("{}: dtsim-real runs on the devices and NICs it is given; "
                                                       "simulate this with dtsim run",
                                                       key));
    }
  }
}

// Measured staleness per asynchronous job: the versions of its shard each update missed.
nlohmann::json measured_staleness(const Plan& plan, const RealSummary& summary) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [job, values] : summary.staleness) {
    if (values.empty()) continue;
    std::vector<double> v(values.begin(), values.end());
    const Stats st = summarize(v);
    std::vector<long> histogram;
    for (int x : values) {
      if (histogram.size() <= static_cast<size_t>(x)) histogram.resize(static_cast<size_t>(x) + 1, 0);
      ++histogram[static_cast<size_t>(x)];
    }
    out.push_back({{"job", plan.jobs[job].name},
                   {"updates", values.size()},
                   {"mean", st.mean},
                   {"p50", st.p50},
                   {"p99", st.p99},
                   {"max", st.max},
                   {"histogram", histogram},
                   {"method",
                    "shard version read under the update's lock minus the version after this worker's "
                    "previous update"}});
  }
  return out;
}

int gpus_to_drive(int requested) {
  if (requested < 0)
    throw InputError(fmt::format("--gpus: {} is not a GPU count (valid: 1 or more, or 0 for all)", requested));
  const int visible = visible_gpus();
  if (requested > visible) {
    throw BackendUnavailable(
        fmt::format("--gpus {}: this machine shows {} CUDA device(s) (CUDA_VISIBLE_DEVICES={})", requested, visible,
                    std::getenv("CUDA_VISIBLE_DEVICES") ? std::getenv("CUDA_VISIBLE_DEVICES") : "unset"));
  }
  return requested == 0 ? visible : requested;
}

std::unique_ptr<RealExecutor> make_executor(Backend backend, HostComm& comm, const RealOptions& options) {
  switch (backend) {
    case Backend::Cuda: return make_cuda_executor(comm, options);
    case Backend::Cpu:
      if (comm.mpi() == MPI_COMM_NULL) throw RuntimeError("the cpu backend runs its ranks as MPI processes only");
      return make_cpu_executor(comm.rank(), options);
  }
  throw RuntimeError("unknown backend");
}

int launch(const LaunchOptions& given, HostComm& world, const ExecutorFactory& make) {
  const bool threads = world.mpi() == MPI_COMM_NULL;
  LaunchOptions o = given;
  Scenario s = load_scenario(o.scenario, o.sets);
  Plan plan = compile_plan(s);
  // A world smaller than the scenario: run the scenario shrunk to it, when an exact shrink exists.
  std::vector<std::string> overrides;
  const int needed = static_cast<int>(plan.ranks.size());
  if (o.shrink && world.size() < needed) overrides = shrink_overrides(o, world.size());
  // A hybrid layout larger than the world: a small transformer of the same kind (hybrid_shrink.hpp).
  bool small_model = false;
  if (o.shrink && world.size() < needed && overrides.empty()) {
    for (const std::vector<std::string>& candidate : hybrid_shrinks(s, world.size())) {
      std::vector<std::string> sets = o.sets;
      sets.insert(sets.end(), candidate.begin(), candidate.end());
      if (plan_ranks(o.scenario, sets) != world.size()) continue;
      overrides = candidate;
      small_model = true;
      break;
    }
  }
  if (!overrides.empty()) {
    o.sets.insert(o.sets.end(), overrides.begin(), overrides.end());
    s = load_scenario(o.scenario, o.sets);
    plan = compile_plan(s);
    if (world.rank() == 0) {
      std::cout << fmt::format(
          "dtsim-real: note: {} needs {} ranks but {}; running it shrunk to {} ranks{} with {} "
          "(--no-shrink refuses instead)\n",
          o.scenario, needed, world.started(), world.size(),
          small_model ? " as a small transformer of the same layout (2 layers per stage and model chunk, hidden 256)"
                      : "",
          as_set_flags(overrides));
    }
  }
  check_supported(s, o.backend);
  check_world_size(plan, world.size(), given, threads);
  if (world.rank() == 0) {
    for (const std::string& w : scenario_warnings(s)) std::cerr << w << "\n";
  }
  if (o.comm_scale <= 0) throw InputError("--comm-scale must be positive");
  const double compute_scale = parse_scale(o.compute_scale, plan);
  scale_plan(plan, compute_scale, o.comm_scale);

  RealOptions options;
  options.mpi_collectives = o.mpi_collectives;
  // Every rank learns whether any rank lacks its backend, so all exit with code 3 together.
  std::unique_ptr<RealExecutor> executor;
  std::string unavailable;
  try {
    executor = make ? make(world, options) : make_executor(o.backend, world, options);
  } catch (const BackendUnavailable& e) {
    unavailable = e.what();
  }
  const std::string why = first_failure(world, unavailable);
  if (!why.empty()) throw BackendUnavailable(why);

  const RankProgram& me = plan.ranks[world.rank()];
  const std::vector<std::string> mapping =
      world.gather(fmt::format("{}\t{}\t{}\t{}\t{}", hostname(), me.role == Role::Worker ? "worker" : "server",
                               me.where.node, me.where.local, executor->device()));
  if (world.rank() == 0) {
    std::cout << fmt::format(
        "dtsim-real {}: {} on {} ranks{}, backend {}, {}\n", DTSIM_VERSION, s.name, world.size(),
        threads ? " (threads of one process, one per GPU)" : "", backend_name(o.backend),
        o.mpi_collectives ? "MPI library collectives" : "collective schedules of models/collectives");
    std::cout << fmt::format("  compute scale {:.6g}{}, comm scale {:.6g}\n", compute_scale,
                             o.compute_scale == "auto"
                                 ? fmt::format(" (auto: at most {} per rank per iteration; --compute-scale 1 runs "
                                               "the full workload)",
                                               fmt::format("{:g} GFLOP", kAutoFlopsPerRank / 1e9))
                                 : "",
                             o.comm_scale);
    if (!o.quiet) print_mapping(std::cout, mapping);
  }

  Recorder recorder;
  const RunInfo info = executor->run(plan, recorder);
  const RankReport mine = executor->report();
  std::vector<OpRecord> records = gather_records(recorder.records(), world);
  start_sends_at_rendezvous(plan, records);
  const std::vector<std::string> reports = world.gather(report_to_json(mine).dump());
  const double wall = world.allreduce_value(info.wall_time_s, HostComm::Reduce::Max);
  if (world.rank() != 0) return 0;

  const std::string out = o.out.empty() ? (std::filesystem::path("runs") / (s.name + "-real")).string() : o.out;
  RunInfo merged = info;
  merged.wall_time_s = wall;
  const std::vector<Metrics> jobs = compute_job_metrics(plan, records, merged);
  nlohmann::json metrics = run_metrics_json(jobs);
  const RealSummary summary = summarize_reports(plan, reports, mapping);
  metrics["checks"] = summary.checks;
  metrics["real"] = {{"backend", backend_name(o.backend)},
                     {"collectives", o.mpi_collectives ? "mpi" : "schedule"},
                     {"compute_scale", compute_scale},
                     {"comm_scale", o.comm_scale},
                     {"compute_dtype_note", "fp16/bf16/tf32 compute runs in fp32 on the cpu backend"},
                     {"flops_planned", summary.flops_planned},
                     {"flops_executed", summary.flops_executed},
                     {"bytes_sent", summary.bytes_sent},
                     {"launcher", threads ? "threads of one process (--gpus)" : "mpi"},
                     {"clock", threads ? "the process's steady clock, t=0 at the start barrier"
                                       : "MPI_Wtime aligned to rank 0 (ping-pong offsets), t=0 at the start barrier"},
                     {"ranks", summary.ranks},
                     {"scenario_overrides", overrides},
                     {"flops_straggler", summary.flops_straggler},
                     {"memory", summary.memory},
                     {"staleness", measured_staleness(plan, summary)},
                     {"simulate_with", simulate_command(o, out)}};
  const RunFolder folder(out);  // an earlier run's metrics.json goes first; this one's is written last
  if (o.trace) folder.write_trace(plan, records, s.cluster.nodes);
  folder.write_metrics(metrics);
  print_result(std::cout, jobs, summary);
  std::cout << fmt::format("wrote {}/metrics.json{}\n", out, o.trace ? fmt::format(" and {}/trace.json", out) : "");
  std::cout << fmt::format("simulate the same scenario: {}\n", simulate_command(o, out));
  return summary.exact ? 0 : 1;
}

}  // namespace dtsim::real
