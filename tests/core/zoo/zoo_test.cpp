// The model zoo against the published counts, and the transformer generator against the zoo's files.
#include <catch2/catch.hpp>

#include <string>

#include "core/base/error.hpp"
#include "core/zoo/transformer.hpp"
#include "core/zoo/workload.hpp"

using dtsim::load_zoo_model;
using dtsim::Workload;

TEST_CASE("the zoo lists its models sorted") {
  CHECK(dtsim::zoo_model_names() == std::vector<std::string>{"alexnet", "bert_large", "gpt2_xl", "gpt3_175b",
                                                             "inception_v3", "resnet101", "resnet50", "vgg16"});
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
      {"bert_large", {.layers = 24, .hidden = 1024, .heads = 16, .seq_len = 512, .vocab = 30522, .encoder = true}},
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
  CHECK_THROWS_WITH(dtsim::make_transformer(spec, "t"),
                    "error: a transformer's hidden size (64) must be a multiple of its heads (5)");
  spec.heads = 4;
  spec.layers = 0;
  CHECK_THROWS_WITH(dtsim::make_transformer(spec, "t"),
                    "error: a transformer needs a positive number of layers, not 0");
}

TEST_CASE("an unknown zoo name lists the valid ones and suggests the closest") {
  CHECK_THROWS_WITH(load_zoo_model("resnet5"),
                    "error: unknown model 'resnet5' (did you mean 'resnet50'? valid: alexnet, bert_large, gpt2_xl, "
                    "gpt3_175b, inception_v3, resnet101, resnet50, vgg16)");
  CHECK_THROWS_WITH(load_zoo_model("mobilenet_v2"),
                    "error: unknown model 'mobilenet_v2' (valid: alexnet, bert_large, gpt2_xl, gpt3_175b, "
                    "inception_v3, resnet101, resnet50, vgg16)");
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
