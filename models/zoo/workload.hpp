// Workload models: a network as a table of layers with parameters, FLOPs and activations.
// FLOPs everywhere in dtsim are floating-point operations (1 multiply-add = 2 FLOPs), per sample.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/zoo/kernel.hpp"

namespace dtsim {

struct TransformerSpec;  // models/zoo/transformer.hpp

struct Layer {
  bool operator==(const Layer&) const = default;
  std::string name;
  double params = 0;       // trainable parameters
  double fwd_flops = 0;    // forward FLOPs per sample
  double bwd_flops = 0;    // backward FLOPs per sample (gradients w.r.t. inputs and weights)
  double activations = 0;  // output activation elements per sample (multiply by dtype bytes)
  // What kind of kernel the row is (models/zoo/kernel.hpp; a table's `class` column): a layer unless it says.
  KernelClass cls = KernelClass::Layer;
  // gemm and conv rows: the (implicit) GEMM the row runs, rows m per sample (output pixels, tokens) x n over k.
  double gemm_m = 0;
  double gemm_n = 0;
  double gemm_k = 0;
  // Activation elements read and written per sample, forward and backward (weights aside); < 0: the rule
  // of core/plan/worker.cpp (2 x activations forward, 3 x backward).
  double fwd_traffic = -1;
  double bwd_traffic = -1;
};

struct Workload {
  bool operator==(const Workload&) const = default;
  std::string name;
  std::string source;  // where the numbers come from
  std::string input;   // the input one sample is, e.g. "3x224x224" or "2048 tokens"
  std::vector<Layer> layers;

  double total_params() const;
  double fwd_flops_per_sample() const;
  double bwd_flops_per_sample() const;
  double activations_per_sample() const;
};

// A workload given by its totals: params and FLOPs per sample, spread over `layers` equal layers.
Workload make_synthetic(double params, double fwd_flops_per_sample, int layers);

// The zoo: names of the models compiled in (models/zoo/data/models/*.yaml), sorted.
std::vector<std::string> zoo_model_names();
// Loads a zoo model by name; throws InputError naming the valid models if it is not there.
Workload load_zoo_model(std::string_view name);
// The shape of a zoo model defined by one (its file gives `transformer:` instead of rows, e.g. llama3_70b), whose
// layer table is make_transformer's; nullopt for a model given by its rows (resnet50, gpt3_175b) and for a name
// not in the zoo. Include models/zoo/transformer.hpp to call it.
std::optional<TransformerSpec> zoo_transformer(std::string_view name);

}  // namespace dtsim
