// The memory model against the papers it follows (Korthikanti et al. 2022, Table 2 and section 4; Rajbhandari et al.
// 2020, ZeRO, Figure 1), a small model counted by hand, the pipeline schedules' in-flight counts and invariants.
#include <catch2/catch.hpp>

#include <vector>

#include "core/base/error.hpp"
#include "models/parallel/memory.hpp"

using dtsim::Dtype;
using dtsim::HybridSpec;
using dtsim::layer_activation_bytes;
using dtsim::MemoryInputs;
using dtsim::PipelineSchedule;
using dtsim::Recompute;
using dtsim::stage_memory;
using dtsim::StageMemory;
using dtsim::TransformerSpec;

namespace {

// GPT-3 175B as Korthikanti et al. 2022 (Table 3) trains it: fp16, t = 8, p = 8, micro-batch 1, unfused attention.
MemoryInputs gpt3_175b() {
  MemoryInputs in;
  in.model.layers = 96;
  in.model.hidden = 12288;
  in.model.heads = 96;
  in.model.seq_len = 2048;
  in.model.vocab = 50257;
  in.model.flash_attention = false;
  in.layout.tensor = 8;
  in.layout.pipeline = 8;
  in.layout.data = 1;
  in.layout.global_batch = 64;
  in.dtype = Dtype::Fp16;
  in.grad_dtype = Dtype::Fp16;
  return in;
}

// A Llama-2-70B-like decoder: GQA, SwiGLU, RMSNorm, no biases, rotary, flash attention, no dropout.
MemoryInputs llama_70b() {
  MemoryInputs in;
  in.model.layers = 80;
  in.model.hidden = 8192;
  in.model.heads = 64;
  in.model.kv_heads = 8;
  in.model.ffn = 28672;
  in.model.seq_len = 4096;
  in.model.vocab = 32000;
  in.model.gated_mlp = true;
  in.model.rms_norm = true;
  in.model.bias = false;
  in.model.rotary = true;
  in.model.tied_embeddings = false;
  in.dropout = false;
  in.layout.pipeline = 4;
  in.layout.data = 8;
  in.layout.global_batch = 128;
  return in;
}

// A Mixtral-8x7B-like mixture of experts.
MemoryInputs mixtral() {
  MemoryInputs in = llama_70b();
  in.model.layers = 32;
  in.model.hidden = 4096;
  in.model.heads = 32;
  in.model.ffn = 14336;
  in.model.experts = 8;
  in.model.top_k = 2;
  in.layout.expert = 4;
  return in;
}

double layer(MemoryInputs in, bool sp, Recompute r) {
  in.layout.sequence_parallel = sp;
  in.layout.recompute = r;
  return layer_activation_bytes(in);
}

}  // namespace

TEST_CASE("per-layer activations are Korthikanti's Table 2 for GPT-3 175B", "[memory]") {
  const MemoryInputs in = gpt3_175b();
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8;
  // The paper's formulas (bytes per layer and micro-batch, 16-bit), evaluated here:
  CHECK(layer(in, false, Recompute::None) == Approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t))));  // 578,813,952
  CHECK(layer(in, true, Recompute::None) == Approx(s * b * h / t * (34 + 5 * a * s / h)));              // 358,612,992
  CHECK(layer(in, false, Recompute::Selective) == Approx(s * b * h * (10 + 24 / t)));                   // 327,155,712
  CHECK(layer(in, true, Recompute::Selective) == Approx(34 * s * b * h / t));                           // 106,954,752
  CHECK(layer(in, false, Recompute::Full) == Approx(2 * s * b * h));                                    // 50,331,648
  CHECK(layer(in, true, Recompute::Full) == Approx(2 * s * b * h / t));                                 // 6,291,456
  CHECK(layer(in, true, Recompute::Selective) == 106'954'752.0);
}

TEST_CASE("GPT-3 175B's first and last stages hold Korthikanti's section 4 totals", "[memory]") {
  MemoryInputs in = gpt3_175b();
  in.layout.sequence_parallel = true;
  in.layout.recompute = Recompute::Selective;
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8, p = 8, L = 96, V = 50257;
  const std::vector<StageMemory> stages = stage_memory(in);
  REQUIRE(stages.size() == 8);
  // 1F1B with m = 64 >= p: stage 0 holds p micro-batches of L / p layers, L layers in all (section 4.3), plus the
  // embedding dropout mask s b h p / t (section 4.4); beyond the paper: the int64 token ids 8 s b p (Megatron's
  // theoretical_memory_usage.py) and the recomputed core attention of the layer in backward, 5 a s^2 b / t.
  CHECK(stages[0].micro_batches_in_flight == 8);
  CHECK(stages[0].layers == 96);
  const double korthikanti = 34 * s * b * h * L / t + s * b * h * p / t;  // 10,292,822,016 bytes
  CHECK(stages[0].bytes.activations == Approx(korthikanti + 8 * s * b * p + 5 * a * s * s * b / t));  // 10,544,611,328
  // The last stage: one micro-batch of 12 layers, and the output layer's 4 s b h / t (1 + V / h) (section 4.4).
  CHECK(stages[7].micro_batches_in_flight == 1);
  CHECK(stages[7].bytes.activations ==
        Approx(12 * 34 * s * b * h / t + 4 * s * b * h / t * (1 + V / h) + 5 * a * s * s * b / t));
}

TEST_CASE("parameters, gradients and optimizer follow ZeRO's Figure 1", "[memory]") {
  // A 7.5B-like GPT: 36 layers of 12 h^2 + 13 h (h = 4096) + the embedding (50257 + 2048) h + the final norm 2 h.
  MemoryInputs in;
  in.model.layers = 36;
  in.model.hidden = 4096;
  in.model.heads = 32;
  in.model.seq_len = 2048;
  in.model.vocab = 50257;
  in.dtype = Dtype::Fp16;
  in.grad_dtype = Dtype::Fp16;
  in.optimizer_states = 2;  // Adam: K = 4 (master) + 8 = 12
  in.layout.data = 64;      // N_d = 64
  const double psi = 36 * (12.0 * 4096 * 4096 + 13 * 4096) + (50257.0 + 2048) * 4096 + 2 * 4096;
  CHECK(psi == 7'463'923'712.0);
  // Figure 1: 7.5B parameters, N_d = 64, K = 12: baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB.
  const double per_param[] = {2 + 2 + 12, 2 + 2 + 12.0 / 64, 2 + (2 + 12.0) / 64, (2 + 2 + 12.0) / 64};
  const double figure_gb[] = {120, 31.4, 16.6, 1.9};
  for (int zero = 0; zero <= 3; ++zero) {
    in.layout.zero = zero;
    const StageMemory st = stage_memory(in).at(0);
    const double states = st.bytes.parameters + st.bytes.gradients + st.bytes.optimizer;
    CHECK(states == Approx(per_param[zero] * psi));
    CHECK(states / psi * 7.5e9 == Approx(figure_gb[zero] * 1e9).margin(0.05e9));
  }
}

TEST_CASE("fp32 training keeps no master copy", "[memory]") {
  MemoryInputs in = gpt3_175b();
  const StageMemory mixed = stage_memory(in).at(3);
  in.dtype = Dtype::Fp32;
  in.grad_dtype = Dtype::Fp32;
  const StageMemory fp32 = stage_memory(in).at(3);
  const double params = mixed.bytes.parameters / 2;
  CHECK(fp32.bytes.parameters == Approx(4 * params));
  CHECK(fp32.bytes.gradients == Approx(4 * params));
  CHECK(fp32.bytes.optimizer == Approx(8 * params));  // Adam's two states only
  CHECK(mixed.bytes.optimizer == Approx(12 * params));
}

TEST_CASE("micro-batches in flight per schedule", "[memory]") {
  MemoryInputs in;
  in.model.layers = 16;
  in.model.hidden = 64;
  in.model.heads = 4;
  in.model.seq_len = 32;
  in.model.vocab = 100;
  in.layout.pipeline = 4;
  in.layout.data = 1;
  in.layout.global_batch = 8;  // m = 8
  auto counts = [&in] {
    std::vector<int> n;
    for (const StageMemory& st : stage_memory(in)) n.push_back(st.micro_batches_in_flight);
    return n;
  };
  in.layout.schedule = PipelineSchedule::GPipe;
  CHECK(counts() == std::vector<int>{8, 8, 8, 8});
  CHECK(stage_memory(in).at(0).layers == 32);
  in.layout.schedule = PipelineSchedule::OneFOneB;
  CHECK(counts() == std::vector<int>{4, 3, 2, 1});
  CHECK(stage_memory(in).at(0).layers == 16);  // p micro-batches of L / p layers: L
  in.layout.global_batch = 2;
  CHECK(counts() == std::vector<int>{2, 2, 2, 1});
  in.layout.global_batch = 8;
  in.layout.schedule = PipelineSchedule::Interleaved;
  in.layout.virtual_stages = 2;
  // Megatron's warm-up (p - i - 1) 2 + (v - 1) p, plus one: 11, 9, 7, 5 chunk-micro-batches of L / (p v) = 2 layers.
  CHECK(counts() == std::vector<int>{11, 9, 7, 5});
  const double p = 4, v = 2, L = 16;
  CHECK(stage_memory(in).at(0).layers == Approx(L * (1 + (p - 1) / (p * v))));  // Korthikanti eq. 5's factor
  // m = 1: capped at m v.
  in.layout.global_batch = 1;
  CHECK(counts() == std::vector<int>{2, 2, 2, 2});
}

TEST_CASE("a two-layer model on t = 2, p = 2 counted by hand", "[memory]") {
  MemoryInputs in;
  in.model.layers = 2;
  in.model.hidden = 8;
  in.model.heads = 2;
  in.model.seq_len = 4;
  in.model.vocab = 16;  // ffn 32, learned positions 4, tied embeddings, biases, LayerNorm, dropout, unfused attention
  in.model.flash_attention = false;
  in.layout.tensor = 2;
  in.layout.pipeline = 2;
  in.layout.data = 1;
  in.layout.global_batch = 2;  // m = 2, 1F1B
  in.dtype = Dtype::Fp16;
  in.grad_dtype = Dtype::Fp16;
  in.optimizer_states = 2;
  // Parameters per rank. A layer: Q, K, V, O weights 4 x 64 / 2 = 128; QKV bias 24 / 2 = 12 and output bias 8;
  // two LayerNorms 2 x 16 = 32; MLP weights 2 x 8 x 32 / 2 = 256; its biases 32 / 2 + 8 = 24: 460.
  // Stage 0: + word embedding 16 x 8 / 2 = 64 + positions 4 x 8 = 32: 556. Stage 1: + final LayerNorm 16 + the tied
  // embedding's copy 64: 540. Bytes: 2 per weight, 2 per gradient, 4 + 8 (Adam) = 12 of optimizer.
  // Activations of a layer (B = 2, T = 4 tokens, r = 1): LN1 input 64, QKV input 64, Q K V 2 x 4 x 24 / 2 = 96,
  // softmax 2 x (2 x 4 x 4) / 2 = 32, its mask 16, dropout output 32, projection input 32, dropout mask 32, LN2 input
  // 64, fc1 input 64, GeLU input 2 x 4 x 32 / 2 = 128, fc2 input 128, dropout mask 32: 784 (= s b h (10 + 24 / t + 5 a
  // s / (h t)) = 32 x 24.5). Stage 0 holds 2 micro-batches: 1568, + per micro-batch token ids 8 x 4 and the embedding
  // dropout mask 4 x 8: 2 x 64 = 128: 1696. Stage 1 holds 1: 784 + final norm input 64 + output layer input 64 + fp32
  // logits 4 x 4 x 16 / 2 = 128: 1040. No communication buffers (d = 1, no SP, ZeRO 0).
  CHECK(layer_activation_bytes(in) == 784);
  const std::vector<StageMemory> st = stage_memory(in);
  REQUIRE(st.size() == 2);
  CHECK(st[0].bytes.parameters == 1112);
  CHECK(st[0].bytes.gradients == 1112);
  CHECK(st[0].bytes.optimizer == 6672);
  CHECK(st[0].bytes.activations == 1696);
  CHECK(st[0].bytes.communication == 0);
  CHECK(st[0].bytes.total() == 10592);
  CHECK(st[1].bytes.parameters == 1080);
  CHECK(st[1].bytes.gradients == 1080);
  CHECK(st[1].bytes.optimizer == 6480);
  CHECK(st[1].bytes.activations == 1040);
  CHECK(st[1].bytes.total() == 9680);
}

TEST_CASE("the generalisations of Table 2, term by term", "[memory]") {
  MemoryInputs in = llama_70b();
  in.layout.tensor = 8;
  const double B = 2, T = 4096, h = 8192, a = 64, hk = 1024, f = 28672, t = 8, s = 4096;
  const double base = layer(in, false, Recompute::None);
  SECTION("SwiGLU stores gate and up (2 f) where GeLU stores f") {
    in.model.gated_mlp = false;
    CHECK(base - layer(in, false, Recompute::None) == Approx(B * T * f / t));
  }
  SECTION("a fused kernel stores K and V of the kv heads only") {
    in.model.kv_heads = 64;
    CHECK(layer(in, false, Recompute::None) - base == Approx(2 * B * T * (h - hk) / t));
  }
  SECTION("unfused attention stores the scores instead of the log-sum-exp, and K, V expanded to every head") {
    in.model.flash_attention = false;
    const double scores = B * a * T * s / t, lse = 4 * a * T / t;
    CHECK(layer(in, false, Recompute::None) - base == Approx(scores - lse + 2 * B * T * (h - hk) / t));
    in.dropout = true;  // + the probabilities' dropout mask and output, and two h-wide masks
    CHECK(layer(in, false, Recompute::None) - base ==
          Approx(2 * scores + a * T * s / t - lse + 2 * B * T * (h - hk) / t + 2 * T * h));
  }
  SECTION("context parallel halves every term") {
    MemoryInputs c1 = in;
    in.layout.context = 2;
    in.layout.data = 4;
    CHECK(layer(in, true, Recompute::None) * 2 == Approx(layer(c1, true, Recompute::None)));
    in.model.flash_attention = false;  // the scores: (s / c) x s per head
    c1.model.flash_attention = false;
    CHECK(layer(in, false, Recompute::None) * 2 == Approx(layer(c1, false, Recompute::None)));
  }
  SECTION("fp32 doubles all but the 1-byte dropout masks") {
    in.dropout = true;
    const double masks = 2 * T * h;  // after attention and after the MLP (flash keeps no probabilities mask)
    const double fp16 = layer(in, false, Recompute::None);
    in.dtype = Dtype::Fp32;
    CHECK(layer(in, false, Recompute::None) == Approx(2 * fp16 - masks - 4 * a * T / t));  // lse is fp32 already
  }
  SECTION("MoE: the expert MLP's activations scale with top_k x capacity") {
    MemoryInputs moe = in;
    moe.model.experts = 8;
    moe.model.top_k = 1;
    moe.model.capacity_factor = 1.0;
    moe.layout.data = 8;
    // One expert per token at capacity 1: the dense layer + the router's fp32 probabilities + the dispatched copy.
    const double one = layer(moe, false, Recompute::None);
    CHECK(one - base == Approx(4 * T * 8 + B * T * h));
    moe.model.top_k = 2;
    moe.model.capacity_factor = 1.25;
    const double expert_mlp = B * T * h + B * T * 3 * f / t;  // dispatched tokens, SwiGLU input, fc2 input
    CHECK(layer(moe, false, Recompute::None) - one == Approx((2 * 1.25 - 1) * expert_mlp));
  }
}

TEST_CASE("experts are split over e and sharded over their own data-parallel group", "[memory]") {
  MemoryInputs in = mixtral();
  in.model.bias = false;
  in.layout.pipeline = 1;
  in.layout.expert = 1;
  const StageMemory e1 = stage_memory(in).at(0);
  in.layout.expert = 4;
  const StageMemory e4 = stage_memory(in).at(0);
  const double expert_params = 32 * 8 * 3.0 * 4096 * 14336;  // L x E x 3 h f
  CHECK(e1.bytes.parameters - e4.bytes.parameters == Approx(2 * expert_params * 3 / 4));
  // ZeRO-1: the dense optimizer state over d x c = 8, the experts' over 8 / e = 2.
  in.layout.zero = 1;
  const StageMemory z1 = stage_memory(in).at(0);
  const double dense_params = e4.bytes.parameters / 2 - expert_params / 4;
  CHECK(z1.bytes.optimizer == Approx(12 * (dense_params / 8 + expert_params / 4 / 2)));
}

TEST_CASE("more tensor parallelism, recompute and ZeRO never need more memory per rank", "[memory]") {
  for (const MemoryInputs& model : {gpt3_175b(), llama_70b(), mixtral()}) {
    MemoryInputs in = model;
    in.layout.data = 8;
    in.layout.global_batch = 128;
    in.layout.tensor = 1;
    auto totals = [&in] {
      std::vector<double> t;
      for (const StageMemory& st : stage_memory(in)) t.push_back(st.bytes.total());
      return t;
    };
    auto no_more = [](const std::vector<double>& more, const std::vector<double>& less) {
      for (std::size_t i = 0; i < more.size(); ++i) CHECK(more[i] <= less[i]);
    };
    std::vector<double> previous = totals();
    for (int t : {2, 4, 8}) {
      in.layout.tensor = t;
      in.layout.sequence_parallel = false;
      const std::vector<double> plain = totals();
      no_more(plain, previous);
      in.layout.sequence_parallel = true;
      previous = totals();
      no_more(previous, plain);
    }
    for (bool sp : {false, true}) {
      in.layout.sequence_parallel = sp;
      in.layout.recompute = Recompute::None;
      const std::vector<double> none = totals();
      in.layout.recompute = Recompute::Selective;
      const std::vector<double> selective = totals();
      in.layout.recompute = Recompute::Full;
      no_more(selective, none);
      no_more(totals(), selective);
    }
    in.layout.zero = 0;
    previous = totals();
    for (int zero = 1; zero <= 3; ++zero) {
      in.layout.zero = zero;
      const std::vector<double> now = totals();
      no_more(now, previous);
      previous = now;
    }
  }
}

TEST_CASE("the memory model refuses layouts its rules do not cover", "[memory]") {
  MemoryInputs in = gpt3_175b();
  in.layout.pipeline = 5;  // 96 layers over 5 stages
  CHECK_THROWS_AS(stage_memory(in), dtsim::InputError);
  in = gpt3_175b();
  in.layout.data = 0;
  CHECK_THROWS_AS(stage_memory(in), dtsim::InputError);
  in = mixtral();
  in.layout.expert = 3;
  CHECK_THROWS_AS(stage_memory(in), dtsim::InputError);
  in = gpt3_175b();
  in.layout.data = 2;
  in.layout.global_batch = 63;  // not a multiple of micro_batch x d
  CHECK_THROWS_AS(stage_memory(in), dtsim::InputError);
}
