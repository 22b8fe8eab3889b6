// framework.preset: the table against the key table, the scenario and docs/engines.md. A preset fills in exactly the
// keys a scenario leaves unset, with the value the same key would take from the user, and never a key given in the
// file or by --set.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/scenario/framework_preset.hpp"
#include "core/scenario/loader.hpp"
#include "core/scenario/schema.hpp"
#include "tests/support/hybrid_job.hpp"
#include "tests/support/run_process.hpp"

using namespace dtsim;
using dtsim::test::hybrid_job;

namespace {

// A hybrid job that leaves every key the presets set unset: `{}` is where a test writes its own.
constexpr const char* kSilent = R"(name: p
model:
  name: transformer
  dtype: bf16
  optimizer: adam
  transformer: {layers: 4, hidden: 256, heads: 4, seq_len: 128, vocab: 1024}
cluster: {nodes: 1, devices_per_node: 4, device: a100_80gb}
strategy: {kind: hybrid, data: 4}
run: {engine: analytical}
)";

JobSpec silent_job(const std::vector<std::string>& overrides, const std::string& extra = "") {
  return load_scenario_text(std::string(kSilent) + extra, "p.yaml", overrides).jobs.front();
}

std::string preset_arg(const PresetTraits& p) { return "framework.preset=" + std::string(p.name); }

}  // namespace

TEST_CASE("the presets' table lists every preset once, in the enum's order, each setting a job key with a source") {
  const auto presets = framework_presets();
  REQUIRE(presets.size() == 7);
  std::set<std::string_view> names;
  for (size_t i = 0; i < presets.size(); ++i) {
    const PresetTraits& p = presets[i];
    CHECK(static_cast<size_t>(p.preset) == i);
    CHECK(&framework_preset(p.preset) == &p);
    CHECK(names.insert(p.name).second);
    CHECK_FALSE(p.framework.empty());
    std::set<std::string_view> keys;
    for (const PresetSetting& s : p.settings) {
      INFO(p.name << ": " << s.key);
      CHECK(keys.insert(s.key).second);
      const ScenarioKey* k = find_scenario_key(std::string(s.key));
      REQUIRE(k != nullptr);
      CHECK(k->scope == KeyScope::Job);
      CHECK(s.source.size() > 20);
      // The value parses as the user's would: the same scenario with the key written by hand.
      CHECK_NOTHROW(silent_job({std::string(s.key) + "=" + std::string(s.value)}));
    }
  }
  CHECK(framework_presets().front().settings.empty());  // none: dtsim's own defaults
}

TEST_CASE("a preset sets what the scenario leaves unset, exactly as the keys written by hand would") {
  for (const PresetTraits& p : framework_presets()) {
    INFO(p.name);
    std::vector<std::string> by_hand;
    for (const PresetSetting& s : p.settings) by_hand.push_back(std::string(s.key) + "=" + std::string(s.value));
    JobSpec preset = silent_job({preset_arg(p)});
    JobSpec hand = silent_job(by_hand);
    hand.framework.preset = p.preset;
    CHECK(preset == hand);
  }
  // Something changes: the presets differ from dtsim's defaults and from one another.
  const JobSpec none = silent_job({});
  const JobSpec fsdp = silent_job({"framework.preset=fsdp"});
  CHECK(fsdp.framework.optimizer_kernels == OptimizerKernels::PerTensor);
  CHECK(none.framework.optimizer_kernels == OptimizerKernels::Fused);
  CHECK(silent_job({"framework.preset=megatron_deepspeed"}).strategy.overlap == false);
  CHECK(silent_job({"framework.preset=megatron_deepspeed"}).model.grad_dtype == Dtype::Fp32);
  CHECK(none.strategy.overlap == true);
}

TEST_CASE("a key the scenario or --set gives wins over its preset, wherever it is written") {
  // In the file, in the preset's own section or another, before the preset or after it.
  for (const char* extra : {"framework: {preset: megatron_deepspeed, optimizer_kernels: foreach}\n",
                            "framework: {optimizer_kernels: foreach, preset: megatron_deepspeed}\n"}) {
    const JobSpec j = silent_job({}, extra);
    CHECK(j.framework.optimizer_kernels == OptimizerKernels::Foreach);
    CHECK(j.strategy.overlap == false);  // the preset's, unset in the file
  }
  const JobSpec in_file = silent_job({"framework.preset=megatron_deepspeed"}, "sync: {policy: bsp}\n");
  CHECK(in_file.model.grad_dtype == Dtype::Fp32);
  // By --set, and a preset given by --set over a file's keys.
  CHECK(silent_job({"framework.preset=megatron_deepspeed", "strategy.allreduce.overlap=true"}).strategy.overlap);
  CHECK(hybrid_job({"framework.preset=megatron_deepspeed"}).jobs.front().model.grad_dtype == Dtype::Bf16);
}

TEST_CASE("an unknown preset is refused with the valid names") {
  CHECK_THROWS_WITH(hybrid_job({"framework.preset=deepspeed"}),
                    Catch::Contains("framework.preset") && Catch::Contains("megatron_core") &&
                        Catch::Contains("pytorch_ddp") && Catch::Contains("torchtitan"));
}

TEST_CASE("docs/engines.md gives every preset's settings as the table holds them") {
  const std::string doc = test::slurp(std::string(DTSIM_SOURCE_DIR) + "/docs/engines.md");
  for (const PresetTraits& p : framework_presets()) {
    const std::string head = "- `" + std::string(p.name) + "`";
    const size_t at = doc.find(head);
    INFO(p.name);
    REQUIRE(at != std::string::npos);
    const size_t end = doc.find("\n- `", at + 1);
    const std::string line = doc.substr(at, end == std::string::npos ? std::string::npos : end - at);
    for (const PresetSetting& s : p.settings) {
      INFO(s.key);
      CHECK(line.find("`" + std::string(s.key) + ": " + std::string(s.value) + "`") != std::string::npos);
    }
  }
}
