// The optimizer step's cost (core/plan/optimizer_step.hpp): against apex's fused kernels, torch.optim's op-by-op
// update, and the kernel launches MultiTensorApply.cuh chunks it into; the parameter tensors it counts.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/base/error.hpp"
#include "core/plan/optimizer_step.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/tiny_job.hpp"

using namespace dtsim;

TEST_CASE("an optimizer step moves what apex's fused kernel moves") {
  struct Case {
    Optimizer o;
    double states;
    double bytes_per_param;  // 4 bytes x (reads + writes)
  };
  const Case cases[] = {
      {Optimizer::Sgd, 0, 4.0 * (2 + 1)},       // read w, g; write w
      {Optimizer::Momentum, 1, 4.0 * (3 + 2)},  // read g, w, v; write w, v
      {Optimizer::Adam, 2, 4.0 * (4 + 3)},      // read g, w, m, v; write w, m, v
      {Optimizer::Lamb, 2, 4.0 * (8 + 4)},      // stage 1, two norms, stage 2 (multi_tensor_lamb.cu)
  };
  for (const Case& c : cases) {
    const UpdateOp u = make_update(1e6, c.o);
    CHECK(optimizer_state_copies(c.o) == c.states);
    CHECK(u.mem_bytes == Approx(1e6 * c.bytes_per_param));
    CHECK(u.params == 1e6);
  }
  // More work never costs less: LAMB's step above Adam's above momentum's above SGD's.
  CHECK(make_update(1, Optimizer::Lamb).flops > make_update(1, Optimizer::Adam).flops);
  const Scenario s = load_scenario_text(test::kTinyJob, "t.yaml", {"model.optimizer=lamb"});
  CHECK(s.jobs.front().model.optimizer == Optimizer::Lamb);
}

TEST_CASE("torch.optim's op-by-op update reads and writes whole tensors once per op") {
  // Weight decay on, as torch/optim/_functional.py (PyTorch 1.11) writes it:
  //   sgd 3 + 3; momentum 3 + 2 + 3 + 3; adam 3 + (2 + 3) + (2 + 3) + (2 + 2 + 2) + 4.
  struct Case {
    Optimizer o;
    double accesses;
    double ops;
  };
  const Case cases[] = {{Optimizer::Sgd, 6, 2}, {Optimizer::Momentum, 11, 4}, {Optimizer::Adam, 23, 9}};
  const double params = 1e6;
  const double tensors = 200;
  for (const Case& c : cases) {
    for (OptimizerKernels k : {OptimizerKernels::Foreach, OptimizerKernels::PerTensor}) {
      const UpdateOp u = make_update(params, c.o, k, tensors);
      CHECK(u.mem_bytes == Approx(params * 4 * c.accesses));
      CHECK(u.flops == make_update(params, c.o).flops);  // the same arithmetic, more passes
    }
    // The for-loop: every op once per tensor.
    CHECK(make_update(params, c.o, OptimizerKernels::PerTensor, tensors).launches == c.ops * tensors);
  }
}

TEST_CASE("multi-tensor kernels launch once per chunk of tensors and of elements") {
  // MultiTensorApply.cuh: at most {110, 64, 48, 36, 30} tensors for 1..5 tensor lists, and 320 blocks of 65,536
  // elements, per launch. Fused Adam touches 4 lists: 200 tensors take ceil(200 / 36) = 6 launches.
  CHECK(make_update(1e6, Optimizer::Adam, OptimizerKernels::Fused, 200).launches == 6);
  // 1e9 parameters in 10 tensors: the blocks bound it, ceil(1e9 / (320 x 65536)) = 48.
  CHECK(make_update(1e9, Optimizer::Adam, OptimizerKernels::Fused, 10).launches == 48);
  // foreach Adam's 9 ops touch 3, 1, 2, 1, 3, 2, 2, 1 and 3 lists: 200 tensors in
  // 5 + 2 + 4 + 2 + 5 + 4 + 4 + 2 + 5 launches.
  CHECK(make_update(1e6, Optimizer::Adam, OptimizerKernels::Foreach, 200).launches == 33);
  double by_hand = 0;
  for (double most : {48.0, 110.0, 64.0, 110.0, 48.0, 64.0, 64.0, 110.0, 48.0}) by_hand += std::ceil(200 / most);
  CHECK(by_hand == 33);
  // One tiny tensor still takes a launch per kernel.
  CHECK(make_update(10, Optimizer::Sgd, OptimizerKernels::Fused, 1).launches == 1);
}

TEST_CASE("a job's parameter tensors, counted from its model") {
  // torchvision's ResNet-50: 53 convolutions without bias, 53 batch norms (weight, bias), the fc layer (weight,
  // bias): len(list(resnet50().parameters())) is 161.
  const Scenario resnet = load_scenario_text(test::kTinyJob, "t.yaml", {"model.name=resnet50"});
  CHECK(parameter_tensors(resnet.jobs.front()) == 161);
  // BERT-Large's shape as dtsim runs it: per block a fused QKV and the projection (weights and biases), two
  // LayerNorms (weights and biases) and two MLP GEMMs: 12; the word, position and token-type embeddings and the
  // embedding LayerNorm: 5; the pooler: 2; the MLM head tied to the word embedding: 0.
  const Scenario bert = load_scenario_text(test::kTinyJob, "t.yaml", {"model.name=bert_large"});
  REQUIRE(bert.jobs.front().model.is_transformer);
  CHECK(parameter_tensors(bert.jobs.front()) == 24 * 12 + 5 + 2);
  // A Llama shape: RMSNorm weights only, no biases, SwiGLU's three matrices: 2 + 1 + 3 + 1 = 7 a block.
  const Scenario llama = load_scenario_text(test::kTinyJob, "t.yaml", {"model.name=llama3_8b"});
  const TransformerSpec& t = llama.jobs.front().model.transformer;
  REQUIRE((t.rms_norm && !t.bias && t.gated_mlp && t.rotary && !t.tied_embeddings));
  CHECK(parameter_tensors(llama.jobs.front()) == 32 * 7 + 1 + 1 + 1);  // blocks, tokens, final norm, head
  // A server's shard updates its share of them.
  const JobSpec& job = resnet.jobs.front();
  const UpdateOp half = make_update(job, job.workload.total_params() / 2);
  CHECK(half.launches ==
        make_update(job.workload.total_params() / 2, job.model.optimizer, OptimizerKernels::Fused, 161.0 / 2).launches);
}

TEST_CASE("lamb is refused with unfused optimizer kernels, at the key") {
  const std::string text = std::string(test::kTinyJob) + "framework: {optimizer_kernels: per_tensor}\n";
  try {
    (void)load_scenario_text(text, "t.yaml", {"model.optimizer=lamb"});
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "t.yaml:8:32: error: framework.optimizer_kernels: model.optimizer lamb runs as one fused kernel only "
          "(torch.optim has no LAMB; apex's FusedLAMB is fused): valid: fused, or another model.optimizer");
  }
  CHECK_NOTHROW(load_scenario_text(text, "t.yaml", {"model.optimizer=adam"}));
}
