// model.transformer.*: the keys of the larger decoders, their refusals, and their overrides of a zoo model's shape.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/scenario/loader.hpp"
#include "models/zoo/transformer.hpp"
#include "models/zoo/workload.hpp"
#include "tests/support/scenario_error.hpp"

using dtsim::test::error_of;

namespace {

std::string scenario(const std::string& model) {
  return "model:\n" + model + "cluster:\n  nodes: 2\n  devices_per_node: 4\n  device: a100_40gb\n";
}

}  // namespace

TEST_CASE("model.transformer.* set the larger decoders' fields of model.name: transformer") {
  const auto s = dtsim::load_scenario_text(scenario("  name: transformer\n"
                                                    "  transformer:\n"
                                                    "    layers: 2\n"
                                                    "    hidden: 64\n"
                                                    "    heads: 4\n"
                                                    "    kv_heads: 2\n"
                                                    "    gated_mlp: true\n"
                                                    "    rms_norm: true\n"
                                                    "    bias: false\n"
                                                    "    rotary: true\n"
                                                    "    tied_embeddings: false\n"
                                                    "    experts: 4\n"
                                                    "    top_k: 1\n"
                                                    "    capacity_factor: 1.25\n"
                                                    "    flash_attention: false\n"),
                                           "x.yaml");
  const dtsim::TransformerSpec& t = s.job().model.transformer;
  CHECK(t.kv_heads == 2);
  CHECK(t.gated_mlp);
  CHECK(t.rms_norm);
  CHECK_FALSE(t.bias);
  CHECK(t.rotary);
  CHECK_FALSE(t.tied_embeddings);
  CHECK(t.experts == 4);
  CHECK(t.top_k == 1);
  CHECK(t.capacity_factor == 1.25);
  CHECK_FALSE(t.flash_attention);
  CHECK(s.job().workload.name == "transformer");
  CHECK(s.job().workload.total_params() == dtsim::make_transformer(t, "transformer").total_params());
  CHECK(s.job().workload.layers[2].name == "moe_0");
}

TEST_CASE("a shape-defined zoo model's shape becomes the job's, the keys a scenario sets override it") {
  const auto zoo = dtsim::load_scenario_text(scenario("  name: llama3_70b\n"), "x.yaml");
  const auto llama = dtsim::zoo_transformer("llama3_70b");
  REQUIRE(llama);
  const dtsim::TransformerSpec& t = zoo.job().model.transformer;
  CHECK(t.layers == 80);
  CHECK(t.hidden == 8192);
  CHECK(t.kv_heads == 8);
  CHECK(t.seq_len == 8192);
  CHECK(t.gated_mlp);
  CHECK_FALSE(t.tied_embeddings);
  CHECK(zoo.job().workload.total_params() == 70'553'706'496);
  CHECK(zoo.job().workload.source == dtsim::load_zoo_model("llama3_70b").source);

  const auto shorter = dtsim::load_scenario_text(scenario("  name: llama3_70b\n"), "x.yaml",
                                                 {"model.transformer.seq_len=4096", "model.transformer.layers=40"});
  const dtsim::TransformerSpec& u = shorter.job().model.transformer;
  CHECK(u.seq_len == 4096);
  CHECK(u.layers == 40);
  CHECK(u.kv_heads == 8);          // the zoo's, not the key's default 0
  CHECK(u.vocab == 128256);        // the zoo's, not the key's default 50257
  CHECK_FALSE(u.tied_embeddings);  // the zoo's, not the key's default true
  CHECK(u.flash_attention == llama->flash_attention);
  const dtsim::Workload& w = shorter.job().workload;
  CHECK(w.name == "llama3_70b");
  CHECK(w.input == "4096 tokens");
  CHECK(w.total_params() == dtsim::make_transformer(u, "llama3_70b").total_params());
  CHECK(w.fwd_flops_per_sample() == dtsim::make_transformer(u, "llama3_70b").fwd_flops_per_sample());
  CHECK(w.source.rfind("llama3_70b's shape with the scenario's model.transformer.layers, model.transformer.seq_len; "
                       "make_transformer: decoder 40 layers",
                       0) == 0);

  // Written in the file too, and per job in a jobs list.
  const auto in_file =
      dtsim::load_scenario_text(scenario("  name: mixtral_8x7b\n  transformer:\n    top_k: 1\n"), "x.yaml");
  CHECK(in_file.job().model.transformer.top_k == 1);
  CHECK(in_file.job().model.transformer.experts == 8);
  const auto jobs = dtsim::load_scenario_text(
      "cluster:\n  nodes: 2\n  device: a100_40gb\njobs:\n"
      "  - model:\n      name: llama3_8b\n    placement:\n      nodes: 1\n"
      "  - model:\n      name: llama3_8b\n      transformer:\n        seq_len: 2048\n"
      "    placement:\n      first_node: 1\n",
      "x.yaml");
  CHECK(jobs.jobs[0].model.transformer.seq_len == 8192);
  CHECK(jobs.jobs[1].model.transformer.seq_len == 2048);
  CHECK(jobs.jobs[1].model.transformer.kv_heads == 8);
}

TEST_CASE("a model file with a transformer shape takes the keys too") {
  const std::string dir = std::string(DTSIM_BINARY_DIR);
  {
    std::ofstream out(dir + "/transformer_keys_test_model.yaml");
    out << "name: tiny\ntransformer:\n  layers: 2\n  hidden: 64\n  heads: 4\n  kv_heads: 2\n";
  }
  const auto s = dtsim::load_scenario_text(scenario("  file: transformer_keys_test_model.yaml\n"), dir + "/x.yaml",
                                           {"model.transformer.layers=3"});
  std::remove((dir + "/transformer_keys_test_model.yaml").c_str());
  CHECK(s.job().model.transformer.layers == 3);
  CHECK(s.job().model.transformer.kv_heads == 2);
  CHECK(s.job().workload.name == "tiny");
  CHECK(s.job().workload.layers.size() == 1 + 2 * 3 + 2);
}

TEST_CASE("model.transformer.* refusals name the key, the value and what is valid") {
  const std::string base = "  name: transformer\n  transformer:\n    hidden: 64\n    heads: 4\n";
  CHECK(
      error_of(scenario(base + "    kv_heads: 3\n")) ==
      "x.yaml:6:15: error: model.transformer.kv_heads: 3 does not divide the 4 heads (valid: a divisor of 4, or 0 for "
      "one per head)");
  CHECK(error_of(scenario(base + "    experts: 4\n    top_k: 5\n")) ==
        "x.yaml:7:12: error: model.transformer.top_k: 5 is more than the 4 experts (valid: 1..4)");
  CHECK(error_of(scenario(base + "    top_k: 0\n")) ==
        "x.yaml:6:12: error: model.transformer.top_k: must be at least 1 (got 0)");
  CHECK(error_of(scenario(base + "    capacity_factor: -0.5\n")) ==
        "x.yaml:6:22: error: model.transformer.capacity_factor: must be from 0 to 1000 (got -0.5)");
  CHECK(error_of(scenario(base + "    gated_mlp: swiglu\n")) ==
        "x.yaml:6:16: error: model.transformer.gated_mlp: 'swiglu' is not a boolean (use true or false)");
  CHECK(error_of(scenario("  name: transformer\n  transformer:\n    hidden: 64\n    heads: 5\n")) ==
        "x.yaml:5:12: error: model.transformer.heads: 5 does not divide hidden size 64");
  CHECK(error_of(scenario(base + "    rotary: true\n    positions: 16\n")) ==
        "x.yaml:7:16: error: model.transformer.positions: 16 learned positions with rotary embeddings, which have none "
        "(valid: 0)");
  // Over a zoo shape: the key that breaks it, or model.name when the bad value is the zoo's own.
  CHECK(error_of(scenario("  name: llama3_70b\n"), {"model.transformer.kv_heads=5"}) ==
        "--set model.transformer.kv_heads=5: error: model.transformer.kv_heads: 5 does not divide the 64 heads "
        "(valid: a divisor of 64, or 0 for one per head)");
  CHECK(error_of(scenario("  name: llama3_70b\n"), {"model.transformer.heads=4"}) ==
        "x.yaml:2:9: error: model.transformer.kv_heads: 8 does not divide the 4 heads (valid: a divisor of 4, or 0 "
        "for one per head)");
}

TEST_CASE("model.transformer.* on a model without a shape is refused, not ignored") {
  CHECK(error_of(scenario("  name: resnet50\n"), {"model.transformer.seq_len=4096"}) ==
        "--set model.transformer.seq_len=4096: error: model.transformer.seq_len: model 'resnet50' has no transformer "
        "shape to change (model.transformer.* apply to model.name: transformer, to the zoo's shape-defined models "
        "such as llama3_8b and to model files with a `transformer:` shape)");
  CHECK(error_of(scenario("  name: gpt3_175b\n  transformer:\n    layers: 4\n"))
            .rfind("x.yaml:4:13: error: model.transformer.layers: model 'gpt3_175b' has no transformer shape", 0) == 0);
}

TEST_CASE("model.transformer.window and window_layers set a sliding window on a zoo shape or a new one") {
  const auto s = dtsim::load_scenario_text(scenario("  name: llama3_8b\n"), "x.yaml",
                                           {"model.transformer.window=1024", "model.transformer.window_layers=0.5"});
  const dtsim::TransformerSpec& t = s.job().model.transformer;
  CHECK(t.window == 1024);
  CHECK(t.window_layers == 0.5);
  CHECK(t.kv_heads == 8);  // the rest is the zoo's
  CHECK(s.job().workload.source.find("a sliding window of 1024 tokens on 0.5 of the blocks") != std::string::npos);
  const auto full = dtsim::load_scenario_text(scenario("  name: llama3_8b\n"), "x.yaml");
  CHECK(full.job().model.transformer.window == 0);  // absent: full attention
  CHECK(s.job().workload.fwd_flops_per_sample() < full.job().workload.fwd_flops_per_sample());
}

TEST_CASE("bad sliding-window values fail with one line naming the key and what is valid") {
  const std::string base = "  name: transformer\n  transformer:\n    hidden: 64\n    heads: 4\n";
  CHECK(error_of(scenario(base + "    window: -1\n")) ==
        "x.yaml:6:13: error: model.transformer.window: '-1' is not a count (use a whole number such as 8)");
  CHECK(error_of(scenario(base + "    window: 1.5\n")) ==
        "x.yaml:6:13: error: model.transformer.window: '1.5' is not a count (use a whole number such as 8)");
  CHECK(error_of(scenario(base + "    window: 16\n    window_layers: 0\n")) ==
        "x.yaml:7:20: error: model.transformer.window_layers: must be more than 0 and at most 1 (got 0)");
  CHECK(error_of(scenario(base + "    window_layers: 1.5\n")) ==
        "x.yaml:6:20: error: model.transformer.window_layers: must be more than 0 and at most 1 (got 1.5)");
  CHECK(error_of(scenario(base + "    encoder: true\n    window: 16\n")) ==
        "x.yaml:7:13: error: model.transformer.window: a sliding window of 16 on an encoder is not modelled: dtsim's "
        "window is a causal decoder's, each query's last keys (valid: 0 with encoder: true)");
  CHECK(error_of(scenario(base + "    window: 16\n"),
                 {"strategy.kind=hybrid", "strategy.context=2", "model.transformer.seq_len=64"}) ==
        "--set strategy.context=2: error: strategy.context: context parallelism over 2 ranks with a sliding window of "
        "16 tokens (model.transformer.window) is not modelled: how the ranks share a window's keys depends on the "
        "implementation (valid: 1, or a window of 0 or of at least the sequence's 64)");
  // A window of the whole sequence is full attention: context parallelism runs it.
  CHECK(error_of(scenario(base + "    window: 64\n"),
                 {"strategy.kind=hybrid", "strategy.context=2", "model.transformer.seq_len=64"}) == "no error");
}
