// Megatron-LM's arguments as a scenario (core/scenario/megatron_args.hpp): each derived value against Megatron-LM's
// own rule worked by hand, the launch it reads loading as a scenario, and what it cannot express refused in a line.
#include <algorithm>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "core/base/error.hpp"
#include "core/scenario/loader.hpp"
#include "core/scenario/megatron_args.hpp"
#include "core/scenario/megatron_scenario.hpp"
#include "core/scenario/schema.hpp"
#include "models/zoo/transformer.hpp"

namespace {

using dtsim::MegatronImport;

std::map<std::string, std::string> keys_of(const MegatronImport& in) { return {in.keys.begin(), in.keys.end()}; }

MegatronImport parse(const std::string& args) { return dtsim::parse_megatron_args(args, "args.sh"); }

const std::string kGpt =
    "--num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 --max-position-embeddings 2048 "
    "--tokenizer-type GPT2BPETokenizer --micro-batch-size 1 --global-batch-size 1536 --fp16 ";

}  // namespace

TEST_CASE("Megatron-LM's Llama 3 8B launch becomes the scenario it describes") {
  const std::string path = std::string(DTSIM_SOURCE_DIR) + "/tests/core/scenario/data/megatron_llama3_8b.sh";
  const MegatronImport in = dtsim::load_megatron_args(path);
  auto k = keys_of(in);
  CHECK(k["model.transformer.layers"] == "32");
  CHECK(k["model.transformer.hidden"] == "4096");
  CHECK(k["model.transformer.kv_heads"] == "8");  // --group-query-attention --num-query-groups 8
  CHECK(k["model.transformer.ffn"] == "14336");
  CHECK(k["model.transformer.vocab"] == "128256");  // already a multiple of 128 x TP 1
  CHECK(k["model.transformer.rms_norm"] == "true");
  CHECK(k["model.transformer.gated_mlp"] == "true");
  CHECK(k["model.transformer.rotary"] == "true");
  CHECK(k["model.transformer.bias"] == "false");
  CHECK(k["model.transformer.tied_embeddings"] == "false");
  CHECK(k["framework.attention_backend"] == "cudnn");  // --attention-backend fused
  CHECK(k["model.grad_dtype"] == "bf16");              // --grad-reduce-in-bf16
  CHECK(k["model.fp8"] == "delayed");                  // --fp8-format hybrid, the recipe left at its default
  CHECK(k["framework.fp8_param_gather"] == "true");    // "--fp8-param-gather", quoted as a bash array writes it
  CHECK(k["strategy.sequence_parallel"] == "false");   // given, but Megatron-LM turns it off at TP 1
  CHECK(k["strategy.zero"] == "1");
  CHECK(k["strategy.allreduce.overlap"] == "true");
  CHECK(in.nodes == 1);
  CHECK(in.gpus_per_node == 8);
  // Each argument that changes nothing in dtsim is named, none that it reads.
  CHECK(std::find(in.not_read.begin(), in.not_read.end(), "--lr") != in.not_read.end());
  CHECK(std::find(in.not_read.begin(), in.not_read.end(), "--fp8-amax-history-len") != in.not_read.end());
  CHECK(std::find(in.not_read.begin(), in.not_read.end(), "--num-layers") == in.not_read.end());
  // The scenario loads, and its model is Llama 3 8B: 8,030,261,248 parameters (Meta's model card: 8.03 B).
  const std::string text = dtsim::megatron_scenario_text(in, {"dgx_h100", "", 0, 0}, "llama3_8b", path);
  const dtsim::Scenario s = dtsim::load_scenario_text(text, "imported.yaml");
  CHECK(s.cluster.nodes == 1);
  CHECK(s.cluster.devices_per_node == 8);
  CHECK(s.cluster.device.name == "h100_sxm");
  const dtsim::Workload w = dtsim::make_transformer(s.jobs.front().model.transformer, "llama3_8b");
  CHECK(w.total_params() == Approx(8030261248.0).epsilon(1e-4));
  // A name YAML would misread unquoted is written so that it reads back as itself.
  CHECK(
      dtsim::load_scenario_text(dtsim::megatron_scenario_text(in, {"dgx_h100", "", 0, 0}, "run: 8b #2", path), "q.yaml")
          .name == "run: 8b #2");
}

TEST_CASE("Megatron-LM's derived values: the padded vocabulary, SwiGLU's width, fp32 gradients under bf16") {
  // GPT-2's 50,257 tokens padded to a multiple of 128 x TP (tokenizer.py): 51,200 at TP 8, 50,304 at TP 1.
  CHECK(keys_of(parse(kGpt + "--tensor-model-parallel-size 8"))["model.transformer.vocab"] == "51200");
  CHECK(keys_of(parse(kGpt))["model.transformer.vocab"] == "50304");
  CHECK(keys_of(parse(kGpt + "--make-vocab-size-divisible-by 1"))["model.transformer.vocab"] == "50257");
  // GeLU's 4 h, and SwiGLU's int(8h/3 / 64) x 64 when --ffn-hidden-size is left out: 10,880 at h = 4,096.
  CHECK(keys_of(parse(kGpt))["model.transformer.ffn"] == "49152");
  const std::string small =
      "--num-layers 2 --hidden-size 4096 --num-attention-heads 32 --seq-length 128 "
      "--vocab-size 1000 --micro-batch-size 1 ";
  CHECK(keys_of(parse(small + "--swiglu"))["model.transformer.ffn"] == "10880");
  // Without --group-query-attention the query groups are not read: every head has its own keys and values.
  CHECK(keys_of(parse(small + "--num-query-groups 8")).count("model.transformer.kv_heads") == 0);
  // Gradients: fp32 under --bf16 (arguments.py L330-338), fp16 under --fp16 unless accumulated in fp32.
  CHECK(keys_of(parse(small + "--bf16"))["model.grad_dtype"] == "fp32");
  CHECK(keys_of(parse(small + "--fp16"))["model.grad_dtype"] == "fp16");
  CHECK(keys_of(parse(small + "--fp16 --accumulate-allreduce-grads-in-fp32"))["model.grad_dtype"] == "fp32");
  CHECK(keys_of(parse(small + "--bf16 --fp8-format e4m3 --fp8-recipe tensorwise"))["model.fp8"] == "current");
  // Learned positions keep their table; rope has none.
  CHECK(keys_of(parse(kGpt))["model.transformer.positions"] == "2048");
  CHECK(keys_of(parse(small + "--use-rotary-position-embeddings"))["model.transformer.rotary"] == "true");
}

TEST_CASE("Megatron-LM's pipeline chunks and recompute as dtsim's interleaved schedule and recompute_every") {
  // 96 layers over 16 stages of chunks of 2: 3 chunks a stage (Narayanan et al. 2021's GPT-3 layout).
  auto k = keys_of(parse(kGpt + "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 "
                                "--num-layers-per-virtual-pipeline-stage 2"));
  CHECK(k["strategy.pipeline.schedule"] == "interleaved");
  CHECK(k["strategy.pipeline.virtual_stages"] == "3");
  // Full recompute, uniform: every layer; block: the first n of each stage's chunk of 96 / 4 = 24.
  const std::string pp4 = kGpt + "--pipeline-model-parallel-size 4 --recompute-granularity full ";
  k = keys_of(parse(pp4 + "--recompute-method uniform --recompute-num-layers 1"));
  CHECK(k["strategy.recompute"] == "full");
  CHECK(k.count("strategy.recompute_every") == 0);
  CHECK(keys_of(parse(pp4 + "--recompute-method block --recompute-num-layers 6"))["strategy.recompute_every"] == "4");
  CHECK(keys_of(parse(pp4 + "--recompute-method block --recompute-num-layers 24")).count("strategy.recompute_every") ==
        0);
  CHECK(keys_of(parse(kGpt + "--recompute-activations"))["strategy.recompute"] == "selective");
  CHECK_THROWS_WITH(parse(pp4 + "--recompute-method block --recompute-num-layers 5"),
                    Catch::Contains("--recompute-num-layers: 5 of each chunk's 24 layers"));
}

TEST_CASE("Megatron-LM's sliding window: a query and the left keys before it, one block in N left full") {
  // --window-size (left, right): 4,095 keys before a query and itself make a window of 4,096 (Mistral's);
  // --window-attn-skip-freq 4: three windowed blocks to one full one.
  auto k = keys_of(parse(kGpt + "--window-size 4095,0 --window-attn-skip-freq 4"));
  CHECK(k["model.transformer.window"] == "4096");
  CHECK(k["model.transformer.window_layers"] == "0.75");
  CHECK(keys_of(parse(kGpt + "--window-size '(127, 0)'"))["model.transformer.window"] == "128");
  CHECK(keys_of(parse(kGpt + "--window-size -1,-1")).count("model.transformer.window") == 0);  // unbounded
  CHECK_THROWS_WITH(parse(kGpt + "--window-size 4096"), Catch::Contains("--window-size: '4096' is not (left, right)"));
  CHECK_THROWS_WITH(parse(kGpt + "--window-size 127,0 --window-attn-skip-freq '[1,1,0]'"),
                    Catch::Contains("--window-attn-skip-freq: '[1,1,0]' is not a number"));
}

TEST_CASE("what Megatron-LM runs but dtsim cannot express is refused in one line naming the argument") {
  const std::string small =
      "--num-layers 2 --hidden-size 4096 --num-attention-heads 32 --seq-length 128 "
      "--vocab-size 1000 --micro-batch-size 1";
  const auto refused = [&](const std::string& extra, const std::string& what) {
    INFO(extra);
    CHECK_THROWS_WITH(parse(small + "\n" + extra), Catch::Contains(what));
  };
  refused("--multi-latent-attention", "args.sh:2: error: --multi-latent-attention: multi-latent attention");
  refused("--kv-channels 64", "--kv-channels: 64 is not hidden / heads (4096 / 32)");
  refused("--moe-layer-freq 2", "--moe-layer-freq: MoE layers among dense ones");
  refused("--decoder-first-pipeline-num-layers 1", "uneven pipeline stages");
  refused("--bf16 --fp8-format hybrid --fp8-recipe mxfp8", "--fp8-recipe: 'mxfp8': block-scaled fp8");
  refused("--recompute-granularity full", "--recompute-method: full recompute needs --recompute-method");
  refused("--normalization LayerNorm1p", "--normalization: 'LayerNorm1p' is not LayerNorm or RMSNorm");
  refused("--num-layers-per-virtual-pipeline-stage 3", "--num-layers-per-virtual-pipeline-stage: 2 layers");
  refused("--nnodes 2:4", "--nnodes: '2:4': an elastic range");
  refused("--hidden-size $HIDDEN", "--hidden-size: '$HIDDEN' is not a number");
  CHECK_THROWS_WITH(parse("--num-layers 2 --hidden-size 64 --num-attention-heads 8 --seq-length 8 "
                          "--micro-batch-size 1 --tokenizer-type HuggingFaceTokenizer"),
                    Catch::Contains("--vocab-size: missing: the vocabulary comes from the tokenizer"));
  CHECK_THROWS_WITH(parse("--hidden-size 64"), Catch::Contains("--num-layers: missing"));
  // The cluster: a preset or a device, and the nodes.
  const MegatronImport in = parse(small);
  CHECK_THROWS_WITH(dtsim::megatron_scenario_text(in, {"", "", 2, 8}, "x", "args.sh"),
                    Catch::Contains("--preset NAME"));
  CHECK_THROWS_WITH(dtsim::megatron_scenario_text(in, {"", "h100_sxm", 0, 8}, "x", "args.sh"),
                    Catch::Contains("give --nodes N"));
}

TEST_CASE("the argument table: Megatron-LM's spelling, and every key it names is a scenario key") {
  for (const auto& [name, sets] : dtsim::megatron_arguments()) {
    INFO(name);
    CHECK(name.rfind("--", 0) == 0);
    CHECK(name.find(' ') == std::string_view::npos);
    // The key the table says it sets is one dtsim reads ("(...)": it sets none, and says why).
    if (sets.front() != '(') CHECK(dtsim::find_scenario_key(std::string(sets)) != nullptr);
  }
  // Each key a launch sets is one dtsim reads.
  const MegatronImport in = parse(kGpt +
                                  "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 "
                                  "--num-layers-per-virtual-pipeline-stage 2 --num-experts 8 "
                                  "--expert-model-parallel-size 8 --tp-comm-overlap --sequence-parallel "
                                  "--use-distributed-optimizer --recompute-activations");
  for (const auto& [key, value] : in.keys) {
    INFO(key);
    CHECK(dtsim::find_scenario_key(key) != nullptr);
  }
}
