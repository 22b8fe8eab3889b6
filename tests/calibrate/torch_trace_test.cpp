// `dtsim calibrate --from-trace`: the trace classes' table held to the code, the GEMM FLOPs of ATen
// ops' dims, a real A100 training trace (tests/calibrate/data/README.md) read with its invariants
// (every kernel in one unit, no GEMM faster than the device's peak), a CPU trace made here by
// PyTorch whose GEMM FLOPs the closed form gives, and the command's profile and refusals.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "calibrate/fit.hpp"
#include "calibrate/fit_checks.hpp"
#include "calibrate/from_trace.hpp"
#include "core/base/error.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/calibration/torch_trace.hpp"
#include "core/calibration/trace_classes.hpp"
#include "models/zoo/device.hpp"
#include "tests/support/run_process.hpp"

using namespace dtsim;
using namespace dtsim::calib;

namespace {

const std::string kA100Trace = std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/hta_a100_rank0.json.gz";
const std::string kNcclTrace = std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/hta_a100_nccl_2ranks.json.gz";

}  // namespace

TEST_CASE("the trace classes' table: in the enum's order, every op listed once", "[trace]") {
  std::set<std::string_view> ops;
  for (size_t i = 0; i < trace_classes().size(); ++i) {
    const TraceClassTraits& t = trace_classes()[i];
    CHECK(static_cast<size_t>(t.cls) == i);
    CHECK(&trace_class_traits(t.cls) == &t);
    for (std::string_view op : t.ops) {
      INFO(op);
      CHECK(ops.insert(op).second);
      CHECK(classify_op(op) == t.cls);
      CHECK(classify_kernel("a kernel no pattern names", op) == t.cls);  // a kernel falls back to its op
    }
  }
  CHECK(trace_classes().back().cls == TraceClass::Unclassified);
  CHECK(classify_op("aten::linear") == TraceClass::Unclassified);  // wrappers: their mm or addmm is the unit
}

TEST_CASE("kernel names as the libraries spell them", "[trace]") {
  CHECK(classify_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "") ==
        TraceClass::Collective);
  CHECK(classify_kernel("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "aten::mm") ==
        TraceClass::Collective);
  // cuDNN's implicit-GEMM convolutions are convolutions, though their names hold "gemm".
  CHECK(classify_kernel("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw", "") ==
        TraceClass::Convolution);
  CHECK(classify_kernel("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>", "") ==
        TraceClass::Gemm);
  CHECK(classify_kernel("ampere_sgemm_128x64_nn", "") == TraceClass::Gemm);
  CHECK(classify_kernel("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>", "") == TraceClass::Attention);
  CHECK(classify_kernel("void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>", "") ==
        TraceClass::Optimizer);
  CHECK(classify_kernel("void cuComputeGradInput<float, float, float>", "aten::native_layer_norm_backward") ==
        TraceClass::Norm);
  CHECK(classify_kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", "") ==
        TraceClass::MemoryBound);
  // FBGEMM's embedding kernels are no GEMMs; under aten::mm a kernel of theirs would take the op's class.
  CHECK(classify_kernel("void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*)", "") ==
        TraceClass::Unclassified);
  CHECK(classify_kernel("triton__0d1d2d3d", "") == TraceClass::Unclassified);
  // fp32 operands on tensor cores are TF32; a SIMT sgemm is fp32.
  CHECK(tf32_kernel("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>"));
  CHECK(tf32_kernel("sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize128x128x16"));
  CHECK(!tf32_kernel("ampere_sgemm_128x64_nn"));
}

TEST_CASE("GEMM FLOPs from an op's input dims", "[trace]") {
  CHECK(gemm_flops("aten::mm", {{64, 512}, {512, 1024}}) == 2.0 * 64 * 512 * 1024);
  CHECK(gemm_flops("aten::addmm", {{1024}, {64, 512}, {512, 1024}, {}, {}}) == 2.0 * 64 * 512 * 1024);
  CHECK(gemm_flops("aten::bmm", {{8, 128, 64}, {8, 64, 256}}) == 2.0 * 8 * 128 * 64 * 256);
  CHECK(gemm_flops("aten::baddbmm", {{8, 128, 256}, {8, 128, 64}, {8, 64, 256}, {}, {}}) == 2.0 * 8 * 128 * 64 * 256);
  CHECK(gemm_flops("aten::mm", {{64, 512}, {256, 1024}}) == 0);  // inner sizes differ
  CHECK(gemm_flops("aten::mm", {{64, 512}}) == 0);
  CHECK(gemm_flops("aten::add", {{64, 512}, {64, 512}}) == 0);
}

TEST_CASE("fused attention FLOPs from an op's dims and causality, as the plan counts them", "[trace]") {
  // The table is the attention class's op list, no more and no less.
  const std::vector<std::string_view> known = attention_flop_ops();
  for (std::string_view op : known) CHECK(classify_op(op) == TraceClass::Attention);
  for (std::string_view op : trace_class_traits(TraceClass::Attention).ops) {
    INFO(op);
    CHECK(std::find(known.begin(), known.end(), op) != known.end());
  }
  // b 2, 16 heads, 1024 queries and keys, head dim 64: 2 b heads s_q s_k (d_qk + d_v) forward.
  const double pairs = 2.0 * 16 * 1024 * 1024;
  const std::vector<double> bhsd{2, 16, 1024, 64}, bshd{2, 1024, 16, 64};
  const std::vector<std::string> sdpa_causal{"", "", "", "", "0.", "True", ""};
  CHECK(attention_flops("aten::scaled_dot_product_attention", {bhsd, bhsd, bhsd, {}, {}, {}, {}}, sdpa_causal) ==
        2 * pairs * 128 * 0.5);
  CHECK(attention_flops("aten::_scaled_dot_product_flash_attention", {bhsd, bhsd, bhsd, {}, {}, {}},
                        {"", "", "", "0.", "False", "False"}) == 2 * pairs * 128);
  // The layout of FlashAttention's own op: [batch, seq, heads, dim]; a longer key sequence counts.
  const std::vector<double> keys{2, 4096, 16, 64};
  CHECK(attention_flops("aten::_flash_attention_forward", {bshd, keys, keys, {}, {}, {}, {}, {}, {}, {}},
                        {"", "", "", "", "", "1024", "4096", "0.", "False", "False"}) == 2 * pairs * 4 * 128);
  // Backward: five products of the two: 2.5 times the forward, as transformer_ops.cpp's flash kernel.
  const std::vector<std::vector<double>> bwd(14, bshd);
  std::vector<std::string> bwd_inputs(14, "");
  bwd_inputs[11] = "True";
  CHECK(attention_flops("aten::_flash_attention_backward", bwd, bwd_inputs) == 2.5 * 2 * pairs * 128 * 0.5);
  // xformers' kernels: custom_mask_type 0 is none, 1 or 2 causal.
  std::vector<std::string> mask(12, "");
  mask[9] = "1";
  CHECK(attention_flops("aten::_efficient_attention_forward", std::vector<std::vector<double>>(12, bshd), mask) ==
        2 * pairs * 128 * 0.5);
  mask[9] = "0";
  CHECK(attention_flops("aten::_efficient_attention_forward", std::vector<std::vector<double>>(12, bshd), mask) ==
        2 * pairs * 128);
  // Nothing said of causality (before PyTorch 2.1, or a schema whose argument there is no bool), a
  // variable-length batch's 3-d tensors, another op: no FLOPs.
  CHECK(attention_flops("aten::_scaled_dot_product_flash_attention", {bhsd, bhsd, bhsd}, {}) == 0);
  CHECK(attention_flops("aten::_scaled_dot_product_flash_attention", {bhsd, bhsd, bhsd, {}, {}},
                        {"", "", "", "0.", "0."}) == 0);
  CHECK(attention_flops("aten::_flash_attention_forward", {{2048, 16, 64}, {2048, 16, 64}, {2048, 16, 64}},
                        {"", "", "", "", "", "1024", "1024", "0.", "True"}) == 0);
  CHECK(attention_flops("aten::bmm", {bhsd, bhsd, bhsd}, sdpa_causal) == 0);
}

namespace {

// A Kineto trace of one GPU as PyTorch 2.1 and later write it: per op, a cpu_op with its shapes,
// types and concrete inputs, the cuda_runtime launch inside it and the kernel it launched.
struct KinetoWriter {
  nlohmann::json events = nlohmann::json::array();
  double ts = 0;
  int correlation = 0;
  void op(const std::string& name, const nlohmann::json& dims, const nlohmann::json& types,
          const nlohmann::json& concrete, const std::string& kernel, double kernel_us) {
    ++correlation;
    events.push_back({{"ph", "X"},
                      {"cat", "cpu_op"},
                      {"name", name},
                      {"pid", 1},
                      {"tid", 1},
                      {"ts", ts},
                      {"dur", 20},
                      {"args", {{"Input Dims", dims}, {"Input type", types}, {"Concrete Inputs", concrete}}}});
    events.push_back({{"ph", "X"},
                      {"cat", "cuda_runtime"},
                      {"name", "cudaLaunchKernel"},
                      {"pid", 1},
                      {"tid", 1},
                      {"ts", ts + 5},
                      {"dur", 5},
                      {"args", {{"correlation", correlation}}}});
    events.push_back({{"ph", "X"},
                      {"cat", "kernel"},
                      {"name", kernel},
                      {"pid", 0},
                      {"tid", 7},
                      {"ts", ts + 30},
                      {"dur", kernel_us},
                      {"args", {{"correlation", correlation}}}});
    ts += 100 + kernel_us;
  }
  std::string text() const {
    const nlohmann::json device{{"name", "NVIDIA H100 80GB HBM3"}};
    return nlohmann::json{{"deviceProperties", nlohmann::json::array({device})}, {"traceEvents", events}}.dump();
  }
};

}  // namespace

TEST_CASE("a trace's fused attention fits an attention curve that the cost model takes for attention kernels",
          "[trace]") {
  // GEMMs at 250 TFLOP/s; causal FlashAttention forward and backward at 400 TFLOP/s, 10 us on top.
  KinetoWriter k;
  // (json::array: a list of two strings would read as a key and its value)
  const nlohmann::json bf16_mm = nlohmann::json::array({"c10::BFloat16", "c10::BFloat16"});
  for (double n : {1024.0, 2048.0, 4096.0}) {
    const double flops = 2 * n * n * n;
    k.op("aten::mm", {{n, n}, {n, n}}, bf16_mm, nlohmann::json::array({"", ""}), "nvjet_tst_128x256_64x4_2x1_v_bz_TNT",
         flops / 250e12 * 1e6);
  }
  double attention_s = 0;
  for (double seq : {1024.0, 2048.0}) {
    const nlohmann::json q{4, seq, 32, 128};  // [batch, seq, heads, dim]
    const double fwd = 0.5 * 2 * (4 * 32 * seq * seq) * 256;
    nlohmann::json dims = nlohmann::json::array({q, q, q, {}, {}, {}, {}, {}, {}, {}});
    nlohmann::json types = nlohmann::json::array({"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"});
    const std::string s = std::to_string(static_cast<int>(seq));
    nlohmann::json concrete = nlohmann::json::array({"", "", "", "", "", s, s, "0.", "True", "False"});
    k.op("aten::_flash_attention_forward", dims, types, concrete, "void pytorch_flash::flash_fwd_kernel<...>",
         (10e-6 + fwd / 400e12) * 1e6);
    nlohmann::json bdims = nlohmann::json::array({q, q, q, q, q, {}, {}, {}, {}, {}, {}, {}, {}, {}});
    nlohmann::json bconcrete = nlohmann::json::array();
    for (int i = 0; i < 14; ++i) bconcrete.push_back(i == 11 ? "True" : "");
    k.op("aten::_flash_attention_backward", bdims, types, bconcrete, "void pytorch_flash::flash_bwd_kernel<...>",
         (10e-6 + 2.5 * fwd / 400e12) * 1e6);
    attention_s += 20e-6 + 3.5 * fwd / 400e12;
  }
  // One more forward whose causality the trace does not say: attention time, no FLOPs.
  k.op("aten::_flash_attention_forward", {{4, 512, 32, 128}, {4, 512, 32, 128}, {4, 512, 32, 128}},
       nlohmann::json::array({"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"}), nlohmann::json::array({"", "", ""}),
       "flash_fwd_kernel", 50);

  const TorchTrace t = parse_torch_trace(k.text(), "attention.json");
  double traced = 0;
  int sized = 0;
  for (const TraceWork& w : t.work) {
    if (w.cls != TraceClass::Attention) continue;
    traced += w.seconds;
    if (w.flops > 0) ++sized;
    CHECK(w.dtype == "bf16");
  }
  CHECK(sized == 4);
  CHECK(traced == Approx(attention_s + 50e-6));

  const CalibrationProfile p = profile_from_traces({t}, "h100_sxm");
  REQUIRE(p.attention.count("bf16"));
  const FittedCurve& a = p.attention.at("bf16");
  CHECK(a.fit.segments.size() == 1);
  CHECK(1.0 / a.fit.segments.back().per_unit == Approx(400e12).epsilon(1e-6));
  CHECK(a.fit.segments.front().fixed == Approx(10e-6).epsilon(1e-6));
  CHECK(1.0 / p.compute.at("bf16").fit.segments.back().per_unit == Approx(250e12).epsilon(1e-6));
  // A causal forward of 2048 tokens as the plan has it: the attention curve, not the GEMMs'.
  const double fwd = 0.5 * 2 * (4 * 32 * 2048.0 * 2048.0) * 256;
  CHECK(p.attention_time(Dtype::Bf16, fwd, 0) == Approx(10e-6 + fwd / 400e12));
  CHECK(p.compute_time(Dtype::Bf16, fwd, 0) == Approx(fwd / 250e12).epsilon(1e-3));
  // No attention curve of that dtype: the GEMMs'.
  CHECK(p.attention_time(Dtype::Fp16, fwd, 0) == p.compute_time(Dtype::Fp16, fwd, 0));
  // Past the device's peak it is refused, as a GEMM curve is: 400 TFLOP/s on an A100 (312 in bf16).
  REQUIRE(load_device("a100_80gb").peak(Dtype::Bf16) < 400e12);
  const CalibrationProfile slow = profile_from_traces({t}, "a100_80gb");
  CHECK(slow.compute.count("bf16"));
  CHECK(slow.attention.empty());
  CHECK(std::any_of(slow.fit_checks.begin(), slow.fit_checks.end(), [](const FitCheck& c) {
    return c.group == "attention" && c.name == "bf16" && c.verdict == FitVerdict::Refused;
  }));
}

TEST_CASE("a real A100 training trace: each kernel in one unit, no GEMM past the device's peak", "[trace]") {
  const TorchTrace t = read_torch_trace(kA100Trace);
  CHECK(t.gpu);
  CHECK(t.device == "NVIDIA A100-SXM4-80GB");
  CHECK(t.world_size == 16);
  CHECK(zoo_device_of(t.device) == "a100_80gb");
  CHECK(zoo_device_of("NVIDIA H100 80GB HBM3") == "h100_sxm");
  CHECK(zoo_device_of("Tesla V100-SXM2-32GB") == "v100");
  CHECK(zoo_device_of("AMD Instinct MI250X") == "");
  CHECK(zoo_device_of("AMD Instinct MI300X") == "mi300x");  // its model, not its maker's name, picks it

  // Units partition the kernels, copies and sets: their times add up to the busy time.
  double sum = 0;
  for (const TraceWork& w : t.work) sum += w.seconds;
  CHECK(sum == Approx(t.busy_seconds).epsilon(1e-9));
  // The GEMMs the trace's ops give shapes for: every one below the A100's peak for its dtype (a
  // kernel tied to the wrong op, or a TF32 kernel read as fp32, shows up as a rate past it).
  const DeviceSpec a100 = load_device("a100_80gb");
  int sized = 0;
  for (const TraceWork& w : t.work) {
    if (w.cls == TraceClass::Collective) CHECK_THAT(w.name, Catch::Contains("nccl", Catch::CaseSensitive::No));
    if (w.cls != TraceClass::Gemm || w.flops <= 0) continue;
    ++sized;
    INFO(w.op << " " << w.name << " " << w.dtype << " " << w.flops << " FLOPs in " << w.seconds << " s");
    REQUIRE(!w.dtype.empty());
    CHECK(w.flops / w.seconds <= a100.peak(parse_dtype(w.dtype)));
  }
  // 15 aten::mm (5 of them two kernels: split-K and its reduction) and 10 aten::addmm, counted apart
  // by a script over the same file; the trace's other GEMMs ran inside compiled graphs, without dims.
  CHECK(sized == 25);
  // NCCL kernels hold 42 % of this rank's GPU time.
  const std::vector<ClassShare> shares = class_shares({t});
  CHECK(shares.at(static_cast<size_t>(TraceClass::Collective)).seconds / t.busy_seconds == Approx(0.423).margin(0.001));
}

TEST_CASE("a trace's collectives: kind, group and size from the NCCL kernel's args, else from the c10d op", "[trace]") {
  std::map<std::tuple<std::string, int, double>, int> units;  // (kind, ranks, S) -> units
  int unknown = 0;  // kernels launched before the profiler started: no op, no args, no kind
  const auto count = [&](const TorchTrace& t) {
    units.clear();
    unknown = 0;
    for (const TraceWork& w : t.work) {
      if (w.cls != TraceClass::Collective) continue;
      if (w.op.empty() && !w.collective) {
        ++unknown;
        continue;
      }
      REQUIRE(w.collective);
      ++units[{std::string(collective_name(*w.collective)), w.ranks, w.bytes}];
    }
  };
  SECTION("PyTorch 2.1 and later: the kernel says (2 ranks, NCCL 2.17)") {
    count(read_torch_trace(kNcclTrace));
    // Its 21 NCCL kernels, counted apart by a script over the file: AllReduces of 5 sizes and 2 Broadcasts, 3 each
    // (fp32, and the Broadcast of 53 int64s), S = elements x bytes.
    const std::map<std::tuple<std::string, int, double>, int> want{
        {{"allreduce", 2, 2049000.0 * 4}, 3}, {{"allreduce", 2, 2431040.0 * 4}, 3},
        {{"allreduce", 2, 6563840.0 * 4}, 3}, {{"allreduce", 2, 6637568.0 * 4}, 3},
        {{"allreduce", 2, 7875584.0 * 4}, 3}, {{"broadcast", 2, 53120.0 * 4}, 3},
        {{"broadcast", 2, 53.0 * 8}, 3}};
    CHECK(units == want);
    CHECK(unknown == 0);
  }
  SECTION("before: the nccl: op around the launch, its input's dims, over the world (16 ranks)") {
    count(read_torch_trace(kA100Trace));
    CHECK(units.at({"allreduce", 16, 447923396.0 * 4}) > 0);
    CHECK(units.at({"reduce_scatter", 16, 65536.0 * 384 * 4}) > 0);  // the whole input
    CHECK(units.at({"allgather", 16, 8192.0 * 384 * 4 * 16}) > 0);   // one rank's shard, gathered
    int all = 0;
    for (const auto& [key, n] : units) all += n;
    CHECK(all == 75);  // every NCCL kernel of the trace but 5 whose launch it missed
    CHECK(unknown == 5);
  }
  CHECK(collective_call("_allgather_base") == CollectiveKind::AllGather);
  CHECK(collective_call("reduce_scatter_tensor_coalesced") == CollectiveKind::ReduceScatter);
  CHECK(collective_call("all_to_allv") == CollectiveKind::AllToAll);
  CHECK(collective_call("reduce") == CollectiveKind::Reduce);
  CHECK_FALSE(collective_call("send"));
  CHECK_FALSE(traced_collective("aten::all_reduce"));
}

TEST_CASE("a trace's AllReduces at 3 sizes fit the same_host link, as calibrate's rounds do", "[trace]") {
  // 8 ranks of a node: a ring AllReduce of S is 2 (n - 1) rounds of 5 us + (S / n) / 50 GB/s each.
  const int n = 8;
  const auto ring = [&](double s) { return 2 * (n - 1) * (5e-6 + s / n / 50e9); };
  TorchTrace t;
  t.gpu = true;
  t.world_size = n;
  for (double flops : {1e9, 2e9, 4e9})
    t.work.push_back(TraceWork{"gemm", "aten::mm", TraceClass::Gemm, "bf16", flops, 0, flops / 1e14, std::nullopt, 0});
  for (double s : {8e6, 64e6, 512e6}) {
    for (int i = 0; i < 2; ++i) {
      TraceWork w{
          "ncclKernel_AllReduce", "nccl:all_reduce", TraceClass::Collective, "", 0, s, ring(s), std::nullopt, 0};
      w.collective = CollectiveKind::AllReduce;
      w.ranks = n;
      t.work.push_back(w);
    }
  }
  const CalibrationProfile p = profile_from_traces({t}, "");
  REQUIRE(p.link(kSameHost));
  for (double s : {8e6, 64e6, 512e6}) {
    const Segment& seg = p.link(kSameHost)->fit.at(s / n);
    CHECK(seg.fixed + s / n * seg.per_unit == Approx(5e-6 + s / n / 50e9).epsilon(1e-6));
  }
  REQUIRE(p.collectives.size() == 3);
  for (const CollectiveSample& c : p.collectives) {
    CHECK(c.kind == "allreduce");
    CHECK(c.ranks == n);
    CHECK(c.seconds == Approx(ring(c.bytes)));
    CHECK(c.busbw == Approx(c.bytes / ring(c.bytes) * 2 * (n - 1) / n));
    CHECK(c.predicted == Approx(c.seconds).epsilon(1e-6));  // the ring's closed form on the fitted link
  }
}

TEST_CASE("dtsim calibrate --from-trace writes a profile fitted to the trace, or refuses in one line", "[trace]") {
  const std::string dir = test::temp_dir("from-trace");
  const auto r =
      test::run_dtsim("calibrate --from-trace '" + kA100Trace + "' --out '" + dir + "/p.yaml'", "from-trace");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("peaks bounding the fits: the zoo's a100_80gb"));
  CHECK_THAT(r.out, Catch::Contains("not classified ("));
  CHECK_THAT(r.out, Catch::Contains("fit checks ("));
  // Its collectives like nccl-tests: the 1.79 GB AllReduce over the trace's 16 ranks (2 sizes: no link fitted).
  CHECK_THAT(r.out, Catch::Contains("collective           80      190.345    42.3%  collectives"));
  CHECK_THAT(r.out, Catch::Contains("allreduce     16   1791693584"));
  const auto p = load_calibration_profile(dir + "/p.yaml", Backend::Cuda);
  CHECK(p->machine.from_trace == "hta_a100_rank0.json.gz");
  CHECK(p->machine.device == "NVIDIA A100-SXM4-80GB");
  REQUIRE(p->compute.count("tf32"));
  CHECK(!p->fit_checks.empty());
  // Its rate is under the A100's TF32 peak, and the scenario that names it runs.
  CHECK(1.0 / p->compute.at("tf32").fit.segments.back().per_unit < load_device("a100_80gb").peak_tf32);

  const auto missing =
      test::run_dtsim("calibrate --from-trace '" + dir + "/none.json' --out '" + dir + "/q.yaml'", "missing");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Catch::Contains("none.json: error: --from-trace: no such file"));
  std::ofstream(dir + "/not_a_trace.json") << "{\"hello\": 1}";
  const auto wrong =
      test::run_dtsim("calibrate --from-trace '" + dir + "/not_a_trace.json' --out '" + dir + "/q.yaml'", "wrong");
  CHECK(wrong.code == 2);
  CHECK_THAT(wrong.err, Catch::Contains("--from-trace: not a Chrome trace"));
  const auto device = test::run_dtsim(
      "calibrate --from-trace '" + kA100Trace + "' --device a100_81gb --out '" + dir + "/q.yaml'", "device");
  CHECK(device.code == 2);
  CHECK_THAT(device.err, Catch::Contains("a100_81gb"));
  CHECK(!std::filesystem::exists(dir + "/q.yaml"));
}

#ifdef DTSIM_TORCH_PYTHON
TEST_CASE("a CPU trace made here by PyTorch: the GEMM FLOPs of its steps are the closed form's", "[trace][torch]") {
  const std::string dir = test::temp_dir("torch-cpu-trace");
  const auto made =
      test::run_shell(std::string(DTSIM_TORCH_PYTHON) + " scripts/torch_cpu_trace.py '" + dir + "/cpu.json'", "torch");
  INFO(made.out << made.err);
  REQUIRE(made.code == 0);
  const nlohmann::json said = nlohmann::json::parse(made.out);
  const TorchTrace t = read_torch_trace(dir + "/cpu.json");
  CHECK(!t.gpu);
  double flops = 0, units = 0;
  for (const TraceWork& w : t.work) {
    if (w.cls != TraceClass::Gemm) continue;
    ++units;
    CHECK(w.flops > 0);
    CHECK(w.dtype == "fp32");
    flops += w.flops;
  }
  // 3 Linear layers, 3 steps: forward and weight gradient each, input gradient for the last 2.
  CHECK(units == 3 * (3 + 3 + 2));
  CHECK(flops == Approx(said.at("gemm_flops").get<double>()));
  // Units are ops of a class and leaf ops outside them: never more than the threads' busy time.
  double sum = 0;
  for (const TraceWork& w : t.work) sum += w.seconds;
  CHECK(sum <= t.busy_seconds * (1 + 1e-9));

  const auto r = test::run_dtsim("calibrate --from-trace '" + dir + "/cpu.json' --out '" + dir + "/p.yaml'", "cpu");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const auto p = load_calibration_profile(dir + "/p.yaml", Backend::Cpu);
  REQUIRE(p->compute.count("fp32"));
  // One thread of this CPU: under its peak.
  CHECK(1.0 / p->compute.at("fp32").fit.segments.back().per_unit < cpu_compute_peak(1));
}
#endif

#ifdef DTSIM_TORCH_PYTHON
TEST_CASE("PyTorch DDP over gloo here: the run's trace calibrates dtsim, whose scenario of it runs on both engines",
          "[trace][torch]") {
  const std::string dir = test::temp_dir("torch-ddp");
  const auto made = test::run_shell(std::string(DTSIM_TORCH_PYTHON) + " scripts/torch_ddp_validate.py '" + dir +
                                        "' --steps 3 --batch 16 --widths 64,128,32",
                                    "ddp");
  INFO(made.out << made.err);
  REQUIRE(made.code == 0);
  const nlohmann::json m = nlohmann::json::parse(test::slurp(dir + "/measured.json"));
  REQUIRE(m.at("step_s_per_rank").size() == 2);
  CHECK(m.at("step_s").get<double>() > 0);
  // gloo's AllReduce: 10 sizes from 64 KiB, every time positive and the largest slower than the smallest.
  const auto& curve = m.at("allreduce");
  REQUIRE(curve.size() == 10);
  CHECK(curve.back()[1].get<double>() > curve.front()[1].get<double>());
  // The trace holds the 3 profiled steps' GEMMs: forward and weight gradient of both layers, input
  // gradient of the second.
  const TorchTrace t = read_torch_trace(dir + "/trace.json");
  double flops = 0;
  for (const TraceWork& w : t.work) flops += w.cls == TraceClass::Gemm ? w.flops : 0;
  CHECK(flops == Approx(3 * (2.0 * 16 * 64 * 128 * 2 + 2.0 * 16 * 128 * 32 * 3)));

  const auto cal =
      test::run_dtsim("calibrate --from-trace '" + dir + "/trace.json' --out '" + dir + "/traced.yaml'", "ddp-cal");
  INFO(cal.out << cal.err);
  REQUIRE(cal.code == 0);
  double iteration[2] = {0, 0};
  for (int e = 0; e < 2; ++e) {
    const char* engine = e == 0 ? "analytical" : "simgrid";
    const auto r = test::run_dtsim("run '" + dir + "/scenario.yaml' --json --no-trace --engine " + engine + " --out '" +
                                       dir + "/sim-" + engine + "' --set cluster.calibration='" + dir + "/traced.yaml'",
                                   std::string("ddp-") + engine);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    iteration[e] = nlohmann::json::parse(r.out).at("iteration_time_s").at("mean").get<double>();
  }
  CHECK(iteration[0] > 0);
  CHECK(iteration[1] == Approx(iteration[0]).epsilon(0.01));
}
#endif
