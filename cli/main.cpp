// dtsim: the command-line front. Parses arguments, calls the libraries, maps errors to exit codes:
// 0 success, 1 runtime failure, 2 bad usage or bad scenario.
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "core/base/error.hpp"

namespace {

// Each subcommand's --help ends with its own examples; `dtsim --help` with one of each.
struct Examples {
  const char* command;  // "" for dtsim itself
  const char* lines;
};
constexpr Examples kExamples[] = {
    {"", R"(
Examples:
  dtsim run scenarios/quickstart.yaml
  dtsim check scenarios/quickstart.yaml
  dtsim sweep scenarios/quickstart.yaml --param cluster.nodes=1..64:x2
  dtsim compare runs/a runs/b
  dtsim checkpoint scenarios/failures_checkpointing.yaml
  dtsim tune scenarios/gpt3_175b_megatron.yaml --devices 1024
  dtsim kernels scenarios/gpt3_175b_megatron.yaml --top 15
  dtsim models list          dtsim models show resnet50
  dtsim devices              dtsim keys
  mpirun -np 2 --oversubscribe dtsim calibrate --backend cpu --out profile.yaml
  dtsim validate bench/validation/ring_2_16MB.yaml --calibration profile.yaml --backend cpu
Each subcommand's --help shows its own examples.
)"},
    {"run", R"(
Examples:
  dtsim run scenarios/quickstart.yaml
  dtsim run scenarios/quickstart.yaml --set cluster.nodes=8 --out runs/8nodes
  dtsim run scenarios/quickstart.yaml --engine analytical
  dtsim run scenarios/parameter_server.yaml --set strategy.parameter_server.shards=4
  dtsim run scenarios/synthetic_torus.yaml --json
)"},
    {"check", R"(
Examples:
  dtsim check scenarios/quickstart.yaml
  dtsim check scenarios/quickstart.yaml --set cluster.nodes=1024
)"},
    {"sweep", R"(
Examples:
  dtsim sweep scenarios/quickstart.yaml --param cluster.nodes=1..64:x2
  dtsim sweep scenarios/quickstart.yaml --param cluster.nodes=1..16:x2 --scaling strong --jobs 2
  dtsim sweep scenarios/compression_vs_bandwidth.yaml --param cluster.nic.rate=1Gbps,10Gbps,100Gbps
  dtsim sweep scenarios/quickstart.yaml --param cluster.nodes=1..64:x2 --shard 0/2 --out runs/s0
)"},
    {"merge", R"(
Examples:
  dtsim merge runs/sweep runs/s0 runs/s1
)"},
    {"compare", R"(
Examples:
  dtsim compare runs/a runs/b
  dtsim compare runs/a/metrics.json runs/b/metrics.json runs/c
)"},
    {"models", R"(
Examples:
  dtsim models list
  dtsim models show resnet50
  dtsim models import path/to/config.json --out my_model.yaml
)"},
    {"devices", R"(
Examples:
  dtsim devices
)"},
    {"checkpoint", R"(
Examples:
  dtsim checkpoint scenarios/failures_checkpointing.yaml
  dtsim checkpoint scenarios/failures_checkpointing.yaml --trials 1000 --json
)"},
    {"tune", R"(
Examples:
  dtsim tune scenarios/gpt3_175b_megatron.yaml
  dtsim tune scenarios/gpt3_175b_megatron.yaml --devices 1024 --top 3 --jobs 2
  dtsim tune scenarios/llama3_70b_fsdp.yaml --fix tensor=8 --max-memory-fraction 0.9
  mpirun -np 4 dtsim tune scenarios/gpt3_175b_megatron.yaml --top 8 --mpi --out runs/tune
  dtsim tune scenarios/gpt3_175b_megatron.yaml --top 8 --shard 0/2 --out runs/tune-a0     (and 1/2 into runs/tune-a1)
  dtsim tune scenarios/gpt3_175b_megatron.yaml --top 8 --shard 0/2 --merge runs/tune-a0 runs/tune-a1 --out runs/tune-b0
  dtsim tune scenarios/gpt3_175b_megatron.yaml --top 8 --merge runs/tune-b0 runs/tune-b1 --out runs/tune
)"},
    {"calibrate", R"(
Examples:
  mpirun -np 2 --oversubscribe dtsim calibrate --backend cpu --out profile.yaml
  mpirun -np 2 --oversubscribe dtsim calibrate --backend cpu --quick --out quick.yaml
  dtsim calibrate --backend cuda --out gpu.yaml          (no mpirun: every GPU of this node, a thread each)
  dtsim calibrate --backend cuda --gpus 2 --quick --out gpu.yaml
  dtsim calibrate --from-trace step.pt.trace.json.gz --out traced.yaml   (a torch.profiler trace of your model)
)"},
    {"validate", R"(
Examples:
  dtsim validate bench/validation/ring_2_16MB.yaml --calibration profile.yaml --backend cpu
  dtsim validate bench/validation/ring_2_16MB.yaml --calibration profile.yaml --repeats 5 --json
)"},
    {"export-chakra", R"(
Examples:
  dtsim export-chakra scenarios/quickstart.yaml --out traces/quickstart
  dtsim export-chakra scenarios/parameter_server.yaml --out traces/ps --gzip
)"},
    {"import-chakra", R"(
Examples:
  dtsim import-chakra traces/quickstart --out runs/replay && dtsim run runs/replay/scenario.yaml
  dtsim import-chakra traces/llama/et --out runs/llama --device h100_sxm --devices-per-node 8 --timing duration
)"},
    {"import-megatron", R"(
Examples:
  dtsim import-megatron launch.sh --preset dgx_h100 --nodes 16 --out gpt.yaml && dtsim run gpt.yaml
  dtsim import-megatron tests/core/scenario/data/megatron_llama3_8b.sh --preset dgx_h100
)"},
    {"collectives", R"(
Examples:
  dtsim collectives --preset dgx_h100 --nodes 2
  dtsim collectives --preset gcp_a3_mega --nodes 2 --ops allgather --min-bytes 256 --max-bytes 8GiB
  dtsim collectives --device h100_sxm --nodes 2 --set cluster.intra_node.kind=nvlink4 --set cluster.nic.kind=ib_ndr
  dtsim collectives scenarios/gpt3_175b_megatron.yaml --nodes 1 --ops allreduce --min-bytes 1MiB
  dtsim collectives --preset aws_p5 --nodes 2 --ops allreduce --measured bench/collectives/published/aws_p5_all_reduce_2n.csv --plot p5.svg
)"},
    {"kernels", R"(
Examples:
  dtsim kernels scenarios/gpt3_175b_megatron.yaml --top 15
  dtsim kernels scenarios/llama3_70b_fsdp.yaml
  dtsim kernels scenarios/quickstart.yaml --set cluster.device=h100_sxm
)"},
    {"keys", R"(
Examples:
  dtsim keys
  dtsim keys --markdown > docs/scenarios.md
)"},
};

// Sets every subcommand's footer (after they are made: a subcommand copies its parent's footer).
void add_examples(CLI::App& app) {
  for (const Examples& e : kExamples) {
    if (*e.command == '\0') {
      app.footer(e.lines);
    } else {
      app.get_subcommand(e.command)->footer(e.lines);
    }
  }
}

// Builds the command line, parses it and runs the subcommand: its exit code, or a typed error
// that main maps to one.
int parse_and_run(int argc, char** argv) {
  using namespace dtsim;
  CLI::App app{"dtsim: simulate distributed deep-learning training before you rent the cluster"};
  app.set_version_flag("--version", std::string("dtsim ") + DTSIM_VERSION);
  app.require_subcommand(1);
  cli::one_line_usage_errors(app);

  cli::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Run a scenario and write metrics.json and trace.json");
  run_cmd->add_option("scenario", run.scenario, "Scenario file (YAML)")->required();
  run_cmd->add_option("--set", run.sets, "Override a scenario key: key.path=value (repeatable)");
  run_cmd->add_option("--engine", run.engine, "One of: " + engine_names() + " (default: the scenario's run.engine)");
  run_cmd->add_option("--out", run.out, "Output folder (default: runs/<scenario name>)");
  run_cmd->add_flag("!--no-trace", run.trace, "Do not write trace.json");
  run_cmd->add_flag("--json", run.json, "Print metrics.json instead of the summary table");

  std::string check_file;
  std::vector<std::string> check_sets;
  auto* check_cmd = app.add_subcommand("check", "Validate a scenario and compile its plan, without running it");
  check_cmd->add_option("scenario", check_file, "Scenario file (YAML)")->required();
  check_cmd->add_option("--set", check_sets, "Override a scenario key: key.path=value (repeatable)");

  cli::SweepOptions sweep;
  auto* sweep_cmd = app.add_subcommand("sweep", "Run a grid of points; write results, Amdahl/Gustafson fits and plots");
  sweep_cmd->add_option("scenario", sweep.request.scenario, "Scenario file (YAML)")->required();
  sweep_cmd
      ->add_option("--param", sweep.request.params,
                   "key.path=v1,v2,... or key.path=1..1024:x2 or key.path=1..16:+4 (repeatable: a grid)")
      ->required();
  sweep_cmd->add_option("--set", sweep.request.sets, "Override a scenario key for every point (repeatable)");
  sweep_cmd->add_option("--scaling", sweep.scaling, "strong (fixed global batch) or weak (fixed per-worker batch)")
      ->check(CLI::IsMember({"strong", "weak"}))
      ->capture_default_str();
  sweep_cmd->add_option("--engine", sweep.request.engine,
                        "One of: " + engine_names() + " (default: the scenario's run.engine)");
  sweep_cmd->add_option("--out", sweep.out, "Output folder (default: runs/<scenario name>-sweep)");
  sweep_cmd->add_option("--jobs,-j", sweep.jobs, "Simulations at once, each in its own process")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  sweep_cmd
      ->add_option("--efficiency-threshold", sweep.request.efficiency_threshold,
                   "Efficiency under which scaling stops paying")
      ->check(cli::finite_number())
      ->capture_default_str();
  sweep_cmd->add_flag("--mpi", sweep.mpi, "Spread the points over MPI ranks (run under mpirun); rank 0 writes");
  sweep_cmd->add_option("--shard", sweep.shard, "Run shard i of n (i/n, from 0), e.g. a Slurm array task; see merge");
  sweep_cmd->add_flag("!--no-plots", sweep.plots, "Do not write the plots");

  std::string merge_out;
  std::vector<std::string> merge_shards;
  auto* merge_cmd = app.add_subcommand("merge", "Merge the shard folders of a sweep (--shard i/n) into one");
  merge_cmd->add_option("out", merge_out, "Output folder")->required();
  merge_cmd->add_option("shards", merge_shards, "Shard folders")->required();

  std::vector<std::string> compare_runs;
  auto* compare_cmd = app.add_subcommand("compare", "Print runs side by side with their differences");
  compare_cmd->add_option("runs", compare_runs, "metrics.json files or run folders")->required()->expected(2, -1);

  std::string models_action = "list", model_name, models_out;
  auto* models_cmd = app.add_subcommand(
      "models", "List the model zoo, show one model's layer table, or import a Hugging Face config.json");
  models_cmd->add_option("action", models_action, "list, show or import")
      ->check(CLI::IsMember({"list", "show", "import"}));
  models_cmd->add_option("name", model_name, "Model to show, or the config.json to import");
  models_cmd->add_option("--out", models_out, "import: the model file to write (default: print it)");

  auto* devices_cmd = app.add_subcommand("devices", "List the device zoo");

  cli::CheckpointOptions ckpt;
  auto* ckpt_cmd =
      app.add_subcommand("checkpoint", "Suggest the checkpoint interval that maximises goodput under failures");
  ckpt_cmd->add_option("scenario", ckpt.scenario, "Scenario file (YAML) with faults.* keys")->required();
  ckpt_cmd->add_option("--set", ckpt.sets, "Override a scenario key: key.path=value (repeatable)");
  ckpt_cmd->add_option("--engine", ckpt.engine, "One of: " + engine_names() + " (default: the scenario's run.engine)");
  ckpt_cmd->add_option("--job", ckpt.job, "Which job (from 0)")->capture_default_str();
  ckpt_cmd->add_option("--trials", ckpt.trials, "Monte Carlo trials per interval")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  ckpt_cmd->add_option("--points", ckpt.points, "Intervals scanned, from Young/Daly / 8 to x 8")
      ->check(CLI::Range(3, 1000))
      ->capture_default_str();
  ckpt_cmd->add_flag("--json", ckpt.json, "Print the scan as JSON");

  cli::TuneOptions tune;
  auto* tune_cmd = app.add_subcommand(
      "tune", "Search a hybrid job's layouts for the fastest that fits: closed form, then the engines on the best");
  tune_cmd->add_option("scenario", tune.scenario, "Scenario file (YAML) of a hybrid transformer job")->required();
  tune_cmd->add_option("--set", tune.sets, "Override a scenario key: key.path=value (repeatable)");
  tune_cmd
      ->add_option("--devices", tune.devices, "Devices to lay the job out on (whole nodes; default: the scenario's)")
      ->check(CLI::Range(1, 1 << 24));
  tune_cmd
      ->add_option("--objective", tune.request.objective,
                   "time: the fastest on exactly --devices; throughput or cost: the most samples/s or the fewest "
                   "device-seconds per sample on 1, 2, 4, ... nodes up to --devices")
      ->transform(
          CLI::CheckedTransformer(std::map<std::string, tune::Objective>{{"time", tune::Objective::Time},
                                                                         {"throughput", tune::Objective::Throughput},
                                                                         {"cost", tune::Objective::Cost}}))
      ->capture_default_str();
  tune_cmd->add_option("--top", tune.request.top, "Layouts re-simulated on SimGrid (0: none)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  tune_cmd
      ->add_option("--screen", tune.request.screen,
                   "Layouts run on the analytical engine, the closed form's best (default: max(32, 4 x top))")
      ->check(CLI::Range(1, 100000));
  tune_cmd->add_option("--jobs", tune.request.jobs, "Engine runs at once")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  tune_cmd
      ->add_option("--max-memory-fraction", tune.max_memory_fraction,
                   "Of a device's memory a rank may need (default: tune.max_memory_fraction, 1)")
      ->check(cli::finite_number())
      ->check(CLI::Range(0.01, 1.0));
  tune_cmd->add_option(
      "--fix", tune.fixes,
      "Hold a size fixed: tensor, pipeline, context, expert, micro_batch or zero = N (repeatable; over "
      "tune.fixed.*)");
  tune_cmd
      ->add_option("--max-tensor", tune.max_tensor, "Largest tensor-parallel size searched (default: tune.max_tensor)")
      ->check(CLI::Range(1, 1 << 20));
  tune_cmd->add_option("--max-pipeline", tune.max_pipeline, "Most pipeline stages searched, 0: any (tune.max_pipeline)")
      ->check(CLI::Range(0, 1 << 20));
  tune_cmd->add_option("--max-context", tune.max_context, "Largest context-parallel size searched (tune.max_context)")
      ->check(CLI::Range(1, 1 << 20));
  tune_cmd->add_option("--max-micro-batch", tune.max_micro_batch, "Largest micro-batch searched (tune.max_micro_batch)")
      ->check(CLI::Range(1, 1 << 20));
  tune_cmd->add_option("--tokens", tune.tokens,
                       "Search the global batch too: MIN:MAX tokens a step, e.g. 1.5M:3M (tune.min_tokens_per_step, "
                       "tune.max_tokens_per_step)");
  tune_cmd
      ->add_option("--max-virtual-stages", tune.max_virtual_stages,
                   "Most model chunks per pipeline rank, interleaved (tune.max_virtual_stages)")
      ->check(CLI::Range(1, 1 << 10));
  tune_cmd->add_option("--show", tune.show, "Rows of the table")->check(CLI::Range(1, 100000))->capture_default_str();
  tune_cmd->add_option("--out", tune.out,
                       "Folder for results.csv and tune.json, and the engine runs a rerun reuses (default: "
                       "runs/<scenario name>-tune)");
  tune_cmd->add_flag("--mpi", tune.mpi, "Spread the engine runs over MPI ranks (run under mpirun); rank 0 writes");
  tune_cmd->add_option(
      "--shard", tune.shard,
      "Run share i of n (i/n, from 0) of the analytical pass, or with --merge of the SimGrid pass: Slurm array tasks");
  tune_cmd->add_option("--merge", tune.merge,
                       "Shard folders of this search (--shard i/n) to combine into --out, then go on (the rest, or "
                       "with --shard a share)");

  cli::CalibrateCliOptions calib;
  auto* calib_cmd = app.add_subcommand(
      "calibrate",
      "Measure this machine (under mpirun, or for cuda the node's GPUs: GEMMs, memory, links, collectives) and fit a "
      "profile");
  cli::add_backend_option(calib_cmd, calib.backend, "cpu (MPI + Eigen) or cuda");
  calib_cmd->add_option("--out", calib.out, "Profile to write (YAML)")->capture_default_str();
  calib_cmd->add_flag("--quick", calib.quick, "Fewer sizes and shorter repeats (CI, a few seconds)");
  calib_cmd->add_option("--gpus", calib.gpus,
                        "--backend cuda without mpirun: measure this many GPUs of this node, a thread each (default: "
                        "all visible)");
  calib_cmd->add_option("--from-trace", calib.from_trace,
                        "Fit to these torch.profiler Chrome traces (.json or .json.gz, record_shapes=True) instead of "
                        "measuring: no mpirun, no benchmark (repeatable)");
  calib_cmd->add_option("--device", calib.device,
                        "--from-trace: the zoo device the traces ran on, whose peaks bound the fits (default: the one "
                        "the trace names)");

  cli::ValidateCliOptions val;
  auto* val_cmd = app.add_subcommand(
      "validate", "Run a scenario for real (dtsim-real under mpirun) and simulated with a profile; report the errors");
  val_cmd->add_option("scenario", val.scenario, "Scenario file (YAML)")->required();
  val_cmd->add_option("--calibration", val.calibration, "Profile from dtsim calibrate")->required();
  cli::add_backend_option(val_cmd, val.backend, "What measures the run");
  val_cmd->add_option("--set", val.sets, "Override a scenario key: key.path=value (repeatable)");
  val_cmd->add_option("--engine", val.engine, "One of: " + engine_names() + " (default: the scenario's run.engine)");
  val_cmd
      ->add_option("--mpirun", val.mpirun,
                   "Launcher prefix for the real run: '-np N dtsim-real ...' follows, or N replaces {n} (srun -n {n}); "
                   "none: dtsim-real --gpus N on this node (cuda)")
      ->capture_default_str();
  val_cmd->add_option("--compute-scale", val.compute_scale, "As dtsim-real's: a factor or auto")->capture_default_str();
  val_cmd->add_option("--out", val.out, "Output folder (default: runs/<scenario name>-validate)");
  val_cmd->add_flag("--json", val.json, "Print validation.json instead of the table");
  val_cmd
      ->add_option("--repeats", val.repeats,
                   "Real runs; each measured value is their median, and their spread is shown")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);

  cli::ExportChakraOptions exp;
  auto* export_cmd =
      app.add_subcommand("export-chakra", "Write a scenario's Plan as Chakra execution traces, one per rank");
  export_cmd->add_option("scenario", exp.scenario, "Scenario file (YAML)")->required();
  export_cmd->add_option("--set", exp.sets, "Override a scenario key: key.path=value (repeatable)");
  export_cmd->add_option("--out", exp.out, "Folder for <name>.<rank>.et")->required();
  export_cmd->add_flag("--gzip", exp.gzip, "Write gzip-compressed traces (<name>.<rank>.et.gz)");

  cli::ImportChakraOptions imp;
  auto* import_cmd = app.add_subcommand("import-chakra",
                                        "Make a scenario folder that replays a set of Chakra traces (workload.chakra)");
  import_cmd->add_option("traces", imp.traces, "A folder holding one set of <name>.<rank>.et, or their prefix")
      ->required();
  import_cmd->add_option("--out", imp.out, "Scenario folder to write (scenario.yaml and traces/)")->required();
  import_cmd->add_option("--device", imp.device, "The cluster's device (dtsim devices)")->capture_default_str();
  import_cmd->add_option("--devices-per-node", imp.devices_per_node, "Devices per node (default: min(ranks, 8))")
      ->check(CLI::Range(1, 1 << 16));
  import_cmd->add_option("--timing", imp.timing, "workload.chakra_timing: auto, duration or roofline")
      ->check(CLI::IsMember({"auto", "duration", "roofline"}))
      ->capture_default_str();
  import_cmd->add_option("--engine", imp.engine, "run.engine: " + engine_names())
      ->check(CLI::IsMember(cli::engine_name_list()))
      ->capture_default_str();

  cli::ImportMegatronOptions meg;
  auto* megatron_cmd = app.add_subcommand("import-megatron", "Write a scenario from Megatron-LM's launch arguments");
  megatron_cmd->add_option("args", meg.args, "A file holding the launch command (torchrun ... pretrain_gpt.py --...)")
      ->required();
  megatron_cmd->add_option("--out", meg.out, "The scenario to write (default: print it)");
  megatron_cmd->add_option("--preset", meg.preset, "cluster.preset: the system (its device, links and NICs)");
  megatron_cmd->add_option("--device", meg.device, "cluster.device, without a preset (dtsim devices)");
  megatron_cmd->add_option("--nodes", meg.nodes, "Nodes (default: torchrun's --nnodes)")->check(CLI::Range(1, 1 << 20));
  megatron_cmd->add_option("--gpus-per-node", meg.gpus_per_node, "GPUs a node (default: torchrun's --nproc-per-node)")
      ->check(CLI::Range(1, 1 << 16));

  cli::CollectivesOptions coll;
  auto* coll_cmd = app.add_subcommand(
      "collectives",
      "Print the nccl-tests table NCCL's cost model predicts for a cluster (time, algbw, busbw, algorithm)");
  coll_cmd->add_option("scenario", coll.scenario, "Scenario file whose cluster to use (default: --device and --set)");
  coll_cmd->add_option("--set", coll.sets, "Override a scenario key: key.path=value (repeatable)");
  coll_cmd->add_option("--preset", coll.preset,
                       "A system's cluster keys (the same as --set cluster.preset=NAME; docs/collectives.md)");
  coll_cmd->add_option("--device", coll.device,
                       "The GPU (dtsim devices; the same as --set cluster.device=NAME); without a scenario or preset: "
                       "h100_sxm");
  coll_cmd->add_option("--nodes", coll.nodes, "Nodes the communicator spans (default: cluster.nodes)");
  coll_cmd->add_option("--gpus-per-node", coll.gpus_per_node, "GPUs per node (default: cluster.devices_per_node)");
  coll_cmd->add_option("--ops", coll.ops, "Collectives")->delimiter(',')->capture_default_str();
  coll_cmd->add_option("--min-bytes", coll.min_bytes, "Smallest size (nccl-tests -b)")->capture_default_str();
  coll_cmd->add_option("--max-bytes", coll.max_bytes, "Largest size (nccl-tests -e)")->capture_default_str();
  coll_cmd->add_option("--factor", coll.factor, "Size multiplier (nccl-tests -f)")
      ->check(CLI::Range(1.01, 1024.0))
      ->capture_default_str();
  coll_cmd->add_option("--measured", coll.measured,
                       "A measured curve of the one collective of --ops: nccl-tests' output as it printed it, or a CSV "
                       "with bytes and busbw_GBps columns; the table is at its sizes, its busbw and the error beside");
  coll_cmd->add_option("--plot", coll.plot, "Draw busbw against size (and the measured curve) to this .svg or .png");

  cli::KernelsOptions kern;
  auto* kern_cmd = app.add_subcommand(
      "kernels", "Print one rank's kernels in one iteration: class, shape, waves, bound, time and share of the step");
  kern_cmd->add_option("scenario", kern.scenario, "Scenario file")->required();
  kern_cmd->add_option("--set", kern.sets, "Override a scenario key: key.path=value (repeatable)");
  kern_cmd->add_option("--rank", kern.rank, "The rank (default: the first worker)")->check(CLI::NonNegativeNumber);
  kern_cmd->add_option("--top", kern.top, "Only the N rows that take the most time, largest first")
      ->check(CLI::PositiveNumber);

  bool markdown = false;
  auto* keys_cmd = app.add_subcommand("keys", "List every scenario key with its default and meaning");
  keys_cmd->add_flag("--markdown", markdown, "Print docs/scenarios.md");
  add_examples(app);

  // A first word that is no command is a mistyped one: named, with the commands (CLI11 says only that one is needed).
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    std::vector<std::string> names;
    bool known = false;
    for (const CLI::App* c : std::as_const(app).get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(c->get_name());
      known = known || c->get_name() == word;
    }
    if (!known) {
      std::cerr << fmt::format("dtsim: unknown command '{}'; the commands: {} (--help lists them)\n", word,
                               fmt::join(names, ", "));
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (*run_cmd) return cli::run_command(run);
  if (*sweep_cmd) return cli::sweep_command(sweep);
  if (*merge_cmd) return cli::merge_command(merge_out, merge_shards);
  if (*compare_cmd) return cli::compare_command(compare_runs);
  if (*check_cmd) return cli::check_command(check_file, check_sets);
  if (*models_cmd) return cli::models_command(models_action, model_name, models_out);
  if (*devices_cmd) return cli::devices_command();
  if (*keys_cmd) return cli::keys_command(markdown);
  if (*coll_cmd) return cli::collectives_command(coll);
  if (*kern_cmd) return cli::kernels_command(kern);
  if (*export_cmd) return cli::export_chakra_command(exp);
  if (*import_cmd) return cli::import_chakra_command(imp);
  if (*megatron_cmd) return cli::import_megatron_command(meg);
  if (*ckpt_cmd) return cli::checkpoint_command(ckpt);
  if (*tune_cmd) return cli::tune_command(tune);
  if (*calib_cmd) return cli::calibrate_command(calib, argc, argv);
  if (*val_cmd) return cli::validate_command(val);
  return 2;
}

}  // namespace

// The one place that maps errors to exit codes: bad input 2, a failed run 1.
int main(int argc, char** argv) {
  try {
    return parse_and_run(argc, argv);
  } catch (const dtsim::InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const dtsim::RuntimeError& e) {
    std::cerr << "dtsim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "dtsim: internal error: " << e.what() << "\n";
    return 1;
  }
}
