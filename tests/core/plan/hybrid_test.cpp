// Hybrid plans against closed forms: the FLOPs of an iteration (Narayanan et al. 2021), the
// tensor-parallel volume per block (Korthikanti et al. 2022), ZeRO's traffic (Rajbhandari et al.
// 2020), and the invariants every plan keeps (messages matched, groups' collectives in step).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <tuple>

#include "core/plan/compiler.hpp"
#include "core/plan/hybrid/compile.hpp"
#include "models/parallel/transformer_ops.hpp"
#include "tests/support/hybrid_job.hpp"

using namespace dtsim;
using dtsim::test::hybrid_job;

namespace {

// Two GPT blocks of hidden 1024, 16 heads, 2048 tokens: the blocks the kernel-step tests count.
TransformerSpec two_blocks() {
  TransformerSpec m;
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 16;
  m.seq_len = 2048;
  return m;
}

double total_flops(const Plan& plan, Phase only, bool all_phases) {
  double flops = 0;
  for (const RankProgram& r : plan.ranks) {
    for (const Op& op : r.ops) {
      if (all_phases || op.phase == only) flops += op_flops(op.body);
    }
  }
  return flops;
}

Plan compile(const std::vector<std::string>& overrides, bool flash = false) {
  Scenario s = hybrid_job(overrides);
  s.jobs[0].model.transformer.flash_attention = flash;
  return compile_plan(s);
}

// What one rank puts on the wire for a collective (busbw convention of nccl-tests): AllReduce
// 2(n-1)/n S, ReduceScatter and AllGather (n-1)/n S.
double wire_bytes(const Plan& plan, const CollectiveOp& c) {
  const double n = static_cast<double>(plan.groups[c.group].ranks.size());
  const double f = c.kind == CollectiveKind::AllReduce ? 2 * (n - 1) / n : (n - 1) / n;
  return f * c.bytes;
}

double data_group_wire_bytes(const Plan& plan, int rank) {
  double bytes = 0;
  for (const Op& op : plan.ranks[rank].ops) {
    if (const auto* c = std::get_if<CollectiveOp>(&op.body); c && plan.groups[c->group].kind == GroupKind::Data) {
      bytes += wire_bytes(plan, *c);
    }
  }
  return bytes;
}

}  // namespace

TEST_CASE("an iteration's FLOPs are Narayanan et al.'s 72 B s l h^2 (1 + s/6h + V/12lh), 96 with recompute",
          "[hybrid]") {
  // Eq. 3 of Narayanan et al. 2021 (with full recompute) and its no-recompute form (Korthikanti et
  // al. 2022, eq. 7): GEMMs and the attention core only, so the layer norms, softmax and
  // element-wise kernels (a fraction of a percent here) are left out of the sum.
  const double B = 32, s = 256, l = 8, h = 512, V = 1024;
  const double plain = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  const double recomputed = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  for (const char* layout : {"strategy.tensor=2", "strategy.pipeline=2", "strategy.tensor=4"}) {
    const std::vector<std::string> base{layout, "strategy.global_batch=32", "strategy.micro_batch=2"};
    const Plan p = compile(base);
    CHECK(total_flops(p, Phase::Forward, true) - total_flops(p, Phase::Optimizer, false) ==
          Approx(plain).epsilon(0.01));
    std::vector<std::string> full = base;
    full.push_back("strategy.recompute=full");
    const Plan q = compile(full);
    CHECK(total_flops(q, Phase::Forward, true) - total_flops(q, Phase::Optimizer, false) ==
          Approx(recomputed).epsilon(0.01));
    // Recompute runs every block's forward once more (the embedding and the head are not recomputed).
    double block_forward_flops = 0;
    for (const RankProgram& r : q.ranks) {
      for (const Op& op : r.ops) {
        if (op.phase == Phase::Forward && op.label.rfind("fwd L", 0) == 0) block_forward_flops += op_flops(op.body);
      }
    }
    CHECK(total_flops(q, Phase::Recompute, false) == Approx(block_forward_flops));
    CHECK(total_flops(q, Phase::Forward, false) == Approx(total_flops(p, Phase::Forward, false)));
  }
}

TEST_CASE("tensor parallelism moves 4 all-reduces of b s h per block, or 4 all-gathers and 4 reduce-scatters",
          "[hybrid]") {
  const TransformerSpec m = two_blocks();
  for (bool sp : {false, true}) {
    const ShardShape sh{4, 1, 1, sp, 2, 2.0};
    std::map<CollectiveKind, std::pair<int, double>> seen;
    using Steps = std::vector<KernelStep> (*)(const TransformerSpec&, const ShardShape&);
    for (Steps steps : {Steps{&block_forward}, Steps{&block_backward}}) {
      for (const KernelStep& k : (*steps)(m, sh)) {
        if (!k.collective) continue;
        CHECK(k.group == GroupKind::Tensor);
        seen[k.kind].first += 1;
        seen[k.kind].second += k.bytes;
      }
    }
    const double bsh = 2.0 * 2048 * 1024 * 2;  // b s h in bf16
    if (sp) {
      CHECK(seen.size() == 2);
      CHECK(seen[CollectiveKind::AllGather] == std::make_pair(4, 4 * bsh));
      CHECK(seen[CollectiveKind::ReduceScatter] == std::make_pair(4, 4 * bsh));
    } else {
      CHECK(seen.size() == 1);
      CHECK(seen[CollectiveKind::AllReduce] == std::make_pair(4, 4 * bsh));
    }
  }
  // With one rank in the tensor group nothing is exchanged.
  for (const KernelStep& k : block_forward(m, ShardShape{1, 1, 1, true, 1, 2.0})) CHECK_FALSE(k.collective);
}

TEST_CASE("ZeRO stages 1 and 2 move plain data parallelism's bytes, stage 3 one and a half times", "[hybrid]") {
  // Rajbhandari et al. 2020, section 7: P_os and P_os+g communicate 2 Psi like an all-reduce
  // (reduce-scatter + all-gather), P_os+g+p 3 Psi (an extra all-gather of the parameters). One
  // micro-batch, no tensor or pipeline parallelism: only blocks, embedding and head on each rank.
  std::vector<double> bytes;
  for (int zero = 0; zero <= 3; ++zero) {
    const Plan p = compile({"strategy.data=8", "strategy.zero=" + std::to_string(zero)});
    bytes.push_back(data_group_wire_bytes(p, 0));
  }
  // Plain data parallelism all-reduces every parameter's gradient once: blocks, embedding, output layer.
  const Plan plain = compile({"strategy.data=8"});
  double params = 0;
  for (const Op& op : plain.ranks[0].ops) {
    if (const auto* u = std::get_if<UpdateOp>(&op.body)) params += u->params;
  }
  CHECK(bytes[0] == Approx(2 * (8 - 1) / 8.0 * params * 2));  // bf16 gradients
  CHECK(bytes[1] == Approx(bytes[0]));
  CHECK(bytes[2] == Approx(bytes[0]));
  // ZeRO-3 gathers the blocks' parameters only (embedding and head stay whole), so compare with the blocks' share.
  const Scenario s = hybrid_job({"strategy.data=8"});
  const BlockParams block = block_params(s.job().model.transformer, ShardShape{1, 1, 1, false, 1, 2.0});
  const double n = 8;
  const double blocks_allreduce = 8 * block.dense * 2 * 2 * (n - 1) / n;  // 8 blocks, bf16
  CHECK(bytes[3] - bytes[0] == Approx(0.5 * blocks_allreduce));
}

TEST_CASE("every pipeline message has its receive, and each group's members issue the same collectives", "[hybrid]") {
  for (const char* schedule : {"gpipe", "1f1b", "interleaved"}) {
    const Plan p = compile(
        {"strategy.tensor=2", "strategy.pipeline.stages=2", "strategy.pipeline.schedule=" + std::string(schedule),
         "strategy.pipeline.virtual_stages=" + std::string(schedule == std::string("interleaved") ? "2" : "1"),
         "strategy.global_batch=8", "strategy.sequence_parallel=true", "strategy.zero=1"});
    std::map<std::tuple<int, int, int>, double> sends, recvs;  // (src, dst, tag) -> bytes
    std::map<int, std::vector<std::vector<std::pair<CollectiveKind, double>>>> by_group;
    for (const RankProgram& r : p.ranks) {
      std::map<int, std::vector<std::pair<CollectiveKind, double>>> mine;
      for (const Op& op : r.ops) {
        for (int d : op.deps) CHECK(d < op.id);
        if (const auto* snd = std::get_if<SendOp>(&op.body)) {
          CHECK(sends.emplace(std::make_tuple(r.rank, snd->peer, snd->tag), snd->bytes).second);
        } else if (const auto* rcv = std::get_if<RecvOp>(&op.body)) {
          CHECK(recvs.emplace(std::make_tuple(rcv->peer, r.rank, rcv->tag), rcv->bytes).second);
          CHECK(op.stream == Stream::Compute);
        } else if (const auto* c = std::get_if<CollectiveOp>(&op.body)) {
          CHECK(c->seq == static_cast<int>(mine[c->group].size()));
          mine[c->group].push_back({c->kind, c->bytes});
        }
      }
      for (auto& [g, list] : mine) by_group[g].push_back(std::move(list));
    }
    CHECK(sends == recvs);
    CHECK_FALSE(sends.empty());
    for (const auto& [g, lists] : by_group) {
      CHECK(lists.size() == p.groups[g].ranks.size());
      for (const auto& list : lists) CHECK(list == lists.front());
    }
  }
}

TEST_CASE("the optimizer steps the parameters the memory model holds on each stage", "[hybrid][memory]") {
  for (const auto& layout : std::vector<std::vector<std::string>>{{"strategy.tensor=2", "strategy.pipeline=2"},
                                                                  {"strategy.tensor=8"},
                                                                  {"strategy.pipeline=4", "strategy.data=2"}}) {
    const Plan p = compile(layout);
    const JobPlan& job = p.jobs.front();
    REQUIRE_FALSE(job.memory.empty());
    for (const RankProgram& r : p.ranks) {
      double stepped = 0;
      for (const Op& op : r.ops) {
        if (const auto* u = std::get_if<UpdateOp>(&op.body)) stepped += u->params;
      }
      CHECK(stepped == Approx(job.memory[static_cast<size_t>(r.stage)].bytes.parameters / 2));  // bf16 weights
    }
  }
}

TEST_CASE("every ZeRO-3 gather is waited for by its block's first kernel, whatever the recompute", "[hybrid]") {
  for (const char* recompute : {"none", "selective", "full"}) {
    for (bool flash : {false, true}) {
      const Plan p = compile({"strategy.data=4", "strategy.pipeline=2", "strategy.zero=3", "strategy.global_batch=8",
                              std::string("strategy.recompute=") + recompute},
                             flash);
      for (const RankProgram& r : p.ranks) {
        std::map<int, int> waiters;  // gather op -> ops depending on it
        for (const Op& op : r.ops) {
          for (int d : op.deps) ++waiters[d];
        }
        int gathers = 0;
        for (const Op& op : r.ops) {
          if (op.label.rfind("zero3 gather", 0) != 0) continue;
          ++gathers;
          INFO(op.label << " recompute " << recompute << " flash " << flash);
          CHECK(waiters[op.id] >= 1);
        }
        CHECK(gathers > 0);
      }
    }
  }
}

TEST_CASE("data-parallel buckets hold Megatron's default of parameters unless the bucket size is given", "[hybrid]") {
  // Megatron-core's DistributedDataParallelConfig.bucket_size: max(40M, 1M x d) parameters.
  const auto buckets = [](const std::vector<std::string>& overrides) {
    const Plan p = compile(overrides);
    std::vector<double> sizes;
    for (const Op& op : p.ranks[0].ops) {
      const auto* c = std::get_if<CollectiveOp>(&op.body);
      if (c && p.groups[c->group].kind == GroupKind::Data) sizes.push_back(c->bytes);
    }
    return sizes;
  };
  // The small test model (about 4.7 M parameters) fits one default bucket of 40 M x 2 bytes (bf16).
  const Scenario s = hybrid_job({"strategy.data=8"});
  CHECK(hybrid_bucket_bytes(s.job(), job_layout(s, s.job())) == Approx(40e6 * 2));
  CHECK(buckets({"strategy.data=8"}).size() == 1);
  // Given, the size is PyTorch-style bytes: 1 MB buckets split the same gradients into several.
  const auto given = buckets({"strategy.data=8", "strategy.allreduce.bucket_size=1MB"});
  CHECK(given.size() > 4);
  CHECK(hybrid_bucket_bytes(hybrid_job({"strategy.data=8", "strategy.allreduce.bucket_size=1MB"}).job(),
                            job_layout(s, s.job())) == 1e6);
}

TEST_CASE("without overlap every gradient bucket is reduced after the whole backward", "[hybrid]") {
  // Buckets that fill during the backward wait for its last op, issued after it (deps point back).
  const Plan p = compile({"strategy.data=4", "strategy.pipeline=2", "strategy.global_batch=8",
                          "strategy.allreduce.bucket_size=1MB", "strategy.allreduce.overlap=false"});
  for (const RankProgram& r : p.ranks) {
    int last_backward = -1, reductions = 0;
    for (const Op& op : r.ops) {
      if (op.phase == Phase::Backward) last_backward = op.id;
    }
    for (const Op& op : r.ops) {
      for (int d : op.deps) CHECK(d < op.id);
      const auto* c = std::get_if<CollectiveOp>(&op.body);
      if (!c || p.groups[c->group].kind != GroupKind::Data) continue;
      ++reductions;
      CHECK(op.id > last_backward);
      CHECK(op.deps == std::vector<int>{last_backward});
    }
    CHECK(reductions > 1);
  }
}

TEST_CASE("a biased block's backward sums each GEMM's output gradient once into its bias gradient", "[hybrid]") {
  // qkv and fc1 over the rank's T tokens and its share of their outputs, proj and fc2 (row-parallel: the bias
  // follows the reduction) over the sequence-parallel share of T and all h outputs; one read each, in bf16.
  const TransformerSpec m = two_blocks();
  const double T = 2.0 * 2048, h = 1024, t = 4, B = 2;
  const auto bytes = [](const std::vector<KernelStep>& steps) {
    double total = 0;
    for (const KernelStep& k : steps) total += k.collective ? 0 : k.mem_bytes;
    return total;
  };
  for (bool sp : {false, true}) {
    const ShardShape sh{4, 1, 1, sp, 2, 2.0};
    TransformerSpec plain = m;
    plain.bias = false;
    const double rows = sp ? T / t : T;
    const double expected = (T * 3 * h / t + rows * h + T * 4 * h / t + rows * h) * B;
    CHECK(bytes(block_backward(m, sh)) - bytes(block_backward(plain, sh)) -
              (bytes(block_forward(m, sh)) - bytes(block_forward(plain, sh))) * 2 ==
          Approx(expected));
    int reductions = 0;
    for (const KernelStep& k : block_backward(m, sh)) reductions += k.name.ends_with(" bias grad");
    CHECK(reductions == 4);
    for (const KernelStep& k : block_backward(plain, sh)) CHECK_FALSE(k.name.ends_with(" bias grad"));
  }
}

TEST_CASE("a norm's backward makes five passes over its tokens: dx from x and dy, then the weight gradient",
          "[hybrid]") {
  const TransformerSpec m = two_blocks();
  const ShardShape sh{1, 1, 1, false, 2, 2.0};
  const double elements = 2.0 * 2048 * 1024;
  int norms = 0;
  for (const KernelStep& k : block_forward(m, sh)) {
    if (k.cls != KernelClass::Norm) continue;
    ++norms;
    CHECK(k.mem_bytes == Approx(2 * elements * 2));  // x read, y written, bf16
  }
  CHECK(norms == 2);
  for (const KernelStep& k : block_backward(m, sh)) {
    if (k.cls == KernelClass::Norm) CHECK(k.mem_bytes == Approx(5 * elements * 2));
  }
  for (const KernelStep& k : head_backward(m, sh)) {
    if (k.cls == KernelClass::Norm) CHECK(k.mem_bytes == Approx(5 * elements * 2));
  }
}

TEST_CASE("framework.backward_prefetch: the next block's backward gather after its predecessor's first kernel, or last",
          "[hybrid]") {
  // FSDP's BACKWARD_PRE issues block k's gather once block k + 1's backward has begun, BACKWARD_POST once it has
  // ended, ahead of block k + 1's reduce-scatter (torch/distributed/fsdp/api.py, BackwardPrefetch).
  for (const char* prefetch : {"pre", "post"}) {
    const Plan p = compile({"strategy.data=8", "strategy.zero=3", "strategy.global_batch=16",
                            std::string("framework.backward_prefetch=") + prefetch});
    const bool post = std::string(prefetch) == "post";
    int checked = 0;
    for (const RankProgram& r : p.ranks) {
      for (const Op& op : r.ops) {
        int block = 0, mb = 0;
        if (std::sscanf(op.label.c_str(), "zero3 gather L%d bwd mb%d", &block, &mb) != 2 || op.deps.empty()) continue;
        // Block k + 1's backward ops on this micro-batch: the gather waits for its first or its last.
        const std::string next = fmt::format("bwd L{} ", block + 1);
        int first = -1, last = -1, reduce_scatter = -1;
        for (const Op& o : r.ops) {
          if (o.micro_batch == mb && o.label.rfind(next, 0) == 0) {
            if (first < 0) first = o.id;
            last = o.id;
          }
          if (o.label == fmt::format("zero3 reduce-scatter L{} mb{}", block + 1, mb)) reduce_scatter = o.id;
        }
        INFO(op.label << " " << prefetch);
        REQUIRE(first >= 0);
        CHECK(op.deps == std::vector<int>{post ? last : first});
        CHECK(reduce_scatter > op.id);  // issued after the gather, on the same stream
        ++checked;
      }
    }
    CHECK(checked > 0);
  }
}
