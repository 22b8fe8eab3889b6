// The dtsim subcommands. Each returns the process exit code; errors propagate as exceptions
// (InputError -> 2, RuntimeError -> 1) to main, the only place that turns them into codes.
#pragma once

#include <string>
#include <vector>

#include "core/base/executors.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/tune/tuner.hpp"

namespace dtsim::cli {

struct RunOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string engine;  // "" = the scenario's run.engine
  std::string out;     // "" = runs/<scenario name>
  bool trace = true;
  bool json = false;  // print metrics.json to stdout instead of the table
};

int run_command(const RunOptions& o);

struct SweepOptions {
  sweep::SweepRequest request;
  std::string scaling = "weak";  // strong or weak
  std::string out;               // "" = runs/<scenario name>-sweep
  int jobs = 1;
  bool mpi = false;
  std::string shard;  // "i/n" or ""
  bool plots = true;
};

int sweep_command(const SweepOptions& o);
int merge_command(const std::string& out, const std::vector<std::string>& shards);
int compare_command(const std::vector<std::string>& runs);
int check_command(const std::string& scenario, const std::vector<std::string>& sets);
// `dtsim models list | show NAME | import CONFIG.json [--out FILE]`: import writes (or prints) the model file of a
// Hugging Face config's shape (models/zoo/hf_config.hpp), for model.file.
int models_command(const std::string& action, const std::string& name, const std::string& out = "");
int devices_command();
int keys_command(bool markdown);

struct CollectivesOptions {
  std::string scenario;  // "" = a cluster of --preset and --device described by --set
  std::vector<std::string> sets;
  std::string preset;     // cluster.preset ("": the scenario's, or none)
  std::string device;     // "": the preset's, or without one h100_sxm
  int nodes = 0;          // 0: the cluster's
  int gpus_per_node = 0;  // 0: the cluster's
  std::vector<std::string> ops = {"allreduce", "allgather", "reduce_scatter", "alltoall"};
  std::string min_bytes = "1KiB";
  std::string max_bytes = "8GiB";
  double factor = 2;
  std::string measured;  // a measured curve (nccl-tests' output or a bytes,busbw_GBps CSV): its sizes, beside
  std::string plot;      // "": no chart; an .svg or .png of busbw against size
};

// `dtsim collectives`: the nccl-tests table NCCL's cost model predicts for a cluster.
int collectives_command(const CollectivesOptions& o);

struct KernelsOptions {
  std::string scenario;
  std::vector<std::string> sets;
  int rank = -1;  // -1: the first worker of the first job
  int top = 0;    // 0: every row in program order; else the `top` rows that take the most time, largest first
};

// `dtsim kernels`: one rank's kernels and collectives in one iteration, where the step's time goes.
int kernels_command(const KernelsOptions& o);

struct ExportChakraOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string out;  // folder of <name>.<rank>.et
  bool gzip = false;
};

// `dtsim export-chakra`: the scenario's Plan as Chakra traces, one per rank.
int export_chakra_command(const ExportChakraOptions& o);

struct ImportChakraOptions {
  std::string traces;  // a folder holding one set, or a prefix
  std::string out;     // the scenario folder
  std::string device = "a100_80gb";
  int devices_per_node = 0;  // 0: min(ranks, 8)
  std::string timing = "auto";
  std::string engine = std::string(engine_name(Engine::Analytical));
};

// `dtsim import-chakra`: a scenario folder replaying a set of Chakra traces (workload.chakra).
int import_chakra_command(const ImportChakraOptions& o);

struct ImportMegatronOptions {
  std::string args;    // a file holding Megatron-LM's launch command (or just its arguments)
  std::string out;     // the scenario to write ("": print it)
  std::string preset;  // cluster.preset, or
  std::string device;  // cluster.device
  int nodes = 0;       // 0: torchrun's --nnodes
  int gpus_per_node = 0;
};

// `dtsim import-megatron`: a scenario from Megatron-LM's arguments (core/scenario/megatron_args.hpp).
int import_megatron_command(const ImportMegatronOptions& o);

struct CheckpointOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string engine;  // "" = the scenario's run.engine
  int job = 0;
  int trials = 200;
  int points = 25;
  bool json = false;
};

// `dtsim checkpoint`: the checkpoint interval that maximises goodput, against Young/Daly.
int checkpoint_command(const CheckpointOptions& o);

struct TuneOptions {
  std::string scenario;
  std::vector<std::string> sets;
  int devices = 0;                 // 0: the scenario's
  std::vector<std::string> fixes;  // --fix tensor=8
  tune::TuneRequest request;       // its limits and memory fraction: the scenario's tune.* keys, then these
  // The search's bounds given on the command line (-1, 0 for the fraction: the scenario's tune.* keys).
  int max_tensor = -1, max_pipeline = -1, max_context = -1, max_micro_batch = -1, max_virtual_stages = -1;
  std::string tokens;  // --tokens MIN:MAX (tune.*_tokens_per_step)
  double max_memory_fraction = 0;
  int show = 10;      // table rows
  std::string out;    // "" = runs/<scenario name>-tune; its runs are kept there, and reused by the same search
  bool mpi = false;   // the engine runs spread over MPI ranks (under mpirun); rank 0 writes
  std::string shard;  // "i/n": share i of n of pass 2, or with `merge` of pass 3, into `out`; "" = the whole search
  std::vector<std::string> merge;  // shard folders of this search, whose runs `out` takes before it resumes
};

// `dtsim tune`: the best hybrid layouts of the scenario's job.
int tune_command(TuneOptions o);

struct CalibrateCliOptions {
  Backend backend = Backend::Cpu;
  std::string out = "profile.yaml";
  bool quick = false;
  int gpus = 0;                         // --backend cuda without mpirun: GPUs to drive (0: all visible)
  std::vector<std::string> from_trace;  // fit to these torch.profiler traces instead of measuring
  std::string device;                   // --from-trace: the zoo device whose peaks bound the fits
};

// `dtsim calibrate`: under mpirun (or with --backend cpu) initialises MPI from argc/argv; with
// --backend cuda and no launcher, runs a thread per GPU. Exit 3 without MPI or GPU.
int calibrate_command(const CalibrateCliOptions& o, int& argc, char**& argv);

struct ValidateCliOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string calibration;
  Backend backend = Backend::Cpu;
  std::string engine;
  std::string mpirun = "mpirun --oversubscribe";
  std::string compute_scale = "auto";
  std::string out;
  bool json = false;
  int repeats = 3;
};

// `dtsim validate`: spawns dtsim-real under the launcher and simulates with the profile.
int validate_command(const ValidateCliOptions& o);

}  // namespace dtsim::cli
