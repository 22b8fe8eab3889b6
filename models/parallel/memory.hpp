// The memory model of hybrid-parallel training: the bytes one rank of each pipeline stage needs at its peak, by
// category, from the model's shape and the layout alone (no Plan, no scenario). The rules and their sources are at
// the top of memory.cpp; in short:
//   parameters, gradients, optimizer  the stage's share of the parameters (Megatron's splits over t, p and e) times
//                                     the bytes per parameter of mixed precision (ZeRO paper: 2 + 2 + K), sharded by
//                                     ZeRO over the data-parallel group
//   activations                       Korthikanti et al. 2022 (Table 2, section 4) per layer and micro-batch,
//                                     generalised term by term (GQA, SwiGLU, ffn, flash attention, MoE, fp32,
//                                     context parallel), times the micro-batches the schedule keeps in flight
//   communication                     gradient buckets, the sequence-parallel all-gather, ZeRO-3's gathered layers
#pragma once

#include <vector>

#include "core/base/dtype.hpp"
#include "models/parallel/hybrid.hpp"
#include "models/zoo/transformer.hpp"

namespace dtsim {

struct MemoryInputs {
  TransformerSpec model;
  HybridSpec layout;  // layout.data already resolved (> 0)
  // Weights and activations; 16-bit means mixed precision, with fp32 master copies in the optimizer's share.
  Dtype dtype = Dtype::Bf16;
  // Gradients between backward and the step: Megatron accumulates them in fp32 (its 18 bytes per parameter with Adam);
  // the ZeRO paper's 2 + 2 + K keeps them in 16 bits.
  Dtype grad_dtype = Dtype::Fp32;
  // torch.autocast over fp32 parameters (16-bit dtype only): weights 4 bytes and the 16-bit copy each GEMM's cast
  // keeps for its backward, no master copy in the optimizer.
  bool autocast = false;
  int optimizer_states = 2;                  // fp32 values per parameter the optimizer keeps: 0 SGD, 1 momentum, 2 Adam
  double bucket_bytes = 25.0 * 1024 * 1024;  // data-parallel gradient bucket (PyTorch DDP's bucket_cap_mb = 25)
  // Dropout layers (attention probabilities, after attention, after the MLP, after the embedding) store 1-byte
  // masks. GPT-2/3 and BERT train with dropout; Llama-style recipes set it to 0 and store none.
  bool dropout = true;
};

struct MemoryBreakdown {
  double parameters = 0;
  double gradients = 0;
  double optimizer = 0;  // fp32 master copy (mixed precision) and the optimizer's states
  double activations = 0;
  double communication = 0;

  double total() const { return parameters + gradients + optimizer + activations + communication; }
};

struct StageMemory {
  int stage = 0;  // 0-based pipeline stage
  MemoryBreakdown bytes;
  // Micro-batches whose activations the stage holds at its peak; with the interleaved schedule, chunk-micro-batches
  // (one micro-batch through one model chunk of L / (p v) layers).
  int micro_batches_in_flight = 0;
  double layers = 0;  // transformer layers' worth of activations held: in flight x layers per micro-batch (or chunk)
};

// One entry per pipeline stage, stage 0 first. Throws InputError for a layout the rules do not cover (layers not a
// multiple of p x v, e not dividing d x c or the experts, no whole micro-batch per data-parallel rank).
std::vector<StageMemory> stage_memory(const MemoryInputs& in);

// Bytes one transformer layer keeps for its backward, per micro-batch, on one rank (Korthikanti's Table 2, with
// in.layout's t, c, sequence parallelism and recompute mode): what stage_memory multiplies by the layers in flight.
double layer_activation_bytes(const MemoryInputs& in);

}  // namespace dtsim
