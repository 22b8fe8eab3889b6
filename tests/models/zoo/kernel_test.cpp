// Per-class kernel costs (models/zoo/kernel.hpp) against their closed forms: a wave-aligned GEMM at the
// device's published GEMM rate, partial waves and tiles costing whole ones, a backward GEMM as its
// two products, memory-bound kernels at the achieved bandwidth, and layers as before.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "models/zoo/device.hpp"
#include "models/zoo/kernel.hpp"
#include "tests/support/hybrid_job.hpp"

using dtsim::Dtype;
using dtsim::GemmShape;
using dtsim::kernel_time;
using dtsim::KernelClass;

namespace {

constexpr double kFixed = dtsim::kGemmKernelSeconds;

// A GEMM's tile-and-wave time: its kernel time less each product's fixed time (kernel.hpp).
double gemm_time(const dtsim::DeviceSpec& d, GemmShape s) {
  const double flops = 2 * s.m * s.n * s.k * s.batch * (s.backward ? 2 : 1);
  return kernel_time(d, d.efficiency, Dtype::Bf16, KernelClass::Gemm, flops, 0, s) - (s.backward ? 2 : 1) * kFixed;
}

}  // namespace

TEST_CASE("a wave-aligned GEMM reaches the published best-shape rate") {
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  REQUIRE(a100.kernels.present());
  // Bekman's best A100 shape: 6912 x 16384 output = 27 x 128 tiles of 256 x 128 = 32 waves of 108.
  const GemmShape best{6912, 16384, 2048};
  CHECK(dtsim::gemm_quantization(a100.kernels, best) == Approx(1.0));
  const double flops = 2.0 * 6912 * 16384 * 2048;
  CHECK(flops / gemm_time(a100, best) == Approx(267.9e12).epsilon(0.001));
}

TEST_CASE("a partial wave and a partial tile cost as much as whole ones") {
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  const auto& p = a100.kernels;
  // 109 tiles of 256 x 128 take two waves of 108.
  const GemmShape one_more{256.0 * 109, 128, 4096};
  CHECK(dtsim::gemm_quantization(p, one_more) == Approx(109.0 / 216));
  CHECK(gemm_time(a100, one_more) == Approx(2 * gemm_time(a100, GemmShape{256.0 * 108, 128, 4096})));
  // One row past a whole tile costs a second row of tiles: 257 x 128 x 108 columns is 2 x 108 tiles.
  const GemmShape ragged{257, 128.0 * 108, 4096};
  CHECK(gemm_time(a100, ragged) == Approx(gemm_time(a100, GemmShape{512, 128.0 * 108, 4096})));
  // The transposed tile is taken when it fits better: 128 x 256 fits 128 x (256 x 108) in one wave.
  CHECK(dtsim::gemm_quantization(p, GemmShape{128, 256.0 * 108, 64}) == Approx(1.0));
  // Batched products share the waves: 108 heads of one tile each are one wave.
  CHECK(dtsim::gemm_quantization(p, GemmShape{256, 128, 64, 108}) == Approx(1.0));
}

TEST_CASE("a backward GEMM costs its input- and weight-gradient products") {
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  // M x N = 2048 x 4608 over K = 12288 (the 175B QKV of one rank): input gradient 2048 x 12288 over
  // 4608, weight gradient 12288 x 4608 over 2048.
  const GemmShape fwd{2048, 4608, 12288};
  GemmShape bwd = fwd;
  bwd.backward = true;
  CHECK(gemm_time(a100, bwd) ==
        Approx(gemm_time(a100, GemmShape{2048, 12288, 4608}) + gemm_time(a100, GemmShape{12288, 4608, 2048})));
  // Forward: 8 x 36 = 288 tiles in 3 waves of 108.
  CHECK(dtsim::gemm_quantization(a100.kernels, fwd) == Approx(288.0 / 324));
}

TEST_CASE("memory-bound kernels stream at the achieved bandwidth, layers keep the roofline") {
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  const double bytes = 1e9;
  for (KernelClass c : {KernelClass::Softmax, KernelClass::Elementwise, KernelClass::Norm, KernelClass::Embedding}) {
    CHECK(kernel_time(a100, 0.5, Dtype::Fp16, c, 1e9, bytes) == Approx(bytes / (2039e9 * 0.88)));
  }
  // Their FLOPs run on the fp32 units when that is slower.
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Norm, 19.5e12, 1) == Approx(1.0));
  // A GEMM never beats its operands' traffic.
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Gemm, 1, bytes, GemmShape{1, 1, 1}) ==
        Approx(kFixed + bytes / (2039e9 * 0.88)));
  // Fused attention without its shape at its pass's figure (with one: tests/models/zoo/attention_test.cpp).
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Attention, 312e12, 0) == Approx(1 / 0.722));
  GemmShape backward{};
  backward.backward = true;
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Attention, 312e12, 0, backward) == Approx(1 / 0.637));
  // Layer-table ops: peak x efficiency or the data-sheet bandwidth, as before.
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Layer, 312e12, 0) == Approx(2.0));
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Layer, 0, bytes) == Approx(bytes / 2039e9));
}

TEST_CASE("devices without published kernel figures cost every class as a layer") {
  const dtsim::DeviceSpec p100 = dtsim::load_device("p100");
  REQUIRE_FALSE(p100.kernels.present());
  for (KernelClass c : {KernelClass::Gemm, KernelClass::Conv, KernelClass::Attention, KernelClass::Norm}) {
    CHECK(kernel_time(p100, p100.efficiency, Dtype::Fp16, c, 21.2e12, 0, GemmShape{300, 300, 300}) ==
          Approx(1 / p100.efficiency));
  }
}

TEST_CASE("GEMM figures are per dtype, a dtype without one, and attention without one, cost as layers") {
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  const GemmShape best{6912, 16384, 2048};  // whole waves of whole tiles
  const double flops = 2.0 * 6912 * 16384 * 2048;
  CHECK(flops / (kernel_time(a100, 0.5, Dtype::Tf32, KernelClass::Gemm, flops, 0, best) - kFixed) ==
        Approx(156e12 * 0.86));
  CHECK(flops / (kernel_time(a100, 0.5, Dtype::Fp32, KernelClass::Gemm, flops, 0, best) - kFixed) ==
        Approx(19.5e12 * 0.97));
  const dtsim::DeviceSpec v100 = dtsim::load_device("v100");
  REQUIRE(v100.kernels.present());
  CHECK(v100.kernels.sms == 80);
  // 8192^3 (the cited fp16 measurement's shape): 32 x 64 = 2048 tiles in 26 waves of 80.
  const GemmShape square{8192, 8192, 8192};
  CHECK(dtsim::gemm_quantization(v100.kernels, square) == Approx(2048.0 / 2080));
  const double sq = 2.0 * 8192 * 8192 * 8192;
  CHECK(sq / (kernel_time(v100, 0.45, Dtype::Fp16, KernelClass::Gemm, sq, 0, square) - kFixed) ==
        Approx(125e12 * 0.78 * 2048 / 2080));
  CHECK(sq / (kernel_time(v100, 0.45, Dtype::Fp32, KernelClass::Gemm, sq, 0, square) - kFixed) ==
        Approx(15.7e12 * 0.92 * 2048 / 2080));
  // No bf16 figure on V100 (no such mode): the layer rule at the fp32 peak it falls back to.
  CHECK(kernel_time(v100, 0.45, Dtype::Bf16, KernelClass::Gemm, 15.7e12, 0, square) == Approx(1 / 0.45));
  // No fused attention on Volta: attention is a layer.
  CHECK(kernel_time(v100, 0.45, Dtype::Fp16, KernelClass::Attention, 125e12, 0) == Approx(1 / 0.45));
  // H100's published figures are bf16 and fp16 only.
  const dtsim::DeviceSpec h100 = dtsim::load_device("h100_sxm");
  CHECK(kernel_time(h100, 0.45, Dtype::Tf32, KernelClass::Gemm, 494.7e12, 0, best) == Approx(1 / 0.45));
}

TEST_CASE("with fewer tiles than SMs the reduction is split over them: only tile padding counts") {
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  const auto& p = a100.kernels;
  // 54 whole tiles on 108 SMs: split-K fills them all (no idle half wave).
  CHECK(dtsim::gemm_quantization(p, GemmShape{256.0 * 54, 128, 1 << 20}) == Approx(1.0));
  // A 64 x 64 weight gradient over a long reduction: one tile of 256 x 128, an eighth of it useful.
  CHECK(dtsim::gemm_quantization(p, GemmShape{64, 64, 1 << 20}) == Approx(64.0 * 64 / (256 * 128)));
  // From 108 tiles on, whole waves again: 109 tiles take two.
  CHECK(dtsim::gemm_quantization(p, GemmShape{256.0 * 109, 128, 4096}) == Approx(109.0 / 216));
}

TEST_CASE("a convolution costs its implicit GEMM: data and weight gradients backward") {
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  // ResNet-50 layer1.0.conv2 at 256 images: M = 256 x 56 x 56 output pixels, N = 64 channels, K = 64 x 3 x 3.
  const double m = 256.0 * 3136;
  const GemmShape fwd{m, 64, 576};
  const double flops = 2 * m * 64 * 576;
  // 64 channels fill half of a 256 x 128 tile: 3136 tiles in 30 waves of 108.
  const double q = m * 64 / (30 * 108 * 256.0 * 128);
  CHECK(dtsim::gemm_quantization(a100.kernels, fwd) == Approx(q));
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Conv, flops, 0, fwd) == Approx(flops / q / (312e12 * 0.859)));
  // No convolution figure in the zoo: the GEMM's (without a GEMM kernel's fixed time: measured on matmuls only).
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Conv, flops, 1e6, fwd) + kFixed ==
        Approx(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Gemm, flops, 1e6, fwd)));
  // Backward: data gradient M x K over N (3136 x 5 = 15680 tiles of 256 x 128 in 146 waves) and weight
  // gradient 576 x 64 over M (3 tiles on 108 SMs: the reduction split over them, 576 x 64 of 3 x 256 x 128 useful).
  GemmShape bwd = fwd;
  bwd.backward = true;
  const double dgrad = m * 576 / (146 * 108 * 256.0 * 128);
  const double wgrad = 576.0 * 64 / (3 * 256.0 * 128);
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::Conv, 2 * flops, 0, bwd) ==
        Approx(flops / dgrad / (312e12 * 0.859) + flops / wgrad / (312e12 * 0.859)));
  // A convolution figure, where the zoo has one, replaces the GEMM's.
  dtsim::DeviceSpec custom = a100;
  custom.kernels.conv[static_cast<size_t>(Dtype::Fp16)] = 0.5;
  CHECK(kernel_time(custom, 0.5, Dtype::Fp16, KernelClass::Conv, flops, 0, fwd) == Approx(flops / q / (312e12 * 0.5)));
}

TEST_CASE("layout copies stream at the zoo's layout_copy fraction, at its memory fraction where it has none") {
  const dtsim::DeviceSpec h200 = dtsim::load_device("h200");
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  const double bytes = 1e9;
  REQUIRE(h200.kernels.layout_copy == Approx(0.22));
  CHECK(kernel_time(h200, 0.5, Dtype::Fp16, KernelClass::LayoutCopy, 0, bytes) == Approx(bytes / (4.8e12 * 0.22)));
  REQUIRE(a100.kernels.layout_copy == 0);
  CHECK(kernel_time(a100, 0.5, Dtype::Fp16, KernelClass::LayoutCopy, 0, bytes) == Approx(bytes / (2039e9 * 0.88)));
  // A copy of a permuted view never beats a streaming one.
  CHECK(kernel_time(h200, 0.5, Dtype::Fp16, KernelClass::LayoutCopy, 0, bytes) >
        kernel_time(h200, 0.5, Dtype::Fp16, KernelClass::Elementwise, 0, bytes));
}

TEST_CASE("kernel classes are named as layer tables write them") {
  for (const auto name : dtsim::kernel_class_names()) {
    const auto cls = dtsim::parse_kernel_class(name);
    REQUIRE(cls);
    CHECK(dtsim::kernel_class_name(*cls) == name);
  }
  CHECK_FALSE(dtsim::parse_kernel_class("convolution"));
}

TEST_CASE("a set cluster.efficiency gives every kernel that one fraction") {
  CHECK(dtsim::test::hybrid_job({}).cluster.device.kernels.present());
  CHECK(dtsim::test::hybrid_job({"cluster.efficiency=0"}).cluster.device.kernels.present());
  const dtsim::Scenario s = dtsim::test::hybrid_job({"cluster.efficiency=0.4"});
  CHECK_FALSE(s.cluster.device.kernels.present());
  CHECK(kernel_time(s.cluster.device, s.cluster.efficiency, Dtype::Bf16, KernelClass::Gemm, 312e12, 0,
                    GemmShape{2048, 4608, 12288}) == Approx(1 / 0.4));
  CHECK(dtsim::test::hybrid_job({"cluster.efficiency=0", "cluster.device_mix=a100_80gb:1,h100_sxm:1"})
            .cluster.device_at(1)
            .kernels.present());
  CHECK_FALSE(dtsim::test::hybrid_job({"cluster.efficiency=0.4", "cluster.device_mix=a100_80gb:1,h100_sxm:1"})
                  .cluster.device_at(1)
                  .kernels.present());
}

TEST_CASE("the device zoo's contention figures are the SMs NCCL leaves the compute, each cited") {
  // f = 1 - (NCCL channels, one block on an SM of its own each) / SMs; devices without a published
  // channel count keep 1 (no contention).
  for (const auto& name : dtsim::device_names()) {
    const dtsim::DeviceSpec d = dtsim::load_device(name);
    INFO(name);
    CHECK(d.compute_under_comm > 0);
    CHECK(d.compute_under_comm <= 1);
    if (d.compute_under_comm < 1) {
      CHECK(d.contention_source.find("NVIDIA/nccl") != std::string::npos);
      CHECK(d.compute_under_comm == Approx(1.0 - 24.0 / d.kernels.sms).margin(0.005));
    }
  }
  CHECK(dtsim::load_device("a100_80gb").compute_under_comm < 1);
  CHECK(dtsim::load_device("h100_sxm").compute_under_comm < 1);
}

TEST_CASE("a GEMM kernel's fixed time: each product on a device with kernel figures, held to its fit") {
  // The value bench/kernels/gemm_run fitted on XLA's H100-class bf16 matmuls (it writes it to gemm.md).
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/bench/kernels/gemm.md");
  std::stringstream md;
  md << in.rdbuf();
  std::smatch m;
  const std::string text = md.str();
  REQUIRE(std::regex_search(text, m, std::regex(R"(\| sm_90 bf16xbf16->bf16 \| ([0-9.]+) \|)")));
  CHECK(kFixed == Approx(std::stod(m[1]) * 1e-6));
  // XLA's smallest bf16 matmul (256^3) took 4.99 us on that GPU; the FLOPs alone would take 0.13 us.
  const dtsim::DeviceSpec h100 = dtsim::load_device("h100_sxm");
  const double small = kernel_time(h100, h100.efficiency, Dtype::Bf16, KernelClass::Gemm, 2.0 * 256 * 256 * 256,
                                   6.0 * 256 * 256, GemmShape{256, 256, 256});
  CHECK(small > kFixed);
  CHECK(small < kFixed + 0.2e-6);
  // A backward GEMM is two kernels: two fixed times.
  const double backward = kernel_time(h100, h100.efficiency, Dtype::Bf16, KernelClass::Gemm, 4.0 * 256 * 256 * 256,
                                      6.0 * 256 * 256, GemmShape{256, 256, 256, 1, true});
  CHECK(backward > 2 * kFixed);
  CHECK(backward < 2 * kFixed + 0.4e-6);
  // A device without kernel figures runs its GEMMs as layers: no fixed time.
  const dtsim::DeviceSpec p100 = dtsim::load_device("p100");
  REQUIRE_FALSE(p100.kernels.present());
  CHECK(kernel_time(p100, p100.efficiency, Dtype::Fp16, KernelClass::Gemm, 21.2e12, 0, GemmShape{256, 256, 256}) ==
        Approx(1 / p100.efficiency));
  // A dtype the figures leave out does too: the B200's TF32 GEMMs, at its efficiency (1.1 PFLOPS dense).
  const dtsim::DeviceSpec b200 = dtsim::load_device("b200");
  REQUIRE(b200.kernels.present());
  CHECK(kernel_time(b200, b200.efficiency, Dtype::Tf32, KernelClass::Gemm, 1.1e15, 0, GemmShape{256, 256, 256}) ==
        Approx(1 / b200.efficiency));
}

TEST_CASE("a kernel's terms: waves are its tiles over the SMs, and its bound the largest term") {
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  const auto cost = [&](KernelClass cls, double flops, double bytes, GemmShape s) {
    return dtsim::kernel_cost(a100, a100.efficiency, Dtype::Bf16, cls, flops, bytes, s);
  };
  // 109 tiles of 256 x 128 over 108 SMs: 1.0093 waves, compute-bound, its time what kernel_time gives.
  const GemmShape one_more{256.0 * 109, 128, 4096};
  const double flops = 2 * one_more.m * one_more.n * one_more.k;
  const dtsim::KernelCost big = cost(KernelClass::Gemm, flops, 0, one_more);
  CHECK(big.waves == Approx(109.0 / 108));
  CHECK(big.bound() == dtsim::KernelBound::Compute);
  CHECK(big.fixed == kFixed);
  CHECK(big.seconds == Approx(kFixed + big.compute));
  CHECK(big.seconds == kernel_time(a100, a100.efficiency, Dtype::Bf16, KernelClass::Gemm, flops, 0, one_more));
  // A backward GEMM sums its two products' terms (input gradient M x K over N, weight gradient K x N over M).
  GemmShape back = one_more;
  back.backward = true;
  const dtsim::KernelCost b = cost(KernelClass::Gemm, 2 * flops, 0, back);
  const GemmShape input{one_more.m, one_more.k, one_more.n};
  const GemmShape weight{one_more.k, one_more.n, one_more.m};
  CHECK(b.waves ==
        Approx(cost(KernelClass::Gemm, flops, 0, input).waves + cost(KernelClass::Gemm, flops, 0, weight).waves));
  CHECK(b.fixed == 2 * kFixed);
  // A 64^3 GEMM is its fixed time: 0.5 MFLOP at 268 TFLOP/s is 2 ns, its 24 KiB 12 ns.
  const dtsim::KernelCost tiny = cost(KernelClass::Gemm, 2.0 * 64 * 64 * 64, 3 * 64 * 64 * 2.0, GemmShape{64, 64, 64});
  CHECK(tiny.bound() == dtsim::KernelBound::Fixed);
  CHECK(tiny.waves == Approx(1.0 / 108));
  // A LayerNorm is its bytes: memory-bound, no waves, no fixed time.
  const dtsim::KernelCost norm = cost(KernelClass::Norm, 8.0 * (1 << 24), 4.0 * (1 << 24), {});
  CHECK(norm.bound() == dtsim::KernelBound::Memory);
  CHECK(norm.waves == 0);
  CHECK(norm.fixed == 0);
  CHECK(norm.seconds == Approx(4.0 * (1 << 24) / (a100.mem_bandwidth * a100.kernels.memory)));
}

TEST_CASE("held at the power limit a GEMM keeps the measured share of its rate, the zoo holds power_held.md's") {
  // bench/kernels/power_held.py: products back to back over products between adds on an H200.
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/bench/kernels/power_held.md");
  std::stringstream md;
  md << in.rdbuf();
  const std::string text = md.str();
  std::smatch bf16, fp8;
  REQUIRE(std::regex_search(text, bf16, std::regex(R"(\n\| bf16 \| ([0-9.]+) \|\n)")));
  REQUIRE(std::regex_search(text, fp8, std::regex(R"(\n\| fp8 \| ([0-9.]+) \|\n)")));
  for (const char* name : {"h100_sxm", "h100_sxm_hbm2e", "h200"}) {
    INFO(name);
    const dtsim::DeviceSpec d = dtsim::load_device(name);
    CHECK(d.kernels.held_at(Dtype::Bf16) == Approx(std::stod(bf16[1])));
    CHECK(d.kernels.held_at(Dtype::Fp16) == Approx(std::stod(bf16[1])));
    CHECK(d.kernels.held_at(Dtype::Fp8) == Approx(std::stod(fp8[1])));
    // A large, compute-bound GEMM takes 1 / held as long held as alone; its fixed time does not change.
    const GemmShape big{8192, 8192, 8192};
    const double flops = 2.0 * 8192 * 8192 * 8192;
    const auto time = [&](dtsim::PowerState p) {
      return kernel_time(d, d.efficiency, Dtype::Bf16, KernelClass::Gemm, flops, 0, big,
                         dtsim::AttentionBackend::Flash2, p) -
             kFixed;
    };
    CHECK(time(dtsim::PowerState::Held) == Approx(time(dtsim::PowerState::Burst) / std::stod(bf16[1])));
  }
  // No measurement for the A100: held or not, the same.
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  CHECK(a100.kernels.held_at(Dtype::Bf16) == 1);
  CHECK(gemm_time(a100, GemmShape{6912, 16384, 2048}) ==
        Approx(kernel_time(a100, a100.efficiency, Dtype::Bf16, KernelClass::Gemm, 2.0 * 6912 * 16384 * 2048, 0,
                           GemmShape{6912, 16384, 2048}, dtsim::AttentionBackend::Flash2, dtsim::PowerState::Burst) -
               kFixed));
}

TEST_CASE(
    "an fp8 GEMM that splits its accumulator runs at fp8_split, fitted in gemm.md, gradients split, forward not") {
  // bench/kernels/gemm_run: the H200 suite's torch._scaled_mm GEMMs (split by default).
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/bench/kernels/gemm.md");
  std::stringstream md;
  md << in.rdbuf();
  const std::string text = md.str();
  std::smatch fit;
  REQUIRE(std::regex_search(text, fit, std::regex(R"(fp8_split = ([0-9.]+) \(the zoo's)")));
  const GemmShape fast{8192, 8192, 8192};
  GemmShape split = fast;
  split.split_accumulate = true;
  const double flops = 2.0 * 8192 * 8192 * 8192;
  for (const char* name : {"h100_sxm", "h100_sxm_hbm2e", "h200"}) {
    INFO(name);
    const dtsim::DeviceSpec d = dtsim::load_device(name);
    CHECK(d.kernels.fp8_split == Approx(std::stod(fit[1])));
    // A compute-bound product: its FLOPs take gemm / fp8_split times as long split as fast.
    const auto time = [&](const GemmShape& s, Dtype t) {
      return kernel_time(d, d.efficiency, t, KernelClass::Gemm, flops, 0, s) - kFixed;
    };
    CHECK(time(split, Dtype::Fp8) ==
          Approx(time(fast, Dtype::Fp8) * d.kernels.gemm_at(Dtype::Fp8) / d.kernels.fp8_split));
    CHECK(time(split, Dtype::Bf16) == Approx(time(fast, Dtype::Bf16)));  // only fp8 has the two accumulators
  }
  // The A100 has no fp8 tensor cores, and so no figure.
  const dtsim::DeviceSpec a100 = dtsim::load_device("a100_80gb");
  CHECK(a100.kernels.fp8_split == 0);
}
