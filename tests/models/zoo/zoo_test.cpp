// The model zoo against the published counts, and the transformer generator against the zoo's files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "core/base/error.hpp"
#include "models/zoo/device.hpp"
#include "models/zoo/transformer.hpp"
#include "models/zoo/workload.hpp"

using dtsim::DeviceSpec;
using dtsim::InputError;
using dtsim::load_device;
using dtsim::load_zoo_model;
using dtsim::Workload;

TEST_CASE("the zoo lists its models sorted") {
  CHECK(dtsim::zoo_model_names() ==
        std::vector<std::string>{"alexnet", "bert_large", "gpt2_xl", "gpt3_175b", "inception_v3", "llama2_70b",
                                 "llama2_7b", "llama3_405b", "llama3_70b", "llama3_8b", "megatron_175b", "megatron_1t",
                                 "megatron_22b", "megatron_530b", "mixtral_8x7b", "resnet101", "resnet50", "vgg16"});
  for (const auto& name : dtsim::zoo_model_names()) {
    const Workload w = load_zoo_model(name);
    CHECK(w.name == name);
    CHECK_FALSE(w.source.empty());
    CHECK_FALSE(w.input.empty());
    CHECK(w.layers.size() > 10);
  }
}

TEST_CASE("CNN parameter totals equal torchvision's exactly") {
  CHECK(load_zoo_model("resnet50").total_params() == 25'557'032);
  CHECK(load_zoo_model("resnet101").total_params() == 44'549'160);
  CHECK(load_zoo_model("vgg16").total_params() == 138'357'544);
  CHECK(load_zoo_model("alexnet").total_params() == 61'100'840);
  CHECK(load_zoo_model("inception_v3").total_params() == 27'161'264);
}

TEST_CASE("CNN forward FLOPs are twice torchvision's multiply-adds") {
  // torchvision's model cards: ResNet-50 4.09 G, ResNet-101 7.80 G, VGG-16 15.47 G, AlexNet 0.71 G multiply-adds.
  CHECK(load_zoo_model("resnet50").fwd_flops_per_sample() == Approx(8.18e9).epsilon(0.02));
  CHECK(load_zoo_model("resnet101").fwd_flops_per_sample() == Approx(15.60e9).epsilon(0.02));
  CHECK(load_zoo_model("vgg16").fwd_flops_per_sample() == Approx(30.94e9).epsilon(0.02));
  CHECK(load_zoo_model("alexnet").fwd_flops_per_sample() == Approx(1.43e9).epsilon(0.02));
  const Workload resnet = load_zoo_model("resnet50");
  CHECK(resnet.bwd_flops_per_sample() == Approx(2 * resnet.fwd_flops_per_sample()).epsilon(0.02));
  CHECK(resnet.layers.front().bwd_flops == resnet.layers.front().fwd_flops);  // no gradient for the image
}

TEST_CASE("transformer parameter totals") {
  const Workload bert = load_zoo_model("bert_large");
  CHECK(bert.total_params() == 335'141'888);  // HF BertModel: embeddings, 24 layers, pooler
  CHECK(bert.total_params() == Approx(340e6).epsilon(0.02));
  CHECK(load_zoo_model("gpt2_xl").total_params() == 1'557'611'200);
  CHECK(load_zoo_model("gpt3_175b").total_params() == Approx(174.6e9).epsilon(0.001));
}

TEST_CASE("shape-defined zoo models: the Llama and Mixtral totals equal the published counts exactly") {
  // Hugging Face model cards (safetensors totals): RMSNorm, no biases, SwiGLU, rotary positions, untied embeddings.
  CHECK(load_zoo_model("llama2_7b").total_params() == 6'738'415'616);
  CHECK(load_zoo_model("llama2_70b").total_params() == 68'976'648'192);
  CHECK(load_zoo_model("llama3_8b").total_params() == 8'030'261'248);
  CHECK(load_zoo_model("llama3_70b").total_params() == 70'553'706'496);
  CHECK(load_zoo_model("llama3_405b").total_params() == 405'853'388'800);
  CHECK(load_zoo_model("mixtral_8x7b").total_params() == 46'702'792'704);
}

TEST_CASE("Mixtral's FLOPs count the two routed experts: about 12.9B active parameters per token") {
  const Workload mixtral = load_zoo_model("mixtral_8x7b");
  const double s = 4096;
  const double d = 4096;
  const double embedding = 32000 * d;  // looked up, no FLOPs
  // Forward per token = 2 x (active parameters outside the embedding) + the attention core 2*s*d per layer.
  const double active = (mixtral.fwd_flops_per_sample() / s - 32 * 2 * s * d) / 2 + embedding;
  const double one_expert = 3 * d * 14336;
  CHECK(active == mixtral.total_params() - 32 * 6 * one_expert);  // 6 of 8 experts idle per token and layer
  CHECK(active == 12'879'925'248);
  CHECK(active == Approx(12.9e9).epsilon(0.01));
}

TEST_CASE("shape-defined zoo models: Megatron's GPTs within 1% of Korthikanti et al.'s nominal sizes") {
  CHECK(load_zoo_model("megatron_22b").total_params() == Approx(22e9).epsilon(0.01));
  CHECK(load_zoo_model("megatron_175b").total_params() == Approx(175e9).epsilon(0.01));
  CHECK(load_zoo_model("megatron_530b").total_params() == Approx(530e9).epsilon(0.01));
  CHECK(load_zoo_model("megatron_1t").total_params() == Approx(1e12).epsilon(0.01));
  // GPT-3's shape with the padded vocabulary 51200: the zoo's gpt3_175b plus (51200 - 50257) x 12288.
  CHECK(load_zoo_model("megatron_175b").total_params() ==
        load_zoo_model("gpt3_175b").total_params() + (51200 - 50257) * 12288.0);
}

TEST_CASE("zoo_transformer: the shape of a shape-defined zoo model, nullopt otherwise") {
  const auto llama = dtsim::zoo_transformer("llama3_70b");
  REQUIRE(llama);
  CHECK(llama->layers == 80);
  CHECK(llama->hidden == 8192);
  CHECK(llama->heads == 64);
  CHECK(llama->kv_heads == 8);
  CHECK(llama->ffn == 28672);
  CHECK(llama->vocab == 128256);
  CHECK(llama->seq_len == 8192);
  CHECK(llama->gated_mlp);
  CHECK(llama->rms_norm);
  CHECK_FALSE(llama->bias);
  CHECK(llama->rotary);
  CHECK_FALSE(llama->tied_embeddings);
  CHECK(llama->experts == 0);
  const auto mixtral = dtsim::zoo_transformer("mixtral_8x7b");
  REQUIRE(mixtral);
  CHECK(mixtral->experts == 8);
  CHECK(mixtral->top_k == 2);
  CHECK(mixtral->seq_len == 4096);
  const auto megatron = dtsim::zoo_transformer("megatron_530b");
  REQUIRE(megatron);
  CHECK_FALSE(megatron->flash_attention);
  CHECK(megatron->tied_embeddings);
  CHECK(megatron->bias);
  CHECK_FALSE(dtsim::zoo_transformer("resnet50"));
  CHECK_FALSE(dtsim::zoo_transformer("gpt3_175b"));  // given by its rows
  CHECK_FALSE(dtsim::zoo_transformer("llama9_1t"));
  CHECK_FALSE(dtsim::zoo_transformer("../models/llama3_8b"));
  // The zoo's table is make_transformer's of the shape, with the file's source in front.
  for (const char* name : {"llama2_7b", "mixtral_8x7b", "megatron_22b"}) {
    INFO(name);
    const Workload zoo = load_zoo_model(name);
    const Workload made = dtsim::make_transformer(*dtsim::zoo_transformer(name), name);
    CHECK(zoo.total_params() == made.total_params());
    CHECK(zoo.fwd_flops_per_sample() == made.fwd_flops_per_sample());
    CHECK(zoo.source.ends_with("; " + made.source));
  }
}

TEST_CASE("GPT-3 training FLOPs follow 6*P + 6*L*s*d per token") {
  const Workload gpt3 = load_zoo_model("gpt3_175b");
  const double tokens = 2048;
  const double per_token = (gpt3.fwd_flops_per_sample() + gpt3.bwd_flops_per_sample()) / tokens;
  const double kaplan = 6 * gpt3.total_params() + 6.0 * 96 * 2048 * 12288;
  CHECK(per_token == Approx(kaplan).epsilon(0.03));
  CHECK(gpt3.bwd_flops_per_sample() == 2 * gpt3.fwd_flops_per_sample());
}

TEST_CASE("make_transformer agrees with the zoo's transformer files row by row") {
  struct Case {
    const char* name;
    dtsim::TransformerSpec spec;
  };
  const Case cases[] = {
      {"gpt2_xl", {.layers = 48, .hidden = 1600, .heads = 25, .seq_len = 1024, .vocab = 50257}},
      {"gpt3_175b", {.layers = 96, .hidden = 12288, .heads = 96, .seq_len = 2048, .vocab = 50257}},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const Workload zoo = load_zoo_model(c.name);
    const Workload made = dtsim::make_transformer(c.spec, c.name);
    CHECK(made.name == zoo.name);
    CHECK(made.input == zoo.input);
    REQUIRE(made.layers.size() == zoo.layers.size());
    for (size_t i = 0; i < zoo.layers.size(); ++i) {
      INFO(zoo.layers[i].name);
      CHECK(made.layers[i].name == zoo.layers[i].name);
      CHECK(made.layers[i].params == zoo.layers[i].params);
      CHECK(made.layers[i].fwd_flops == zoo.layers[i].fwd_flops);
      CHECK(made.layers[i].bwd_flops == zoo.layers[i].bwd_flops);
      CHECK(made.layers[i].activations == zoo.layers[i].activations);
    }
  }
}

TEST_CASE("make_transformer: untied heads / ffn width and bad shapes") {
  dtsim::TransformerSpec spec{.layers = 2, .hidden = 64, .heads = 4, .seq_len = 16, .vocab = 100};
  const double tied = dtsim::make_transformer(spec, "t").total_params();
  spec.tied_embeddings = false;
  CHECK(dtsim::make_transformer(spec, "t").total_params() == tied + 64 * 100);
  spec.ffn = 128;  // half of 4 * 64: each block loses 2 * 64 * 128 weights and 128 biases
  CHECK(dtsim::make_transformer(spec, "t").total_params() == tied + 64 * 100 - 2 * (2 * 64 * 128 + 128));
  spec.heads = 5;
  CHECK_THROWS_WITH(dtsim::make_transformer(spec, "t"), "error: transformer heads: 5 does not divide hidden size 64");
  spec.heads = 4;
  spec.layers = 0;
  CHECK_THROWS_WITH(dtsim::make_transformer(spec, "t"), "error: transformer layers: must be at least 1 (got 0)");
}

namespace {

// A small decoder whose rows are easy to count by hand: d = 64, 4 heads of 16, s = 16, vocab 100, ffn 256.
dtsim::TransformerSpec small() { return {.layers = 2, .hidden = 64, .heads = 4, .seq_len = 16, .vocab = 100}; }

const dtsim::Layer& row(const Workload& w, const std::string& name) {
  for (const auto& l : w.layers) {
    if (l.name == name) return l;
  }
  FAIL("no row " << name);
  return w.layers.front();
}

constexpr double kCore = 2.0 * 16 * 16 * 64;  // causal attention core 2*s*d per token, times s tokens

}  // namespace

TEST_CASE("make_transformer: the GPT-2 layout of a small shape, counted by hand") {
  const Workload w = dtsim::make_transformer(small(), "t");
  // LayerNorm 2*64; Q, K, V, output 64 x 64 with biases.
  CHECK(row(w, "attn_0").params == 128 + 4 * 64 * 64 + 4 * 64);
  CHECK(row(w, "attn_0").fwd_flops == 2 * row(w, "attn_0").params * 16 + kCore);
  CHECK(row(w, "mlp_1").params == 128 + 2 * 64 * 256 + 256 + 64);  // LayerNorm, 64 x 256 and 256 x 64, biases
  CHECK(row(w, "embed").params == (100 + 16) * 64);                // tokens and learned positions
  CHECK(row(w, "ln_f").params == 128);
  CHECK(row(w, "lm_head").params == 0);  // tied
}

TEST_CASE("make_transformer: grouped-query attention narrows K and V") {
  auto spec = small();
  spec.kv_heads = 2;  // K and V are 64 x (2 x 16) each
  const Workload w = dtsim::make_transformer(spec, "t");
  CHECK(row(w, "attn_0").params == 128 + 2 * 64 * 64 + 2 * 64 * 32 + (64 + 64 + 32 + 32));
  CHECK(row(w, "attn_0").fwd_flops == 2 * row(w, "attn_0").params * 16 + kCore);  // every query head attends
  CHECK(row(w, "attn_0").bwd_flops == 2 * row(w, "attn_0").fwd_flops);
  spec.kv_heads = 4;  // as many as heads: plain multi-head attention
  CHECK(dtsim::make_transformer(spec, "t").total_params() == dtsim::make_transformer(small(), "t").total_params());
}

TEST_CASE("make_transformer: SwiGLU, RMSNorm, no biases and rotary positions") {
  auto spec = small();
  spec.ffn = 128;
  spec.gated_mlp = true;
  const Workload gated = dtsim::make_transformer(spec, "t");
  CHECK(row(gated, "mlp_0").params == 128 + 3 * 64 * 128 + (128 + 128 + 64));  // gate, up, down with biases
  CHECK(row(gated, "mlp_0").fwd_flops == 2.0 * (128 + 3 * 64 * 128 + 320) * 16);

  spec = small();
  spec.rms_norm = true;  // one weight vector of 64 per norm
  const Workload rms = dtsim::make_transformer(spec, "t");
  CHECK(row(rms, "attn_0").params == 64 + 4 * 64 * 64 + 4 * 64);
  CHECK(row(rms, "mlp_0").params == 64 + 2 * 64 * 256 + 256 + 64);
  CHECK(row(rms, "ln_f").params == 64);
  CHECK(row(rms, "ln_f").fwd_flops == 2.0 * 64 * 16);

  spec = small();
  spec.bias = false;
  const Workload no_bias = dtsim::make_transformer(spec, "t");
  CHECK(row(no_bias, "attn_0").params == 128 + 4 * 64 * 64);
  CHECK(row(no_bias, "mlp_0").params == 128 + 2 * 64 * 256);

  spec = small();
  spec.rotary = true;
  CHECK(row(dtsim::make_transformer(spec, "t"), "embed").params == 100 * 64);  // no position embeddings
  spec.positions = 16;
  CHECK_THROWS_WITH(dtsim::make_transformer(spec, "t"),
                    "error: transformer positions: 16 learned positions with rotary embeddings, which have none "
                    "(valid: 0)");

  spec = small();
  spec.flash_attention = false;  // an implementation choice: the same table
  const Workload separate = dtsim::make_transformer(spec, "t");
  const Workload fused = dtsim::make_transformer(small(), "t");
  REQUIRE(separate.layers.size() == fused.layers.size());
  for (size_t i = 0; i < fused.layers.size(); ++i) {
    CHECK(separate.layers[i].params == fused.layers[i].params);
    CHECK(separate.layers[i].fwd_flops == fused.layers[i].fwd_flops);
  }
}

TEST_CASE("make_transformer: a mixture of experts counts every expert's parameters, the routed ones' FLOPs") {
  auto spec = small();
  spec.ffn = 128;
  spec.gated_mlp = true;
  spec.rms_norm = true;
  spec.bias = false;
  spec.experts = 4;
  spec.top_k = 2;
  const Workload w = dtsim::make_transformer(spec, "t");
  const double expert = 3 * 64 * 128;  // gate, up, down without biases
  const double router = 64 * 4;
  CHECK_FALSE(std::any_of(w.layers.begin(), w.layers.end(), [](const auto& l) { return l.name == "mlp_0"; }));
  CHECK(row(w, "moe_0").params == 64 + router + 4 * expert);
  CHECK(row(w, "moe_0").fwd_flops == 2 * (64 + router + 2 * expert) * 16);
  CHECK(row(w, "moe_1").bwd_flops == 2 * row(w, "moe_1").fwd_flops);
  CHECK(row(w, "moe_1").activations == 16 * 64);
  spec.top_k = 1;
  CHECK(row(dtsim::make_transformer(spec, "t"), "moe_0").fwd_flops == 2 * (64 + router + expert) * 16);
  const double routed_once = dtsim::make_transformer(spec, "t").fwd_flops_per_sample();
  spec.capacity_factor = 1.25;  // left to the hybrid plans: the same table
  CHECK(dtsim::make_transformer(spec, "t").fwd_flops_per_sample() == routed_once);
}

TEST_CASE("make_transformer refuses kv_heads that do not divide heads, and top_k outside 1..experts") {
  auto spec = small();
  spec.kv_heads = 3;
  CHECK_THROWS_WITH(dtsim::make_transformer(spec, "t"),
                    "error: transformer kv_heads: 3 does not divide the 4 heads (valid: a divisor of 4, or 0 for one "
                    "per head)");
  spec.kv_heads = 8;
  CHECK_THROWS_AS(dtsim::make_transformer(spec, "t"), dtsim::InputError);
  spec = small();
  spec.experts = 4;
  spec.top_k = 5;
  CHECK_THROWS_WITH(dtsim::make_transformer(spec, "t"),
                    "error: transformer top_k: 5 is more than the 4 experts (valid: 1..4)");
  spec.top_k = 0;
  CHECK_THROWS_WITH(dtsim::make_transformer(spec, "t"), "error: transformer top_k: must be at least 1 (got 0)");
  spec.top_k = 2;
  spec.capacity_factor = -1;
  CHECK_THROWS_WITH(dtsim::make_transformer(spec, "t"),
                    "error: transformer capacity_factor: must be at least 0 (got -1)");
  spec = small();
  spec.experts = 0;
  spec.top_k = 5;  // read only with experts
  CHECK_NOTHROW(dtsim::make_transformer(spec, "t"));
}

TEST_CASE("an unknown zoo name lists the valid ones and suggests the closest") {
  const std::string valid =
      "valid: alexnet, bert_large, gpt2_xl, gpt3_175b, inception_v3, llama2_70b, llama2_7b, llama3_405b, llama3_70b, "
      "llama3_8b, megatron_175b, megatron_1t, megatron_22b, megatron_530b, mixtral_8x7b, resnet101, resnet50, vgg16)";
  CHECK_THROWS_WITH(load_zoo_model("resnet5"), "error: unknown model 'resnet5' (did you mean 'resnet50'? " + valid);
  CHECK_THROWS_WITH(load_zoo_model("mobilenet_v2"), "error: unknown model 'mobilenet_v2' (" + valid);
  CHECK_THROWS_AS(load_zoo_model("../models/resnet50"), dtsim::InputError);
}

TEST_CASE("synthetic workloads add up exactly") {
  const Workload w = dtsim::make_synthetic(25'557'032, 8.2e9, 7);
  CHECK(w.layers.size() == 7);
  CHECK(w.total_params() == 25'557'032);
  CHECK(w.fwd_flops_per_sample() == 8.2e9);
  CHECK(w.bwd_flops_per_sample() == 2 * 8.2e9);
  CHECK(w.layers[3].params == Approx(25'557'032 / 7.0));
  const Workload odd = dtsim::make_synthetic(1e9 / 3, 0.1, 3);
  CHECK(odd.total_params() == 1e9 / 3);
  CHECK(odd.fwd_flops_per_sample() == 0.1);
  CHECK(dtsim::make_synthetic(100, 10, 1).total_params() == 100);
  CHECK_THROWS_WITH(dtsim::make_synthetic(100, 10, 0), "error: a synthetic workload needs at least 1 layer, not 0");
}

TEST_CASE("the compiled-in zoo, parsed once, gives every caller its own copy") {
  Workload first = load_zoo_model("resnet50");
  const Workload again = load_zoo_model("resnet50");
  REQUIRE(first.layers.size() == again.layers.size());
  CHECK(first.total_params() == again.total_params());
  first.layers.front().params += 1;  // a caller's change stays its own
  CHECK(load_zoo_model("resnet50").total_params() == again.total_params());
  DeviceSpec d = load_device("a100_40gb");
  const double peak = d.peak_fp16;
  d.peak_fp16 = 1;
  CHECK(load_device("a100_40gb").peak_fp16 == peak);
  // Unknown names fail every time.
  for (int i = 0; i < 2; ++i) {
    CHECK_THROWS_AS(load_device("a100_41gb"), InputError);
    CHECK_THROWS_AS(load_zoo_model("resnet51"), InputError);
  }
}
