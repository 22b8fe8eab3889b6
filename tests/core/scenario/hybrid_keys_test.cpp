// The hybrid keys' refusals: each names the key, what was given and what would be valid.
#include <catch2/catch.hpp>

#include "tests/support/hybrid_job.hpp"
#include "tests/support/scenario_error.hpp"

using dtsim::test::error_of;
using dtsim::test::kHybridJob;

TEST_CASE("a hybrid layout that does not cover the devices or split the model is refused at its key", "[hybrid]") {
  // 8 devices; the model: 8 layers, 8 heads, hidden 512 (ffn 2048), 256 tokens.
  CHECK(
      error_of(kHybridJob, {"strategy.tensor=2", "strategy.data=2"})
          .find(
              "strategy.data: tensor 2 x context 1 x pipeline 1 x data 2 = 4 ranks, but the job has 8 devices (valid: "
              "data 4, or 0 to derive it)") != std::string::npos);
  CHECK(error_of(kHybridJob, {"strategy.tensor=3"})
            .find("strategy.tensor: tensor 3 x context 1 x pipeline 1 = 3 "
                  "does not divide the job's 8 devices") != std::string::npos);
  CHECK(error_of(kHybridJob, {"cluster.devices_per_node=8", "strategy.tensor=16"})
            .find("strategy.tensor: 16 does not divide the model's 8 attention heads") != std::string::npos);
  CHECK(
      error_of(kHybridJob, {"cluster.nodes=3", "cluster.devices_per_node=1", "strategy.pipeline=3"})
          .find("strategy.pipeline: the model's 8 layers do not split evenly over 3 stages (valid: a divisor of 8)") !=
      std::string::npos);
  CHECK(error_of(kHybridJob, {"strategy.pipeline.stages=2", "strategy.pipeline.virtual_stages=2"})
            .find("strategy.pipeline.virtual_stages: 2 model chunks per rank need strategy.pipeline.schedule: "
                  "interleaved") != std::string::npos);
  CHECK(error_of(kHybridJob, {"strategy.pipeline=2", "strategy.pipeline.schedule=interleaved",
                              "strategy.pipeline.virtual_stages=2", "strategy.global_batch=12"})
            .find("strategy.global_batch: the interleaved schedule needs micro-batches per iteration (3) to be a "
                  "multiple of the pipeline stages (2)") != std::string::npos);
  CHECK(error_of(kHybridJob, {"strategy.pipeline.schedule=interleaved", "strategy.pipeline.virtual_stages=2"})
            .find("strategy.pipeline.virtual_stages: 2 model chunks per rank interleave over pipeline stages, and "
                  "there is 1") != std::string::npos);
  CHECK(error_of(kHybridJob, {"strategy.global_batch=10"})
            .find("strategy.global_batch: 10 sequences do not split into micro-batches of 1 over 8 data-parallel "
                  "ranks (valid: a multiple of 8)") != std::string::npos);
  CHECK(error_of(kHybridJob, {"strategy.expert=2"}).find("strategy.expert: expert parallelism needs an MoE model") !=
        std::string::npos);
  CHECK(error_of(kHybridJob, {"strategy.rank_order=tp-dp-pp"}).find("rank order 'tp-dp-pp' misses some") !=
        std::string::npos);
  CHECK(error_of(kHybridJob, {"strategy.zero=4"}).find("ZeRO stage 4 does not exist (valid: 0, 1, 2, 3)") !=
        std::string::npos);
}

TEST_CASE("hybrid keys on another strategy, and a model without a shape, are refused", "[hybrid]") {
  CHECK(error_of(kHybridJob, {"strategy.kind=allreduce", "strategy.tensor=2"})
            .find("strategy.tensor: is read by hybrid jobs only (set strategy.kind: hybrid)") != std::string::npos);
  const std::string resnet =
      "name: r\nmodel: {name: resnet50}\ncluster: {nodes: 2, device: a100_80gb}\nstrategy: {kind: hybrid}\n";
  CHECK(error_of(resnet).find("'resnet50': a hybrid job splits a transformer given by its shape") != std::string::npos);
  // strategy.pipeline is a key and a section: `pipeline: 2` or `pipeline: {stages: 2, schedule: 1f1b}`.
  std::string both = kHybridJob;
  both.replace(both.find("  kind: hybrid\n"), 14, "  kind: hybrid\n  pipeline: {stages: 2, schedule: 1f1b}\n");
  CHECK(error_of(both) == "no error");
}
