// model.hf_config: a scenario's model read from a Hugging Face config.json (models/zoo/hf_config.hpp), relative to the
// scenario; model.transformer.* over it; one of model.name, model.file and model.hf_config; a sliding window read as
// the shape's window; the config's sequence taken as the one trained on said in a warning.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/scenario/loader.hpp"
#include "core/scenario/warnings.hpp"
#include "models/zoo/transformer.hpp"
#include "models/zoo/workload.hpp"
#include "tests/support/scenario_error.hpp"

using namespace dtsim;

namespace {

// A folder with a scenario's configs: Llama-3-8B's (as published) and a Mistral-7B-v0.1-like one with its window.
std::filesystem::path configs() {
  // One folder a process: ctest runs this file's test cases as processes side by side, each writing these files.
  const auto dir = std::filesystem::temp_directory_path() / ("dtsim-hf-config-keys-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "llama");
  std::ofstream(dir / "llama" / "config.json") << R"({"model_type": "llama", "hidden_size": 4096,
"intermediate_size": 14336, "max_position_embeddings": 8192, "num_attention_heads": 32, "num_hidden_layers": 32,
"num_key_value_heads": 8, "tie_word_embeddings": false, "vocab_size": 128256})";
  std::ofstream(dir / "mistral.json") << R"({"model_type": "mistral", "hidden_size": 4096,
"intermediate_size": 14336, "max_position_embeddings": 32768, "num_attention_heads": 32, "num_hidden_layers": 32,
"num_key_value_heads": 8, "sliding_window": 4096, "vocab_size": 32000})";
  return dir;
}

std::string scenario(const std::string& model) {
  return "name: hf\nmodel:\n" + model +
         "cluster: {nodes: 1, devices_per_node: 8, device: h100_sxm}\n"
         "strategy: {kind: hybrid, tensor: 8}\n";
}

}  // namespace

TEST_CASE("model.hf_config reads the shape from a config beside the scenario, and keys change it", "[hf_config]") {
  const auto dir = configs();
  const std::string origin = (dir / "s.yaml").string();
  const Scenario s =
      load_scenario_text(scenario("  hf_config: llama/config.json\n  transformer: {seq_len: 4096}\n"), origin);
  CHECK(s.job().model.is_transformer);
  TransformerSpec expected = *zoo_transformer("llama3_8b");
  expected.seq_len = 4096;
  CHECK(s.job().model.transformer == expected);
  CHECK(s.job().workload.name == "llama");
  CHECK(s.job().workload.total_params() == 8030261248.0);
  CHECK(scenario_warnings(s).empty());  // the sequence is the scenario's

  const Scenario from_config = load_scenario_text(scenario("  hf_config: llama/config.json\n"), origin);
  CHECK(from_config.job().model.transformer.seq_len == 8192);
  const auto warnings = scenario_warnings(from_config);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("s.yaml:3:14: warning: model.hf_config: the sequence is the config's longest, 8192 tokens; "
                         "set model.transformer.seq_len") != std::string::npos);
}

TEST_CASE("model.hf_config of a Mistral-7B-v0.1-like config runs its sliding window of 4096 tokens",
          "[hf_config][window]") {
  const auto dir = configs();
  const std::string origin = (dir / "s.yaml").string();
  const Scenario s = load_scenario_text(scenario("  hf_config: mistral.json\n"), origin);
  const TransformerSpec& t = s.job().model.transformer;
  CHECK(t.seq_len == 32768);
  CHECK(t.window == 4096);
  CHECK(t.window_layers == 1);
  // Its attention rows count the window: 4 s d keys(s, w) a block where the full mask counts 2 s^2 d.
  TransformerSpec full = t;
  full.window = 0;
  const double s_ = t.seq_len, d = t.hidden, w = t.window;
  const double fewer = 2 * s_ * s_ * d - 4 * s_ * d * (w - w * w / (2 * s_));
  CHECK(make_transformer(full, "m").fwd_flops_per_sample() - s.job().workload.fwd_flops_per_sample() ==
        Approx(t.layers * fewer).epsilon(1e-12));
}

TEST_CASE("model.hf_config's faults are one line naming the key", "[hf_config]") {
  const auto dir = configs();
  const std::string origin = (dir / "s.yaml").string();
  CHECK(test::error_of(scenario("  hf_config: mistral.json\n  transformer: {seq_len: 4096}\n"), {}, origin) ==
        "no error");
  // Its window with context parallelism, which is not modelled, is refused where the scenario asks for it.
  CHECK(test::error_of(scenario("  hf_config: mistral.json\n"), {"strategy.tensor=4", "strategy.context=2"}, origin)
            .find("error: strategy.context: context parallelism over 2 ranks with a sliding window of 4096 tokens") !=
        std::string::npos);
  CHECK(test::error_of(scenario("  hf_config: nowhere.json\n"), {}, origin).find("model.hf_config: no such file") !=
        std::string::npos);
  CHECK(test::error_of(scenario("  hf_config: llama/config.json\n  name: llama3_8b\n"), {}, origin)
            .find("s.yaml:3:14: error: give one of model.name, model.file and model.hf_config") != std::string::npos);
  // A --set path is relative to where dtsim runs, as a user typed it.
  const std::string here = std::filesystem::relative(dir / "llama/config.json").string();
  CHECK(test::error_of(scenario("  dtype: bf16\n"), {"model.hf_config=" + here, "model.transformer.seq_len=4096"},
                       origin) == "no error");
}
