// framework.tp_comm_overlap against its rules (models/parallel/transformer_ops.hpp, TP communication overlap): the
// block's four sequence-parallel collectives each way are marked as Transformer Engine's defaults run them (ring
// exchange all-gathers in t pieces on the copy engines; reduce-scatters holding 16 SMs, pipelined in 4 pieces forward,
// in bulk backward) and placed next to their GEMM, nothing else changes (the same steps, FLOPs and bytes: only their
// order), the plan moves the same bytes and FLOPs as without overlap, each collective-and-GEMM pair lasts
// max(G', C) + min(G', C) / n with G' = G x S / (S - margin), and the iteration is never slower, its exposed
// communication never larger.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/plan/compiler.hpp"
#include "models/cost/cost_model.hpp"
#include "models/parallel/transformer_ops.hpp"
#include "tests/support/hybrid_job.hpp"
#include "tests/support/run_analytical.hpp"

using namespace dtsim;
using dtsim::test::hybrid_job;

namespace {

TransformerSpec two_blocks() {
  TransformerSpec m;
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 16;
  m.seq_len = 2048;
  m.flash_attention = true;
  m.bias = true;
  return m;
}

ShardShape shape(int t, bool sp, bool overlap, Fp8Scaling fp8 = Fp8Scaling::None) {
  ShardShape sh{t, 1, 1, sp, 2, 2.0};
  sh.tp_comm_overlap = overlap;
  sh.fp8 = fp8;
  return sh;
}

// A step list as a sorted list of what each step is, order left out.
std::vector<std::tuple<std::string, double, double, double>> as_set(const std::vector<KernelStep>& steps) {
  std::vector<std::tuple<std::string, double, double, double>> out;
  for (const KernelStep& k : steps) out.emplace_back(k.name, k.flops, k.mem_bytes, k.bytes);
  std::sort(out.begin(), out.end());
  return out;
}

bool is_gemm(const KernelStep& k) { return !k.collective && k.cls == KernelClass::Gemm; }

// Tensor-group collective bytes and compute FLOPs of a plan's ops, composite parts included.
std::pair<double, double> bytes_and_flops(const Plan& plan) {
  double bytes = 0, flops = 0;
  const auto count = [&](const Op& op, bool in_composite) {
    if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
      if (plan.groups[c->group].kind == GroupKind::Tensor) bytes += c->bytes;
    } else if (const auto* k = std::get_if<ComputeOp>(&op.body); k && (in_composite || k->composite < 0)) {
      flops += k->flops;
    }
  };
  for (const RankProgram& r : plan.ranks) {
    for (const Op& op : r.ops) {
      count(op, false);
      if (const auto* c = std::get_if<ComputeOp>(&op.body); c && c->composite >= 0) {
        for (const Op& part : plan.composites[c->composite].parts) count(part, true);
      }
    }
  }
  return {bytes, flops};
}

}  // namespace

TEST_CASE("TP overlap marks the block's sequence-parallel collectives and puts each next to its GEMM", "[tp_overlap]") {
  const TransformerSpec m = two_blocks();
  using Steps = std::vector<KernelStep> (*)(const TransformerSpec&, const ShardShape&);
  for (Fp8Scaling fp8 : {Fp8Scaling::None, Fp8Scaling::Delayed}) {
    for (Steps steps : {Steps{&block_forward}, Steps{&block_backward}}) {
      const std::vector<KernelStep> plain = (*steps)(m, shape(4, true, false, fp8));
      const std::vector<KernelStep> over = (*steps)(m, shape(4, true, true, fp8));
      CHECK(as_set(plain) == as_set(over));  // the same steps, reordered
      int gathers = 0, scatters = 0;
      for (size_t i = 0; i < over.size(); ++i) {
        const KernelStep& k = over[i];
        if (!k.beside.on()) continue;
        REQUIRE(k.collective);
        if (k.kind == CollectiveKind::AllGather) {
          ++gathers;
          REQUIRE(i + 1 < over.size());
          CHECK(is_gemm(over[i + 1]));
          CHECK(k.beside.chunks == 4);  // ring exchange: t pieces, no SMs held
          CHECK(k.beside.sm_margin == 0);
        } else {
          CHECK(k.kind == CollectiveKind::ReduceScatter);
          ++scatters;
          REQUIRE(i > 0);
          CHECK(is_gemm(over[i - 1]));
          CHECK(k.beside.chunks == 4);  // t in bulk backward, the pipeline's 4 splits forward (t = 8 below)
          CHECK(k.beside.sm_margin == 16);
        }
      }
      CHECK(gathers == 2);
      CHECK(scatters == 2);
      for (const KernelStep& k : plain) CHECK_FALSE(k.beside.on());
    }
  }
  // Without sequence parallelism (all-reduces) or with one rank in the tensor group: nothing is marked.
  for (const ShardShape& sh : {shape(4, false, true), shape(1, true, true)}) {
    for (const KernelStep& k : block_forward(m, sh)) CHECK_FALSE(k.beside.on());
    for (const KernelStep& k : block_backward(m, sh)) CHECK_FALSE(k.beside.on());
  }
  // The embedding's and the output layer's collectives are not Transformer Engine's linear layers.
  for (const KernelStep& k : head_forward(m, shape(4, true, true))) CHECK_FALSE(k.beside.on());
  for (const KernelStep& k : embedding_backward(m, shape(4, true, true))) CHECK_FALSE(k.beside.on());
  // With t = 8 the ring exchange takes 8 pieces, the forward pipeline still 4, the backward bulk 8.
  for (const KernelStep& k : block_forward(m, shape(8, true, true))) {
    if (k.beside.on()) CHECK(k.beside.chunks == (k.kind == CollectiveKind::AllGather ? 8 : 4));
  }
  for (const KernelStep& k : block_backward(m, shape(8, true, true))) {
    if (k.beside.on()) CHECK(k.beside.chunks == 8);
  }
}

TEST_CASE("TP overlap pairs last max(G', C) + min(G', C) / n, move the same bytes, and never slow the iteration",
          "[tp_overlap]") {
  const std::vector<std::string> layout{"strategy.tensor=4", "strategy.pipeline=2", "strategy.global_batch=8",
                                        "strategy.sequence_parallel=true"};
  auto with = [&](bool overlap, std::vector<std::string> more = {}) {
    std::vector<std::string> sets = layout;
    sets.push_back(overlap ? "framework.tp_comm_overlap=true" : "framework.tp_comm_overlap=false");
    sets.insert(sets.end(), more.begin(), more.end());
    return hybrid_job(sets);
  };
  const Scenario off = with(false);
  const Scenario on = with(true);
  const Plan plain = compile_plan(off);
  const Plan over = compile_plan(on);
  CHECK(plain.composites.empty());
  REQUIRE_FALSE(over.composites.empty());

  // Bytes and FLOPs conserved.
  const auto [plain_bytes, plain_flops] = bytes_and_flops(plain);
  const auto [over_bytes, over_flops] = bytes_and_flops(over);
  CHECK(over_bytes == Approx(plain_bytes));
  CHECK(over_flops == Approx(plain_flops));

  // Each pair: a tensor-group collective and a GEMM side by side in 4 pieces, the GEMM on 108 - margin SMs.
  const cost::CostModel costs(on.cluster, over);
  std::map<std::string, int> kinds;
  for (size_t i = 0; i < over.composites.size(); ++i) {
    const Composite& pair = over.composites[i];
    REQUIRE(pair.parts.size() == 2);
    REQUIRE(pair.beside.size() == 1);
    const Composite::Beside& b = pair.beside[0];
    CHECK(b.first == 0);
    CHECK(b.chunks == 4);
    const RankProgram& rank = over.ranks[pair.rank];
    REQUIRE(on.cluster.device.kernels.sms == 108);  // A100
    const double slowed = 108.0 / (108 - b.sm_margin);
    double g = 0, c = 0;
    for (const Op& part : pair.parts) {
      if (const auto* k = std::get_if<ComputeOp>(&part.body)) {
        CHECK(k->cls == KernelClass::Gemm);
        g = costs.compute_time(rank, *k) * slowed;
      } else {
        const auto& col = std::get<CollectiveOp>(part.body);
        CHECK(over.groups[col.group].kind == GroupKind::Tensor);
        CHECK(col.seq == 0);
        c = costs.collective_host_time(col) + costs.collective_time(col);
        ++kinds[std::string(collective_name(col.kind))];
        CHECK(b.sm_margin == (col.kind == CollectiveKind::AllGather ? 0 : 16));
      }
    }
    const CompositeTiming& t = costs.composite_timing(static_cast<int>(i));
    CHECK(t.duration == Approx(std::max(g, c) + std::min(g, c) / 4));
    CHECK(t.compute_s == Approx(g));
    CHECK(t.comm_s == Approx(c));
    // The collective is exposed only where the GEMM does not cover it.
    CHECK(t.exposed_comm_s == Approx(std::max(0.0, t.duration - g)).margin(1e-12));
  }
  CHECK(kinds.size() == 2);  // all-gathers and reduce-scatters, nothing else
  CHECK(kinds.begin()->second == std::next(kinds.begin())->second);

  // Never slower; exposed communication never larger; over slow links as well as fast ones.
  for (const std::vector<std::string>& links :
       {std::vector<std::string>{}, std::vector<std::string>{"cluster.intra_node.rate=20GB/s"}}) {
    const Metrics a = test::run_analytical(with(false, links)).front();
    const Metrics b = test::run_analytical(with(true, links)).front();
    CHECK(b.iteration_time.mean < a.iteration_time.mean);
    CHECK(b.exposed_comm_fraction * b.iteration_time.mean < a.exposed_comm_fraction * a.iteration_time.mean);
  }
}

TEST_CASE("TP overlap needs the tensor group within a node, as userbuffers exchange over NVLink", "[tp_overlap]") {
  // Tensor 8 over nodes of 4 devices: the collectives run alone.
  const Plan plan = compile_plan(hybrid_job({"strategy.tensor=8", "strategy.global_batch=8",
                                             "strategy.sequence_parallel=true", "framework.tp_comm_overlap=true"}));
  CHECK(plan.composites.empty());
}
