// model.fp8 against what Transformer Engine runs, counted by hand (models/parallel/transformer_ops.hpp, FP8): the four
// linear layers' GEMMs of a block (qkv, proj, fc1, fc2) read 1-byte operands and write B-byte results at the fp8 peak,
// with their FLOPs unchanged; each gains one cast kernel, forward its input (T x K) and 1/m of its weights W, each read
// once (B bytes) and written twice (fp8 and its transpose, 1 byte each), backward its output gradient (T x N) so;
// current scaling reads every cast tensor once more. Attention, the norms, the output layer and every collective are
// untouched. The fp8 GEMM rate is checked against the measurement the zoo's figure comes from.
#include <catch2/catch.hpp>

#include <string>

#include "core/base/dtype.hpp"
#include "core/scenario/loader.hpp"
#include "models/parallel/transformer_ops.hpp"
#include "models/zoo/device.hpp"
#include "models/zoo/kernel.hpp"
#include "tests/support/hybrid_job.hpp"
#include "tests/support/kernel_totals.hpp"

using namespace dtsim;
using dtsim::test::hybrid_job;
constexpr auto totals = dtsim::test::kernel_totals;

namespace {

TransformerSpec gpt_block() {
  TransformerSpec m;
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 16;
  m.seq_len = 512;
  m.vocab = 32000;
  m.flash_attention = true;
  return m;
}

ShardShape shape(Fp8Scaling fp8, int micro_batches, bool autocast = false) {
  ShardShape sh{1, 1, 1, false, 4, 2};
  sh.fp8 = fp8;
  sh.micro_batches = micro_batches;
  sh.autocast = autocast;
  return sh;
}

double bytes_named(const std::vector<KernelStep>& steps, const std::string& suffix) {
  double sum = 0;
  for (const KernelStep& k : steps) {
    if (!k.collective && k.name.ends_with(suffix)) sum += k.mem_bytes;
  }
  return sum;
}

}  // namespace

TEST_CASE("fp8 runs a block's four linear GEMMs on 1-byte operands and adds one cast each, forward and backward",
          "[fp8]") {
  const TransformerSpec m = gpt_block();
  const int mb = 4;
  const double B = 2, h = 1024, T = 4.0 * 512, f = 4 * h;
  // The GEMMs (T x K by K x N): qkv K = h, N = 3h; proj h, h; fc1 h, 4h; fc2 4h, h.
  const double inputs = T * (h + h + h + f);       // T x K summed
  const double outputs = T * (3 * h + h + f + h);  // T x N summed
  const double weights_kn = 3 * h * h + h * h + 2 * h * f;
  const double W = weights_kn + 3 * h + h + f + h;  // with the biases the casts carry
  const double operand_saving = (inputs + weights_kn) * (B - 1);

  const auto bf16_fwd = block_forward(m, shape(Fp8Scaling::None, mb));
  const auto fp8_fwd = block_forward(m, shape(Fp8Scaling::Delayed, mb));
  int fp8_gemms = 0;
  for (const KernelStep& k : fp8_fwd) {
    if (k.dtype == Dtype::Fp8) {
      ++fp8_gemms;
      CHECK(k.cls == KernelClass::Gemm);
      CHECK((k.name == "qkv" || k.name == "proj" || k.name == "fc1" || k.name == "fc2"));
    }
    if (k.cls == KernelClass::Attention) CHECK_FALSE(k.dtype.has_value());
  }
  CHECK(fp8_gemms == 4);
  for (const KernelStep& k : fp8_fwd) CHECK_FALSE(k.gemm.split_accumulate);  // forward: fast accumulation
  const double casts = inputs * (B + 2) + W / mb * (B + 2);
  CHECK(bytes_named(fp8_fwd, " fp8 cast") == Approx(casts));
  CHECK(totals(fp8_fwd).bytes - totals(bf16_fwd).bytes == Approx(casts - operand_saving));
  CHECK(totals(fp8_fwd).flops == Approx(totals(bf16_fwd).flops));
  CHECK(totals(fp8_fwd).collective_bytes == totals(bf16_fwd).collective_bytes);
  CHECK(totals(fp8_fwd).compute_steps == totals(bf16_fwd).compute_steps + 4);

  // Backward: each GEMM's two products on the same operands (twice the forward's traffic), each cast the output
  // gradient's.
  const auto bf16_bwd = block_backward(m, shape(Fp8Scaling::None, mb));
  const auto fp8_bwd = block_backward(m, shape(Fp8Scaling::Delayed, mb));
  CHECK(bytes_named(fp8_bwd, " fp8 cast bwd") == Approx(outputs * (B + 2)));
  CHECK(totals(fp8_bwd).bytes - totals(bf16_bwd).bytes == Approx(outputs * (B + 2) - 2 * operand_saving));
  CHECK(totals(fp8_bwd).flops == Approx(totals(bf16_bwd).flops));
  // The gradients' fp8 GEMMs split their accumulator (Transformer Engine's _2X_ACC_DGRAD and _2X_ACC_WGRAD), no other.
  int split = 0;
  for (const KernelStep& k : fp8_bwd) {
    CHECK(k.gemm.split_accumulate == (k.dtype == Dtype::Fp8));
    split += k.gemm.split_accumulate ? 1 : 0;
  }
  CHECK(split == 4);
  for (const KernelStep& k : bf16_bwd) CHECK_FALSE(k.gemm.split_accumulate);

  // Current scaling: one more read of every tensor cast, for its amax.
  const auto cur_fwd = block_forward(m, shape(Fp8Scaling::Current, mb));
  const auto cur_bwd = block_backward(m, shape(Fp8Scaling::Current, mb));
  CHECK(totals(cur_fwd).bytes - totals(fp8_fwd).bytes == Approx(B * (inputs + W / mb)));
  CHECK(totals(cur_bwd).bytes - totals(fp8_bwd).bytes == Approx(B * outputs));

  // One micro-batch a step: the whole weight cast falls on it.
  CHECK(bytes_named(block_forward(m, shape(Fp8Scaling::Delayed, 1)), " fp8 cast") ==
        Approx(inputs * (B + 2) + W * (B + 2)));
}

TEST_CASE("fp8 under autocast casts the fp32 weights and the norms' fp32 outputs straight to fp8", "[fp8]") {
  const TransformerSpec m = gpt_block();
  const double h = 1024, T = 4.0 * 512, f = 4 * h;
  const double W = 3 * h * h + h * h + 2 * h * f + 3 * h + h + f + h;
  const auto fwd = block_forward(m, shape(Fp8Scaling::Delayed, 1, true));
  // qkv's and fc1's inputs are fp32 (4 bytes read), proj's and fc2's 16-bit; the weights fp32.
  CHECK(bytes_named(fwd, " fp8 cast") == Approx(2 * T * h * (4 + 2) + T * (h + f) * (2 + 2) + W * (4 + 2)));
  for (const KernelStep& k : fwd) CHECK_FALSE((k.name.ends_with("weight cast") || k.name.ends_with("input cast")));
  // The output layer keeps autocast's casts: it is not a TE layer.
  bool head_cast = false;
  for (const KernelStep& k : head_forward(m, shape(Fp8Scaling::Delayed, 1, true))) {
    head_cast = head_cast || k.name == "output layer weight cast";
    CHECK_FALSE(k.dtype.has_value());
  }
  CHECK(head_cast);
}

TEST_CASE("an fp8 GEMM runs at the H100's fp8 rate the zoo's figure was measured as", "[fp8]") {
  // tile-lang's 8192^3 E4M3 matmul on an H800 SXM (the H100's compute): 1,507 TFLOPS (devices.yaml, h100_sxm).
  const DeviceSpec h100 = load_device("h100_sxm");
  const double n = 8192, flops = 2 * n * n * n;
  const GemmShape shape{n, n, n};
  // Each less the GEMM kernel's fixed time (models/zoo/kernel.hpp): the rates are the tile-and-wave part's. The
  // microbenchmark timed its product alone (PowerState::Burst).
  const auto time = [&](Dtype d, double bytes, PowerState p) {
    return kernel_time(h100, h100.efficiency, d, KernelClass::Gemm, flops, bytes, shape, AttentionBackend::Flash2, p) -
           kGemmKernelSeconds;
  };
  const double t = time(Dtype::Fp8, 3 * n * n, PowerState::Burst);
  CHECK(flops / t / 1e12 == Approx(1507).epsilon(0.01));
  // Twice bf16's peak, not twice its time: the fp8 figure is a smaller fraction of a larger peak.
  const double bf16 = time(Dtype::Bf16, 6 * n * n, PowerState::Burst);
  CHECK(bf16 / t == Approx(1978.9 / 989.4 * 0.785 / 0.801));
  // In a training step the board holds its power limit: fp8 keeps 0.951 of that rate, bf16 0.903
  // (bench/kernels/power_held.md), so fp8 gains on bf16 there.
  CHECK(time(Dtype::Fp8, 3 * n * n, PowerState::Held) == Approx(t / 0.951));
  CHECK(time(Dtype::Bf16, 6 * n * n, PowerState::Held) == Approx(bf16 / 0.903));
  CHECK(load_device("h200").peak(Dtype::Fp8) == Approx(1978.9e12));
  CHECK(dtype_bytes(Dtype::Fp8) == 1);
}

TEST_CASE("model.fp8 needs fp8 tensor cores, a 16-bit model and a transformer, and says which", "[fp8]") {
  CHECK_NOTHROW(hybrid_job({"model.fp8=delayed", "cluster.device=h100_sxm"}));
  CHECK_THROWS_WITH(hybrid_job({"model.fp8=delayed"}),
                    Catch::Contains("model.fp8") && Catch::Contains("a100_80gb") && Catch::Contains("no fp8"));
  CHECK_THROWS_WITH(hybrid_job({"model.fp8=current", "cluster.device=h100_sxm", "model.dtype=fp32"}),
                    Catch::Contains("model.fp8") && Catch::Contains("16-bit") && Catch::Contains("fp32"));
  CHECK_THROWS_WITH(hybrid_job({"model.fp8=mxfp8", "cluster.device=h100_sxm"}),
                    Catch::Contains("model.fp8") && Catch::Contains("none") && Catch::Contains("delayed") &&
                        Catch::Contains("current"));
  CHECK_THROWS_WITH(load_scenario_text("model: {name: resnet50, dtype: fp16, fp8: delayed}\n"
                                       "cluster: {nodes: 1, devices_per_node: 2, device: h100_sxm}\n",
                                       "cnn.yaml", {}),
                    Catch::Contains("cnn.yaml") && Catch::Contains("model.fp8") && Catch::Contains("layer table"));
}
