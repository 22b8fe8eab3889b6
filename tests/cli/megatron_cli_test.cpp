// dtsim import-megatron end to end: a Megatron-LM launch made into a scenario that runs, and a launch dtsim cannot
// express refused with exit code 2 and one line, nothing written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

namespace dtsim::test {
namespace {

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("dtsim import-megatron and run: Megatron-LM's Llama 3 8B launch runs as a scenario") {
  const std::string dir = temp_dir("megatron-cli");
  const auto imported = run_dtsim(
      "import-megatron tests/core/scenario/data/megatron_llama3_8b.sh --preset dgx_h100 "
      "--out '" +
          dir + "/llama.yaml'",
      "megatron-i");
  REQUIRE(imported.code == 0);
  CHECK(imported.out.find("8.03 B parameters on 1 x 8 h100_sxm (tensor 1 x pipeline 1 x context 1") !=
        std::string::npos);
  const std::string text = slurp(dir + "/llama.yaml");
  CHECK(text.find("#   --num-query-groups 8 (line 9): model.transformer.kv_heads 8") != std::string::npos);
  CHECK(text.find("--lr ") != std::string::npos);  // among the arguments not read
  const auto run = run_dtsim("run '" + dir + "/llama.yaml' --out '" + dir + "/run'", "megatron-r");
  REQUIRE(run.code == 0);
  const auto m = nlohmann::json::parse(slurp(dir + "/run/metrics.json"));
  CHECK(m["workers"] == 8);
  CHECK(m["iteration_time_s"]["mean"].get<double>() > 0);
}

TEST_CASE("dtsim import-megatron refuses what it cannot express with exit code 2 and one line, nothing written") {
  const std::string dir = temp_dir("megatron-cli-bad");
  const std::string args = dir + "/args.sh";
  write_text(args,
             "pretrain_gpt.py --num-layers 4 --hidden-size 1024 --num-attention-heads 16 \\\n"
             "  --seq-length 2048 --vocab-size 32000 --micro-batch-size 1 \\\n"
             "  --multi-latent-attention\n");
  const auto r = run_dtsim(
      "import-megatron '" + args + "' --device h100_sxm --nodes 1 --gpus-per-node 8 --out '" + dir + "/x.yaml'",
      "megatron-bad");
  CHECK(r.code == 2);
  CHECK(r.err.rfind(args + ":3: error: --multi-latent-attention: multi-latent attention", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(!std::filesystem::exists(dir + "/x.yaml"));
  // A layout the cluster cannot hold: refused by the scenario's own check, naming its key.
  write_text(args,
             "--num-layers 4 --hidden-size 1024 --num-attention-heads 16 --seq-length 2048 --vocab-size 32000 "
             "--micro-batch-size 1 --tensor-model-parallel-size 16\n");
  const auto big = run_dtsim(
      "import-megatron '" + args + "' --device h100_sxm --nodes 1 --gpus-per-node 8 --out '" + dir + "/x.yaml'",
      "megatron-big");
  CHECK(big.code == 2);
  CHECK(big.err.find("strategy.tensor") != std::string::npos);
  CHECK(!std::filesystem::exists(dir + "/x.yaml"));
}

}  // namespace dtsim::test
