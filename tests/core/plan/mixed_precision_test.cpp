// framework.mixed_precision autocast against the traffic it adds, counted by hand: in a 16-bit dtype every GEMM casts
// its fp32 weights W (4 + B bytes a parameter) and its fp32 input (qkv, fc1: T h elements each), unfused attention
// casts its scores up and its probabilities down (n = T s a elements each), and the norms, the residual adds, the
// softmax and its dropout move 4 bytes an element where they moved B. Forward, a block gains the casts C and the
// fp32 passes F; backward, the casts once (the gradient cast back) plus .grad's fp32 sums (12 W (m - 1) / m) and
// twice F. FLOPs and collectives do not change, nothing changes in fp32, and the optimizer keeps no master copy.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "core/base/dtype.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "models/parallel/memory.hpp"
#include "models/parallel/transformer_ops.hpp"
#include "tests/support/hybrid_job.hpp"
#include "tests/support/kernel_totals.hpp"

using namespace dtsim;
using dtsim::test::hybrid_job;
using Totals = dtsim::test::KernelTotals;
constexpr auto totals = dtsim::test::kernel_totals;

namespace {

TransformerSpec gpt_block() {
  TransformerSpec m;
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 16;
  m.seq_len = 512;
  m.vocab = 32000;
  m.flash_attention = false;
  return m;
}

ShardShape shape(bool autocast, int micro_batches, double dtype_bytes = 2, int tensor = 1) {
  ShardShape sh{tensor, 1, 1, false, 4, dtype_bytes};
  sh.autocast = autocast;
  sh.micro_batches = micro_batches;
  return sh;
}

}  // namespace

TEST_CASE("autocast adds a block's casts once and its fp32 passes, forward and backward, and nothing else",
          "[mixed_precision]") {
  const TransformerSpec m = gpt_block();
  const int mb = 4;  // micro-batches per step
  const double B = 2, h = 1024, T = 4.0 * 512, n = T * 512 * 16;
  // The block's GEMM weights and biases: its parameters but the two LayerNorms' (2 h each).
  const double W = block_params(m, shape(false, mb)).dense - 4 * h;
  CHECK(W == Approx(12 * h * h + 9 * h));  // qkv 3h^2 + 3h, proj h^2 + h, fc1 4h^2 + 4h, fc2 4h^2 + h
  const double C = W * (4 + B) + 2 * T * h * (4 + B) + 2 * n * (4 + B);
  const double F_norms = 4 * T * h * (4 - B);  // two norms, x read and y written, each 4 - B bytes more
  const double F = F_norms + 4 * T * h * (4 - B) + 4 * n * (4 - B);

  const Totals pure_fwd = totals(block_forward(m, shape(false, mb)));
  const Totals amp_fwd = totals(block_forward(m, shape(true, mb)));
  CHECK(amp_fwd.bytes - pure_fwd.bytes == Approx(C + F));
  CHECK(amp_fwd.flops == Approx(pure_fwd.flops));

  const Totals pure_bwd = totals(block_backward(m, shape(false, mb)));
  const Totals amp_bwd = totals(block_backward(m, shape(true, mb)));
  // Backward, the norms make five passes (two kernels), the rest of the fp32 passes twice the forward's.
  CHECK(amp_bwd.bytes - pure_bwd.bytes == Approx(C + 12 * W * (mb - 1.0) / mb + 2 * (F - F_norms) + 2.5 * F_norms));
  CHECK(amp_bwd.flops == Approx(pure_bwd.flops));

  // One micro-batch a step: .grad is the first cast's result, nothing is summed.
  const Totals one_bwd = totals(block_backward(m, shape(true, 1)));
  CHECK(one_bwd.bytes - pure_bwd.bytes == Approx(C + 2 * (F - F_norms) + 2.5 * F_norms));

  // Flash attention keeps its scores inside the kernel: no score casts, no fp32 softmax.
  TransformerSpec flash = m;
  flash.flash_attention = true;
  const double flash_diff =
      totals(block_forward(flash, shape(true, mb))).bytes - totals(block_forward(flash, shape(false, mb))).bytes;
  CHECK(flash_diff == Approx(W * (4 + B) + 2 * T * h * (4 + B) + 8 * T * h * (4 - B)));
}

TEST_CASE("autocast leaves collectives alone, and fp32 jobs and the pure default exactly as they were",
          "[mixed_precision]") {
  const TransformerSpec m = gpt_block();
  for (auto steps :
       {&block_forward, &block_backward, &embedding_forward, &embedding_backward, &head_forward, &head_backward}) {
    const Totals pure = totals(steps(m, shape(false, 4, 2, 4)));
    const Totals amp = totals(steps(m, shape(true, 4, 2, 4)));
    CHECK(amp.collectives == pure.collectives);
    CHECK(amp.collective_bytes == pure.collective_bytes);
    // fp32: autocast does nothing (its ops are not cast).
    const std::vector<KernelStep> fp32 = steps(m, shape(false, 4, 4));
    const std::vector<KernelStep> fp32_amp = steps(m, shape(true, 4, 4));
    REQUIRE(fp32.size() == fp32_amp.size());
    for (size_t i = 0; i < fp32.size(); ++i) {
      CHECK(fp32[i].name == fp32_amp[i].name);
      CHECK(fp32[i].mem_bytes == fp32_amp[i].mem_bytes);
    }
  }
}

TEST_CASE("autocast's output layer: the fp32 input and weights cast, PyTorch's loss on the logits cast up",
          "[mixed_precision]") {
  const TransformerSpec m = gpt_block();
  const double B = 2, h = 1024, T = 4.0 * 512, V = 32000;
  const double cast = T * h * (4 + B) + V * h * (4 + B);
  const double norm = 2 * T * h * (4 - B);  // the final norm in fp32
  // A fused loss kernel (MPT's) reads the 16-bit logits as a pure model's does.
  CHECK(totals(head_forward(m, shape(true, 4))).bytes - totals(head_forward(m, shape(false, 4))).bytes ==
        Approx(cast + norm));
  // Backward: the casts once (the weight gradient also summed into .grad, 3 of 4 micro-batches), the norm's five
  // passes.
  CHECK(totals(head_backward(m, shape(true, 4))).bytes - totals(head_backward(m, shape(false, 4))).bytes ==
        Approx(cast + 12 * V * h * 0.75 + 2.5 * norm));
  // PyTorch's cross_entropy (framework.pointwise_kernels eager; autocast runs it in fp32): the logits cast up (4 + B a
  // logit), log_softmax on fp32 (16 against the fused 4 + B: a vocabulary's row read three times and written once);
  // backward the cast back and nll_loss's and log_softmax's gradients (20 against 4 + B;
  // models/parallel/pointwise.hpp).
  ShardShape eager = shape(true, 4);
  eager.pointwise = PointwiseKernels::Eager;
  CHECK(totals(head_forward(m, eager)).bytes - totals(head_forward(m, shape(true, 4))).bytes ==
        Approx(T * V * (4 + B) + T * V * (16 - (4 + B))));
  CHECK(totals(head_backward(m, eager)).bytes - totals(head_backward(m, shape(true, 4))).bytes ==
        Approx(T * V * (4 + B) + T * V * (20 - (4 + B))));
}

TEST_CASE("autocast keeps fp32 weights and their 16-bit copies, and no master copy in the optimizer",
          "[mixed_precision]") {
  MemoryInputs in;
  in.model = gpt_block();
  in.layout.data = 1;
  in.layout.global_batch = 4;
  in.dtype = Dtype::Bf16;
  in.grad_dtype = Dtype::Fp32;
  in.optimizer_states = 2;
  const StageMemory pure = stage_memory(in).front();
  in.autocast = true;
  const StageMemory amp = stage_memory(in).front();
  const double params = pure.bytes.parameters / 2;
  CHECK(amp.bytes.parameters == Approx(params * (4 + 2)));
  CHECK(amp.bytes.gradients == Approx(pure.bytes.gradients));
  CHECK(pure.bytes.optimizer == Approx(params * (4 + 8)));
  CHECK(amp.bytes.optimizer == Approx(params * 8));
}

TEST_CASE("autocast in a plan: the optimizer steps the fp32 parameters (no master copy), CNN weights are cast",
          "[mixed_precision]") {
  const auto step_bytes = [](const std::vector<std::string>& sets) {
    const Plan p = compile_plan(hybrid_job(sets));
    for (const Op& op : p.ranks.front().ops) {
      if (const auto* u = std::get_if<UpdateOp>(&op.body)) return std::make_pair(u->params, u->mem_bytes);
    }
    FAIL("no optimizer step");
    return std::make_pair(0.0, 0.0);
  };
  const auto [params, pure] = step_bytes({"model.grad_dtype=fp32"});
  const auto [same, amp] = step_bytes({"model.grad_dtype=fp32", "framework.mixed_precision=autocast"});
  CHECK(same == params);
  // Pure: the master weights copied to bf16 (4 + 2) and the fp32 gradient buffer zeroed (4), one rank owning all.
  CHECK(pure - amp == Approx(params * (4 + 2 + 4)));

  constexpr const char* kResnet = R"(name: rn50
model: {name: resnet50, batch_per_worker: 64, dtype: fp16}
cluster: {nodes: 1, devices_per_node: 1, device: a100_80gb}
)";
  for (const char* dtype : {"fp16", "fp32"}) {
    INFO(dtype);
    const std::string set = std::string("model.dtype=") + dtype;
    const Scenario pure_cnn = load_scenario_text(kResnet, "rn50.yaml", {set});
    const Scenario amp_cnn = load_scenario_text(kResnet, "rn50.yaml", {set, "framework.mixed_precision=autocast"});
    const Plan a = compile_plan(pure_cnn), b = compile_plan(amp_cnn);
    const RankProgram& ra = a.ranks.at(a.jobs.at(0).workers.at(0));
    const RankProgram& rb = b.ranks.at(b.jobs.at(0).workers.at(0));
    std::map<std::string, double> casts;
    for (const Op& op : rb.ops) {
      if (op.label.ends_with(" weight cast")) casts[op.label] = std::get<ComputeOp>(op.body).mem_bytes;
    }
    const Workload& w = amp_cnn.jobs.front().workload;
    int cast_layers = 0;
    for (const Layer& layer : w.layers) {
      const bool cast = layer.params > 0 && (layer.cls == KernelClass::Conv || layer.cls == KernelClass::Gemm);
      for (const char* pass : {"fwd", "bwd"}) {
        const auto it = casts.find(std::string(pass) + " " + layer.name + " weight cast");
        if (std::string(dtype) == "fp32" || !cast) {
          CHECK(it == casts.end());
          continue;
        }
        REQUIRE(it != casts.end());
        CHECK(it->second == Approx(layer.params * (4 + 2)));
      }
      cast_layers += cast;
    }
    CHECK(rb.ops.size() == ra.ops.size() + (std::string(dtype) == "fp32" ? 0 : 2 * cast_layers));
  }
}

TEST_CASE("framework.mixed_precision takes pure or autocast, and says so otherwise", "[mixed_precision]") {
  CHECK_THROWS_WITH(hybrid_job({"framework.mixed_precision=amp"}), Catch::Contains("framework.mixed_precision") &&
                                                                       Catch::Contains("pure") &&
                                                                       Catch::Contains("autocast"));
}
