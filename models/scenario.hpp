// A scenario: one training job on one cluster, with how to run it. Loaded from YAML by
// scenario_loader.cpp through the key table in scenario_schema.cpp (the single source of truth
// for keys, units, defaults and docs).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/cluster.hpp"
#include "models/dtype.hpp"
#include "models/error.hpp"
#include "models/workload.hpp"

namespace dtsim {

enum class Optimizer { Sgd, Momentum, Adam };
enum class StrategyKind { AllReduce, ParameterServer };
enum class PsSplit { Even, ByLayer };
enum class SyncKind { Bsp };
enum class Engine { Analytical, SimGrid };
enum class Fidelity { Flow, Step };

struct ModelSpec {
  std::string name;  // zoo name, "transformer", "synthetic" or "" when `file` is set
  std::string file;  // a user's layer table
  TransformerSpec transformer;
  double synthetic_params = 0;
  double synthetic_flops = 0;  // forward FLOPs per sample
  int synthetic_layers = 1;
  int batch_per_worker = 32;
  Dtype dtype = Dtype::Fp32;       // compute dtype
  Dtype grad_dtype = Dtype::Fp32;  // gradients on the wire
  Optimizer optimizer = Optimizer::Sgd;
};

struct StrategySpec {
  StrategyKind kind = StrategyKind::AllReduce;
  int workers = 0;  // 0 = one per device
  std::string algorithm = "ring";
  double bucket_size = 25e6;
  bool overlap = true;
  int ps_shards = 1;
  PsSplit ps_split = PsSplit::Even;
};

struct SyncSpec {
  SyncKind kind = SyncKind::Bsp;
};

struct RunSpec {
  int iterations = 10;
  int warmup = 1;
  Engine engine = Engine::Analytical;
  Fidelity fidelity = Fidelity::Flow;
  long seed = 1;
};

struct Scenario {
  std::string name;
  std::string path;  // the file it was loaded from
  ModelSpec model;
  ClusterSpec cluster;
  StrategySpec strategy;
  SyncSpec sync;
  RunSpec run;
  Workload workload;  // resolved from `model`
  // Where each key was set (file:line:col or --set), for errors found after loading.
  std::map<std::string, SourceLocation> where;

  int workers() const { return strategy.workers > 0 ? strategy.workers : cluster.devices(); }
  SourceLocation location_of(const std::string& key) const;
};

std::string_view engine_name(Engine e);
std::string_view fidelity_name(Fidelity f);
std::string_view strategy_name(StrategyKind k);

}  // namespace dtsim
