// The model file format: what it accepts, and the one-line error (file:line:col) for each mistake.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/base/error.hpp"
#include "core/zoo/model_file.hpp"
#include "core/zoo/workload.hpp"

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
        "my_model.yaml:1:1: error: a model file is a map with the keys name, source, counts, input, columns, layers");
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

TEST_CASE("the example in docs/models.md parses") {
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/docs/models.md");
  REQUIRE(in);
  std::string line, yaml;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == "```yaml") {
      inside = true;
    } else if (inside && line == "```") {
      break;
    } else if (inside) {
      yaml += line + "\n";
    }
  }
  const auto w = parse_model_text(yaml, "docs/models.md");
  CHECK(w.name == "tiny_cnn");
  CHECK(w.total_params() == 896 + 81930);
  CHECK(w.fwd_flops_per_sample() == 1769472 + 32768 + 163840);
}
