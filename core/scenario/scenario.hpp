// A scenario: one training job on one cluster, with how to run it. Loaded from YAML by
// scenario_loader.cpp through the key table in scenario_schema.cpp (the single source of truth
// for keys, units, defaults and docs).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/base/dtype.hpp"
#include "core/base/error.hpp"
#include "core/base/executors.hpp"
#include "core/cluster/cluster.hpp"
#include "core/faults/faults.hpp"
#include "core/scenario/cluster_preset.hpp"
#include "core/scenario/convergence.hpp"
#include "core/scenario/framework.hpp"
#include "models/compression/compressor.hpp"
#include "models/parallel/hybrid.hpp"
#include "models/parallel/layout_space.hpp"
#include "models/zoo/transformer.hpp"
#include "models/zoo/workload.hpp"

namespace dtsim {

enum class Optimizer { Sgd, Momentum, Adam, Lamb };
enum class StrategyKind { AllReduce, ParameterServer, Hybrid };
enum class PsSplit { Even, ByLayer };
enum class SyncKind { Bsp, Asp, Ssp, LocalSgd, Backup, Gossip };
enum class Fidelity { Flow, Step };

struct ModelSpec {
  bool operator==(const ModelSpec&) const = default;
  std::string name;             // zoo name, "transformer", "synthetic" or "" when `file` is set
  std::string file;             // a user's layer table
  std::string hf_config;        // a Hugging Face config.json (models/zoo/hf_config.hpp)
  TransformerSpec transformer;  // the shape, when the model has one (is_transformer)
  bool is_transformer = false;  // `transformer`, or a zoo model or file given by its shape
  double synthetic_params = 0;
  double synthetic_flops = 0;  // forward FLOPs per sample
  int synthetic_layers = 1;
  int batch_per_worker = 32;
  Dtype dtype = Dtype::Fp32;          // compute dtype
  Dtype grad_dtype = Dtype::Fp32;     // gradients on the wire
  Fp8Scaling fp8 = Fp8Scaling::None;  // a transformer's linear layers' GEMMs in fp8 (model.fp8)
  Optimizer optimizer = Optimizer::Sgd;
};

struct StrategySpec {
  bool operator==(const StrategySpec&) const = default;
  StrategyKind kind = StrategyKind::AllReduce;
  int workers = 0;  // 0 = one per device
  std::string algorithm = "ring";
  double bucket_size = 25e6;
  bool bucket_size_given = false;  // strategy.allreduce.bucket_size was written (hybrid jobs default otherwise)
  bool overlap = true;
  int ps_shards = 1;
  PsSplit ps_split = PsSplit::Even;
  // A worker pushes each shard as soon as the backward ops of its layers have ended (ps-lite's
  // per-key pushes, BytePS), not after the whole backward pass.
  bool ps_overlap = true;
  // Dynamic batch sizing: each worker's share of the global batch follows its speed (core/plan/batch_balance.hpp).
  bool dynamic_batch = false;
  HybridSpec
      hybrid;  // strategy.kind: hybrid (its collectives use `algorithm`; its data-parallel buckets `bucket_size`)
};

struct SyncSpec {
  bool operator==(const SyncSpec&) const = default;
  SyncKind kind = SyncKind::Bsp;
  int staleness = 0;       // SSP: how many iterations a worker may run ahead of the slowest
  int period = 1;          // local SGD: average the models every `period` iterations
  int backup_workers = 0;  // backup: of the job's workers, the b slowest of each iteration are dropped
};

enum class Jitter { None, Lognormal, Exponential, Hiccup };

// Slow workers: some always slower by a factor, and every worker's compute time jittered per
// iteration (seeded by run.seed). Factors multiply compute durations.
struct StragglerSpec {
  bool operator==(const StragglerSpec&) const = default;
  std::vector<int> slow_workers;  // worker indices within the job
  double slow_factor = 1.0;
  Jitter jitter = Jitter::None;
  double sigma = 0.1;      // lognormal: standard deviation of the log of the factor (median 1)
  double tail_mean = 0.1;  // exponential: factor 1 + Exp(mean)
  double hiccup_probability = 0.01;
  double hiccup_factor = 3.0;
  // Time-varying device speed: a profile (file or inline spec; `source` as written until the
  // scenario is finished, then loaded) on the workers `profile_workers` (empty: every worker).
  Profile speed_profile;
  std::vector<int> profile_workers;
};

struct RunSpec {
  int iterations = 10;
  int warmup = 1;
  Engine engine = Engine::SimGrid;
  Fidelity fidelity = Fidelity::Flow;
  bool fuse_compute = true;
  long seed = 1;
  ConvergenceSpec convergence;  // run.convergence.*: a Learner trains a proxy model along the schedule
};

// Which devices a job runs on: nodes [first_node, first_node + nodes) and, on each of them,
// devices [first_local, first_local + devices_per_node). 0 means "all the rest".
struct PlacementSpec {
  bool operator==(const PlacementSpec&) const = default;
  int first_node = 0;
  int nodes = 0;
  int first_local = 0;
  int devices_per_node = 0;
};

// `dtsim tune`'s search of a hybrid job's layouts (tune.* keys): its limits' devices and global batch are the job's.
struct TuneSpec {
  bool operator==(const TuneSpec&) const = default;
  LayoutLimits limits{.rank_orders = true};  // tune.rank_orders: true
  double max_memory_fraction = 1.0;
};

// A workload replayed from Chakra execution traces (workload.chakra, docs/chakra.md): the set's
// prefix (resolved against the scenario file by the loader) and how compute nodes are timed: by
// their recorded duration, by their num_ops and tensor_size on the cluster's device (roofline), or
// auto (the duration when a node has one, else the roofline).
enum class ChakraTiming { Auto, Duration, Roofline };
struct ChakraSpec {
  bool operator==(const ChakraSpec&) const = default;
  std::string prefix;  // empty: the job's workload is its model
  ChakraTiming timing = ChakraTiming::Auto;
};

// One training job. A scenario holds one (its keys at the top level) or several (a `jobs` list)
// sharing the cluster.
struct JobSpec {
  bool operator==(const JobSpec&) const = default;
  std::string name;
  ModelSpec model;
  StrategySpec strategy;
  SyncSpec sync;
  StragglerSpec stragglers;
  FaultSpec faults;
  CompressionSpec compression;
  PlacementSpec placement;
  FrameworkSpec framework;
  TuneSpec tune;      // tune.*: what `dtsim tune` searches (only it reads them)
  ChakraSpec chakra;  // workload.chakra*: the job's ranks replay these traces instead of `model`
  Workload workload;  // resolved from `model`

  // Placement resolved against the cluster (0 = all the rest).
  int node_count(const ClusterSpec& c) const {
    return placement.nodes > 0 ? placement.nodes : c.nodes - placement.first_node;
  }
  int local_count(const ClusterSpec& c) const {
    return placement.devices_per_node > 0 ? placement.devices_per_node : c.devices_per_node - placement.first_local;
  }
  int devices(const ClusterSpec& c) const { return node_count(c) * local_count(c); }
  int workers(const ClusterSpec& c) const { return strategy.workers > 0 ? strategy.workers : devices(c); }
};

struct Scenario {
  std::string name;
  std::string path;  // the file it was loaded from
  ClusterSpec cluster;
  ClusterPreset cluster_preset = ClusterPreset::None;  // cluster.preset: applied to `cluster` by finish_scenario
  // Where the node's links came from, in words, as the summary says it (finish_scenario): "the scenario",
  // "cluster.preset dgx_h100", "h100_sxm's usual node (dgx_h100)" or "dtsim's default".
  struct LinkOrigins {
    std::string intra;
    std::string nic;
  } link_origins;
  RunSpec run;
  std::vector<JobSpec> jobs;  // at least one
  bool job_list = false;      // written as a `jobs:` list (keys jobs.N.*) rather than top-level keys
  // Where each key was set (file:line:col or --set), for errors found after loading.
  std::map<std::string, SourceLocation> where;
  // Each of those keys' value as written there (the file's text, or the last --set's): what the scenario says, for
  // dtsim.Scenario's get() and to_dict().
  std::map<std::string, std::string> written;

  const JobSpec& job() const { return jobs.front(); }  // the first (often the only) job
  int workers() const { return job().workers(cluster); }
  // The key path of a job key as the user wrote it: "model.name" or "jobs.1.model.name".
  std::string job_key(size_t job, const std::string& key) const;
  SourceLocation location_of(const std::string& key) const;
};

std::string_view fidelity_name(Fidelity f);
std::string_view strategy_name(StrategyKind k);

}  // namespace dtsim
