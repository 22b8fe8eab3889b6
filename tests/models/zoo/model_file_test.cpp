// The model file format: what it accepts, and the one-line error (file:line:col) for each mistake.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "models/zoo/model_file.hpp"
#include "models/zoo/transformer.hpp"
#include "models/zoo/workload.hpp"

using dtsim::parse_model_text;

namespace {

const std::string kHeader =
    "name: tiny\n"
    "source: \"made up for the tests\"\n"
    "counts: flops\n"
    "input: 3x32x32\n"
    "columns: [name, params, fwd_flops, bwd_flops, activations]\n";

std::string error_of(const std::string& text) {
  try {
    parse_model_text(text, "my_model.yaml");
  } catch (const dtsim::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a model file is read into layers") {
  const auto w = parse_model_text(kHeader +
                                      "layers:\n"
                                      "  - [conv, 100, 2000, 2000, 50]\n"
                                      "  - [fc, 1.5e3, 3e3, 6e3, 10]\n",
                                  "tiny.yaml");
  CHECK(w.name == "tiny");
  CHECK(w.source == "made up for the tests");
  CHECK(w.input == "3x32x32");
  REQUIRE(w.layers.size() == 2);
  CHECK(w.layers[1].name == "fc");
  CHECK(w.total_params() == 1600);
  CHECK(w.fwd_flops_per_sample() == 5000);
  CHECK(w.bwd_flops_per_sample() == 8000);
  CHECK(w.activations_per_sample() == 60);
}

TEST_CASE("counts: macs doubles the FLOP columns / missing optional columns take their defaults") {
  const auto w = parse_model_text(
      "name: m\ncounts: macs\ncolumns: [name, fwd_flops, params]\nlayers:\n  - [a, 10, 7]\n  - [b, 5, 0]\n", "m.yaml");
  CHECK(w.source.empty());
  CHECK(w.layers[0].params == 7);
  CHECK(w.layers[0].fwd_flops == 20);
  CHECK(w.layers[0].bwd_flops == 40);  // no bwd_flops column: 2 x forward
  CHECK(w.layers[0].activations == 0);
  CHECK(w.fwd_flops_per_sample() == 30);
  const auto with_bwd = parse_model_text(
      "name: m\ncounts: macs\ncolumns: [name, params, fwd_flops, bwd_flops]\n"
      "layers:\n  - [a, 1, 10, 15]\n",
      "m.yaml");
  CHECK(with_bwd.layers[0].bwd_flops == 30);
}

TEST_CASE("a table's class, GEMM and traffic columns say what kernel each row is") {
  const auto w = parse_model_text(
      "name: m\ncounts: flops\n"
      "columns: [name, class, params, fwd_flops, activations, gemm_m, gemm_n, gemm_k, fwd_traffic, bwd_traffic]\n"
      "layers:\n"
      "  - [conv, conv, 36864, 231211008, 200704, 3136, 64, 576, 401408, 802816]\n"
      "  - [bn, norm, 128, 0, 200704, 0, 0, 0, 602112, 1003520]\n"
      "  - [relu, elementwise, 0, 0, 0, 0, 0, 0, 401408, 602112]\n",
      "m.yaml");
  REQUIRE(w.layers.size() == 3);
  CHECK(w.layers[0].cls == dtsim::KernelClass::Conv);
  CHECK(w.layers[0].gemm_m == 3136);
  CHECK(w.layers[0].gemm_n == 64);
  CHECK(w.layers[0].gemm_k == 576);
  CHECK(w.layers[1].cls == dtsim::KernelClass::Norm);
  CHECK(w.layers[1].fwd_traffic == 602112);
  CHECK(w.layers[1].bwd_traffic == 1003520);
  CHECK(w.layers[2].cls == dtsim::KernelClass::Elementwise);
  // Without the columns: a layer, and the traffic rule of core/plan/worker.cpp (-1).
  const auto plain = parse_model_text(kHeader + "layers:\n  - [fc, 1, 2, 4, 5]\n", "p.yaml");
  CHECK(plain.layers[0].cls == dtsim::KernelClass::Layer);
  CHECK(plain.layers[0].fwd_traffic < 0);
  CHECK(error_of("name: m\ncounts: flops\ncolumns: [name, class, params, fwd_flops]\nlayers:\n  - [a, convolution, 1, "
                 "2]\n") ==
        "my_model.yaml:5:9: error: layer 'a': class 'convolution' is not one of layer, gemm, conv, attention, softmax, "
        "elementwise, norm, embedding, layout_copy");
}

TEST_CASE("mistakes in a model file point at their line and column") {
  const std::string row = "  - [conv, 100, 2000, 2000, 50]\n";
  CHECK(error_of(kHeader + "layer:\n" + row) ==
        "my_model.yaml:6:1: error: unknown key 'layer' (did you mean 'layers'?)");
  CHECK(error_of(kHeader + "layers:\n" + row + "  - [fc, 10, 20, 40]\n") ==
        "my_model.yaml:8:5: error: layer 2 has 4 values, expected 5 [name, params, fwd_flops, bwd_flops, activations]");
  CHECK(error_of(kHeader + "layers:\n" + row + "  - [fc, -10, 20, 40, 1]\n") ==
        "my_model.yaml:8:10: error: layer 'fc' has a negative params count");
  CHECK(error_of(kHeader + "layers:\n" + row + "  - [fc, 10, 2O, 40, 1]\n") ==
        "my_model.yaml:8:14: error: layer 'fc': fwd_flops '2O' is not a number");
  CHECK(error_of(kHeader) == "my_model.yaml:1:1: error: missing key 'layers'");
  CHECK(error_of("name: x\ncounts: flop\ncolumns: [name, params, fwd_flops]\nlayers: [[a, 1, 1]]\n") ==
        "my_model.yaml:2:9: error: 'counts' is 'flops' or 'macs', not 'flop'");
  CHECK(error_of("name: x\ncounts: flops\ncolumns: [name, parms, fwd_flops]\nlayers: [[a, 1, 1]]\n") ==
        "my_model.yaml:3:17: error: unknown column 'parms' (did you mean 'params'?)");
  CHECK(error_of("name: x\ncounts: flops\ncolumns: [name, params]\nlayers: [[a, 1]]\n") ==
        "my_model.yaml:3:10: error: 'columns' lacks 'fwd_flops'");
  CHECK(error_of("name: x\ncounts: flops\ncolumns: [name, params, fwd_flops]\nlayers: [[a, 1, 1], [a, 2, 2]]\n") ==
        "my_model.yaml:4:21: error: layer 2 repeats the name 'a' of layer 1");
  CHECK(error_of("name: x\nname: y\n") == "my_model.yaml:2:1: error: duplicate key 'name'");
  CHECK(error_of("name: x\ncounts: flops\ncolumns: [name, params, fwd_flops]\nlayers: []\n") ==
        "my_model.yaml:4:9: error: 'layers' must be a non-empty list of rows");
  CHECK(error_of("name: [x\n").rfind("my_model.yaml:", 0) == 0);  // a YAML syntax error keeps the file name
  CHECK(error_of("- a\n") ==
        "my_model.yaml:1:1: error: a model file is a map with the keys name, source, counts, "
        "input, columns, layers, transformer");
}

TEST_CASE("a model file may give a transformer's shape instead of its rows") {
  const std::string text =
      "name: tiny_llama\n"
      "source: \"made up for the tests\"\n"
      "transformer:\n"
      "  layers: 2\n"
      "  hidden: 64\n"
      "  heads: 4\n"
      "  kv_heads: 2\n"
      "  seq_len: 16\n"
      "  vocab: 100\n"
      "  ffn: 128\n"
      "  gated_mlp: true\n"
      "  rms_norm: true\n"
      "  bias: false\n"
      "  rotary: true\n"
      "  tied_embeddings: false\n"
      "  capacity_factor: 1.5\n";
  const auto definition = dtsim::parse_model_definition(text, "tiny_llama.yaml");
  REQUIRE(definition.shape);
  const dtsim::TransformerSpec& shape = *definition.shape;
  CHECK(shape.layers == 2);
  CHECK(shape.kv_heads == 2);
  CHECK(shape.gated_mlp);
  CHECK_FALSE(shape.bias);
  CHECK(shape.capacity_factor == 1.5);
  CHECK(shape.top_k == dtsim::TransformerSpec{}.top_k);  // not given: the struct's default
  CHECK(shape.flash_attention);
  const dtsim::Workload made = dtsim::make_transformer(shape, "tiny_llama");
  const dtsim::Workload& w = definition.workload;
  CHECK(w.name == "tiny_llama");
  CHECK(w.input == "16 tokens");
  CHECK(w.source == "made up for the tests; " + made.source);
  REQUIRE(w.layers.size() == made.layers.size());
  CHECK(w.total_params() == made.total_params());
  CHECK(w.fwd_flops_per_sample() == made.fwd_flops_per_sample());
  CHECK(parse_model_text(text, "tiny_llama.yaml").total_params() == made.total_params());
  CHECK_FALSE(dtsim::parse_model_definition(kHeader + "layers: [[a, 1, 1, 2, 0]]\n", "t.yaml").shape);
}

TEST_CASE("mistakes in a transformer's shape point at the field") {
  const std::string head = "name: t\ntransformer:\n  layers: 2\n  hidden: 64\n";
  CHECK(error_of(head + "  heads: 4\n  kv_heads: 3\n") ==
        "my_model.yaml:6:13: error: transformer.kv_heads: 3 does not divide the 4 heads (valid: a divisor of 4, or 0 "
        "for one per head)");
  CHECK(error_of(head + "  heads: 4\n  experts: 4\n  top_k: 5\n") ==
        "my_model.yaml:7:10: error: transformer.top_k: 5 is more than the 4 experts (valid: 1..4)");
  CHECK(error_of(head + "  heads: 5\n") ==
        "my_model.yaml:5:10: error: transformer.heads: 5 does not divide hidden "
        "size 64");
  CHECK(error_of(head + "  kv_heads: 5\n") ==  // heads is left at 12, which 64 is not a multiple of
        "my_model.yaml:2:1: error: transformer.heads: 12 does not divide hidden size 64");
  CHECK(error_of(head + "  head: 4\n") ==
        "my_model.yaml:5:3: error: unknown transformer field 'head' (did you mean 'heads'?)");
  CHECK(error_of(head + "  heads: four\n") ==
        "my_model.yaml:5:10: error: transformer.heads: 'four' is not a whole "
        "number");
  CHECK(error_of(head + "  heads: 0\n") ==
        "my_model.yaml:5:10: error: transformer.heads: must be between 1 and 1000000000 (got 0)");
  CHECK(error_of(head + "  bias: maybe\n") ==
        "my_model.yaml:5:9: error: transformer.bias: 'maybe' is not true or "
        "false");
  CHECK(error_of(head + "  capacity_factor: -1\n") ==
        "my_model.yaml:5:20: error: transformer.capacity_factor: must be at least 0 (got -1)");
  CHECK(error_of(head + "  layers: 3\n") == "my_model.yaml:5:3: error: duplicate transformer field 'layers'");
  CHECK(error_of(head + "  window_layers: 0\n") ==
        "my_model.yaml:5:18: error: transformer.window_layers: must be more than 0 and at most 1 (got 0)");
  CHECK(error_of("name: t\ntransformer: [1, 2]\n") ==
        "my_model.yaml:2:14: error: 'transformer' must be a map of shape fields (layers, hidden, heads, seq_len, "
        "vocab, ffn, encoder, tied_embeddings, positions, kv_heads, gated_mlp, rms_norm, bias, rotary, experts, "
        "top_k, capacity_factor, flash_attention, lm_head, window, window_layers)");
  CHECK(error_of("name: t\ncounts: flops\ntransformer:\n  layers: 2\n") ==
        "my_model.yaml:2:1: error: 'counts' belongs to a layer table; a model given by its 'transformer' shape has its "
        "rows and input generated");
  CHECK(error_of("transformer:\n  layers: 2\n") == "my_model.yaml:1:1: error: missing key 'name'");
}

TEST_CASE("model files are read from disk / a missing one is an input error") {
  const std::string path = std::string(DTSIM_BINARY_DIR) + "/model_file_test.yaml";
  {
    std::ofstream out(path);
    out << kHeader << "layers:\n  - [conv, 100, 2000, 2000, 50]\n";
  }
  CHECK(dtsim::load_model_file(path).total_params() == 100);
  std::remove(path.c_str());
  CHECK_THROWS_WITH(dtsim::load_model_file(path), "error: cannot read model file '" + path + "'");
}

// The yaml blocks of docs/models.md, in order.
std::vector<std::string> docs_yaml_blocks() {
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/docs/models.md");
  REQUIRE(in);
  std::vector<std::string> blocks;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "```yaml") {
      inside = true;
      blocks.emplace_back();
    } else if (inside && line == "```") {
      inside = false;
    } else if (inside) {
      blocks.back() += line + "\n";
    }
  }
  return blocks;
}

TEST_CASE("the examples in docs/models.md parse") {
  const auto blocks = docs_yaml_blocks();
  REQUIRE(blocks.size() == 2);
  const auto w = parse_model_text(blocks[0], "docs/models.md");
  CHECK(w.name == "tiny_cnn");
  CHECK(w.total_params() == 896 + 81930);
  CHECK(w.fwd_flops_per_sample() == 1769472 + 32768 + 163840);
  const auto llama = dtsim::parse_model_definition(blocks[1], "docs/models.md");
  CHECK(llama.workload.total_params() == 8'030'261'248);
  REQUIRE(llama.shape);
  CHECK(llama.shape->kv_heads == 8);
  auto bad = blocks[1];
  bad.replace(bad.find("kv_heads: 8"), 11, "kv_heads: 3");
  CHECK_THROWS_WITH(dtsim::parse_model_definition(bad, "my_llama.yaml"),
                    "my_llama.yaml:7:13: error: transformer.kv_heads: 3 does not divide the 32 heads (valid: a divisor "
                    "of 32, or 0 for one per head)");
}

TEST_CASE("every number column of a model file has a bound, a row's and the model's in all") {
  // Issue #51: a layer of 1e30 parameters ran on every engine, and the engines differed 30x.
  const std::string all =
      "name: x\ncounts: flops\ncolumns: [name, params, fwd_flops, bwd_flops, activations, gemm_m, "
      "gemm_n, gemm_k, fwd_traffic, bwd_traffic]\nlayers:\n";
  const std::vector<std::string> columns{"params", "fwd_flops", "bwd_flops",   "activations", "gemm_m",
                                         "gemm_n", "gemm_k",    "fwd_traffic", "bwd_traffic"};
  for (size_t c = 0; c < columns.size(); ++c) {
    std::string row = "  - [big";
    for (size_t k = 0; k < columns.size(); ++k) row += k == c ? ", 1e30" : ", 1";
    INFO(columns[c]);
    const std::string error = error_of(all + row + "]\n");
    CHECK(error.rfind("my_model.yaml:5:", 0) == 0);
    CHECK(error.find("layer 'big': " + columns[c] + " 1e30 is more than 1e+") != std::string::npos);
    CHECK(error.find('\n') == std::string::npos);
  }
  // At the bound a row is taken; MACs count twice against it.
  CHECK_NOTHROW(parse_model_text(kHeader + "layers:\n  - [a, 1e15, 1e18, 1e18, 1e15]\n", "my_model.yaml"));
  CHECK(error_of("name: x\ncounts: macs\ncolumns: [name, params, fwd_flops]\nlayers: [[a, 1, 6e17]]\n") ==
        "my_model.yaml:4:17: error: layer 'a': fwd_flops 6e17 MACs (1.2e+18 FLOPs) is more than 1e+18 (1 EFLOP per "
        "sample, the bound of a FLOP count)");
  // Rows within their bounds that add up past the model's.
  CHECK(error_of(kHeader + "layers:\n  - [a, 9e14, 1, 1, 1]\n  - [b, 9e14, 1, 1, 1]\n") ==
        "my_model.yaml:7:3: error: the layers' params add up to 1.8e+15; a model has at most 1e+15 "
        "(model.synthetic.params' bound, 500x the largest published model)");
}
