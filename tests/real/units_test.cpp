// Unit tests of the real backends' pure parts: GEMM shapes, the values in the buffers and their
// checks (against an in-memory replay of every schedule), model bindings, and world-size hints.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "real/binding.hpp"
#include "real/gemm.hpp"
#include "real/launch.hpp"
#include "real/plan_scale.hpp"
#include "real/values.hpp"

using namespace dtsim;
using namespace dtsim::real;

namespace {

// Every rank's buffer after `schedule`, replayed in memory round by round (sends read the
// chunk as it was when the round started).
std::vector<std::vector<float>> replay(const Schedule& schedule, const ChunkLayout& layout,
                                       std::vector<std::vector<float>> buffers) {
  for (const Round& round : schedule.rounds) {
    const auto before = buffers;
    for (const Transfer& t : round.transfers) {
      for (std::int64_t e = layout.begin(t.chunk); e < layout.begin(t.chunk + 1); ++e) {
        const float v = before[t.src][static_cast<size_t>(e)];
        float& into = buffers[t.dst][static_cast<size_t>(e)];
        into = t.reduce ? into + v : v;
      }
    }
  }
  return buffers;
}

std::string source(const std::string& rel) { return std::string(DTSIM_SOURCE_DIR) + "/" + rel; }

}  // namespace

TEST_CASE("GEMM shapes execute the op's FLOPs") {
  for (double flops : {2.0, 1e3, 7.3e6, 1e9, 3.3e11}) {
    const auto shapes = gemm_shapes(flops, 512);
    REQUIRE(!shapes.empty());
    for (const auto& s : shapes) CHECK((s.m <= 512 && s.n <= 512 && s.k <= 512));
    CHECK(gemm_flops(shapes) == Approx(flops).epsilon(0.02));
  }
  CHECK(gemm_shapes(1.0, 512).empty());
}

TEST_CASE("GEMM shapes aligned for tensor cores keep their FLOPs and whole tiles") {
  for (double flops : {2.0, 1e3, 5.5e5, 7.3e6, 1e8, 1.05e9, 6.7e10, 3.3e11, 2.5e12}) {
    const auto shapes = gemm_shapes(flops, 8192, kGemmAlignCuda);
    REQUIRE(!shapes.empty());
    for (const auto& s : shapes) {
      CHECK((s.m <= 8192 && s.n <= 8192 && s.k <= 8192));
      if (s.m >= 64) CHECK((s.m % 64 == 0 && s.n % 64 == 0));
      if (s.m >= 64 && s.k >= 128) CHECK(s.k % 8 == 0);
    }
    // k in steps of 8 only from 128 on: within half a step, 1/32 of the FLOPs.
    CHECK(gemm_flops(shapes) == Approx(flops).epsilon(1.0 / 32 + 1e-9));
  }
}

TEST_CASE("every schedule leaves every rank holding the exact result its checks expect") {
  const CollectiveKind kinds[] = {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather,
                                  CollectiveKind::Broadcast, CollectiveKind::Reduce,        CollectiveKind::AllToAll};
  int runs = 0;
  for (auto name : algorithm_names()) {
    const CollectiveAlgorithm& algo = find_algorithm(name);
    for (CollectiveKind kind : kinds) {
      for (const GroupShape shape : {GroupShape{4, 2, 1}, GroupShape{5, 1, 0}, GroupShape{8, 4, 7}}) {
        if (!algo.supports(kind, shape)) continue;
        const std::int64_t elements = buffer_elements(kind, shape.size, 1001);
        const Schedule s = algo.schedule(kind, shape, 4.0 * 1001);
        const ChunkLayout layout{elements, s.chunks};
        std::vector<std::vector<float>> buffers(static_cast<size_t>(shape.size),
                                                std::vector<float>(static_cast<size_t>(elements)));
        for (int r = 0; r < shape.size; ++r) fill_input(kind, layout, shape, r, 3, 40, buffers[r]);
        const auto out = replay(s, layout, buffers);
        for (int r = 0; r < shape.size; ++r) {
          const CheckResult c = check_output(kind, layout, shape, r, 3, 40, out[r]);
          INFO(name << " " << collective_name(kind) << " size " << shape.size << " rank " << r);
          CHECK(c.mismatched == 0);
          CHECK(c.checksum == c.expected);
        }
        // Untouched inputs fail the check (except where rank 0 already holds the result: a
        // Broadcast's root; a Reduce checks only its root): the checks are not vacuous.
        const CheckResult before = check_output(kind, layout, shape, 0, 3, 40, buffers[0]);
        const bool holds =
            kind == CollectiveKind::Broadcast ? shape.root == 0 : kind == CollectiveKind::Reduce && shape.root != 0;
        if (!holds) CHECK(before.mismatched > 0);
        ++runs;
      }
    }
  }
  CHECK(runs > 40);
}

TEST_CASE("the blocked fill and the lane-wise check agree with the element-wise definitions") {
  // Lengths around the 8-element blocks, first indices of every phase of the period.
  for (std::int64_t n : {0, 1, 7, 8, 9, 63, 1001}) {
    for (std::int64_t first : {0, 3, 13}) {
      std::vector<float> buf(static_cast<size_t>(n), 99.0f);
      fill_contributions(buf, first, 2, 5);
      float want[8];
      for (int j = 0; j < 8; ++j) want[j] = contribution(first + j, 2, 5);
      double sum = 0;
      for (std::int64_t e = 0; e < n; ++e) {
        REQUIRE(buf[static_cast<size_t>(e)] == contribution(first + e, 2, 5));
        sum += buf[static_cast<size_t>(e)];
      }
      CheckResult ok;
      check_periodic(buf, want, ok);
      CHECK(ok.checked == n);
      CHECK(ok.mismatched == 0);
      CHECK(ok.checksum == sum);
      CHECK(ok.expected == sum);
      if (n < 2) continue;
      // Two wrong elements, one in a block and one possibly in the tail, are both counted.
      buf[0] += 1.0f;
      buf[static_cast<size_t>(n - 1)] -= 2.0f;
      CheckResult bad;
      check_periodic(buf, want, bad);
      CHECK(bad.mismatched == 2);
      CHECK(bad.checksum == sum - 1.0);
      CHECK(bad.expected == sum);
    }
  }
}

TEST_CASE("bindings cover the model exactly for AllReduce buckets and parameter-server shards") {
  for (const char* file : {"tests/real/data/tiny_allreduce.yaml", "tests/real/data/tiny_ps.yaml"}) {
    const Plan plan = compile_plan(load_scenario(source(file), {"strategy.allreduce.bucket_size=70KB"}));
    const RankBinding w = bind_rank(plan, 0);
    CHECK(w.model_elements == 200000);  // 2e5 fp32 parameters
    std::vector<int> covered(static_cast<size_t>(w.model_elements), 0);
    for (const Binding& b : w.ops) {
      if (b.buffer != BufferKind::Grads) continue;
      for (std::int64_t e = b.model_offset; e < b.model_offset + b.elements; ++e) ++covered[static_cast<size_t>(e)];
    }
    for (int c : covered) REQUIRE(c == 1);
  }
}

TEST_CASE("the wrong world size names both numbers and a --set that fits") {
  LaunchOptions o;
  o.scenario = source("scenarios/quickstart.yaml");
  const Plan plan = compile_plan(load_scenario(o.scenario));
  try {
    check_world_size(plan, 4, o);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("needs 8 ranks (8 workers + 0 servers) but mpirun started 4; use mpirun -np 8") !=
          std::string::npos);
    CHECK(what.find("--set cluster.nodes=1") != std::string::npos);
  }
  const auto hints = world_size_hints(o, 4);
  REQUIRE(!hints.empty());
  CHECK(hints.front() == "--set cluster.nodes=1");
  CHECK(compile_plan(load_scenario(o.scenario, {"cluster.nodes=1"})).ranks.size() == 4);
  CHECK_NOTHROW(check_world_size(plan, 8, o));
}

TEST_CASE("compute scale auto caps a rank's iteration at 2 GFLOP") {
  Plan plan = compile_plan(load_scenario(source("scenarios/quickstart.yaml")));
  const double scale = auto_compute_scale(plan);
  CHECK(scale < 0.01);
  scale_plan(plan, scale, 1.0);
  CHECK(max_rank_flops(plan) == Approx(kAutoFlopsPerRank));
  Plan tiny = compile_plan(load_scenario(source("tests/real/data/tiny_allreduce.yaml")));
  CHECK(auto_compute_scale(tiny) == 1.0);
}

TEST_CASE("tensor-parallel partial products sum to the unsplit product, exactly") {
  for (int t : {1, 2, 3, 4, 8}) {
    bool varies = false;
    for (std::int64_t e : {0, 1, 63, 64, 65, 1000, 123457}) {
      double sum = 0;
      for (int r = 0; r < t; ++r) sum += gemm_partial(e, r, 5);
      INFO("t " << t << " element " << e);
      CHECK(sum == gemm_full(e, t, 5));
      varies = varies || gemm_full(e, t, 5) != gemm_full(0, t, 5);
    }
    CHECK(varies);
  }
  // By hand: C[0] of the unsplit product over 8 inner indices, x(0, q) = (7q mod 5) - 2 and
  // w(q, 0) = ((2q + 1) mod 5) - 2 at salt 0: x = -2 0 2 -1 1 -2 0 2, w = -1 1 -2 0 2 -1 1 -2.
  CHECK(gemm_full(0, 1, 0) == 2.0f + 0 - 4 + 0 + 2 + 2 + 0 - 4);
}

TEST_CASE("tensor-group collectives of GEMM products check exactly after every schedule, and not before") {
  const GroupShape shape{4, 4, 0};
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather}) {
    for (auto name : {"ring", "halving_doubling"}) {
      const CollectiveAlgorithm& algo = find_algorithm(name);
      if (!algo.supports(kind, shape)) continue;
      const std::int64_t elements = 1000;
      const Schedule s = algo.schedule(kind, shape, 4.0 * elements);
      const ChunkLayout layout{elements, s.chunks};
      std::vector<std::vector<float>> buffers(4, std::vector<float>(static_cast<size_t>(elements)));
      for (int r = 0; r < 4; ++r) fill_gemm_input(kind, layout, shape, r, 7, buffers[r]);
      auto out = replay(s, layout, buffers);
      for (int r = 0; r < 4; ++r) {
        INFO(name << " " << collective_name(kind) << " rank " << r);
        const CheckResult c = check_gemm_output(kind, layout, shape, r, 7, out[r]);
        CHECK(c.mismatched == 0);
        CHECK(c.checked > 0);
        CHECK(c.checksum == c.expected);
        CHECK(check_gemm_output(kind, layout, shape, r, 7, buffers[r]).mismatched > 0);
        // The kept values (the cpu backend's): the same input, and the same check of the same chunks.
        const GemmValues& kept = gemm_values(kind, layout, shape, r, 7);
        CHECK(kept.input == buffers[r]);
        const CheckResult k = compare_gemm_output(kind, layout, shape, r, kept.output, out[r]);
        CHECK(k.checked == c.checked);
        CHECK(k.mismatched == 0);
        CHECK(k.checksum == c.checksum);
        CHECK(k.expected == c.expected);
        CHECK(compare_gemm_output(kind, layout, shape, r, kept.output, buffers[r]).mismatched ==
              check_gemm_output(kind, layout, shape, r, 7, buffers[r]).mismatched);
        // Another iteration's values differ (salt 8), and salt 7's are made again after it.
        CHECK(gemm_values(kind, layout, shape, r, 8).input != buffers[r]);
        CHECK(gemm_values(kind, layout, shape, r, 7).input == buffers[r]);
      }
      // One wrong element on rank 1's checked part is caught.
      const std::int64_t at = kind == CollectiveKind::ReduceScatter ? layout.begin(s.chunks / 4) : 0;
      out[1][static_cast<size_t>(at)] += 1.0f;
      CHECK(check_gemm_output(kind, layout, shape, 1, 7, out[1]).mismatched == 1);
      CHECK(compare_gemm_output(kind, layout, shape, 1, gemm_values(kind, layout, shape, 1, 7).output, out[1])
                .mismatched == 1);
    }
  }
}

TEST_CASE("a pipeline message passes its check only as its own micro-batch and iteration") {
  for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{1000}}) {
    std::vector<float> m(n);
    fill_message(m, 13, 4);
    const CheckResult ok = check_message(m, 13, 4);
    CHECK(ok.checked == static_cast<std::int64_t>(n));
    CHECK(ok.mismatched == 0);
    CHECK(ok.checksum == ok.expected);
    CHECK(check_message(m, 15, 4).mismatched > 0);             // another micro-batch's (or direction's) tag
    if (n > 1) CHECK(check_message(m, 13, 5).mismatched > 0);  // the next iteration's
    m[n - 1] += 1.0f;
    CHECK(check_message(m, 13, 4).mismatched == 1);
  }
}

TEST_CASE("hybrid bindings: gradient ranges tile each rank's model, ZeRO-3 micro-batches share them") {
  const std::string file = source("scenarios/hybrid_pipeline_cpu.yaml");
  struct Case {
    std::vector<std::string> sets;
    bool zero3;
  };
  const std::vector<Case> cases = {
      {{}, false},
      {{"strategy.tensor=2", "cluster.devices_per_node=8", "strategy.global_batch=8"}, false},
      {{"strategy.pipeline.stages=1", "strategy.zero=3"}, true},
      {{"strategy.zero=1", "cluster.devices_per_node=4", "strategy.allreduce.bucket_size=1MB"}, false},
  };
  for (const Case& c : cases) {
    const Plan plan = compile_plan(load_scenario(file, c.sets));
    for (size_t rank = 0; rank < plan.ranks.size(); ++rank) {
      INFO("case " << (&c - cases.data()) << " rank " << rank);
      const RankProgram& prog = plan.ranks[rank];
      const RankBinding rb = bind_rank(plan, static_cast<int>(rank));
      std::vector<int> covered(static_cast<size_t>(rb.local_elements), 0);
      std::map<std::int64_t, int> zero3_ranges;
      int tensor = 0, messages = 0;
      std::set<int> micro_batches;
      for (const Op& op : prog.ops) {
        const Binding& b = rb.ops[op.id];
        if (op.micro_batch >= 0) micro_batches.insert(op.micro_batch);
        if (const auto* col = std::get_if<CollectiveOp>(&op.body)) {
          const GroupKind kind = plan.groups[col->group].kind;
          if (kind == GroupKind::Tensor) {
            CHECK(b.values == Values::TensorGemm);
            ++tensor;
          }
          if (b.buffer != BufferKind::Grads) continue;
          CHECK(b.elements == elements_of(col->bytes));
          if (op.micro_batch >= 0) {  // ZeRO-3: once per range and micro-batch
            ++zero3_ranges[b.offset];
            if (op.micro_batch > 0) continue;
          }
          for (std::int64_t e = b.offset; e < b.offset + b.elements; ++e) ++covered[static_cast<size_t>(e)];
        } else if (std::holds_alternative<SendOp>(op.body) || std::holds_alternative<RecvOp>(op.body)) {
          CHECK(b.buffer == BufferKind::Message);
          CHECK(b.message == messages++);
        }
      }
      CHECK(static_cast<int>(rb.message_elements.size()) == messages);
      if (replica_group(plan, static_cast<int>(rank)) >= 0) {  // a data group: every element reduced once
        CHECK(std::count(covered.begin(), covered.end(), 1) == static_cast<std::ptrdiff_t>(covered.size()));
      }
      for (const auto& [offset, times] : zero3_ranges) CHECK(times == static_cast<int>(micro_batches.size()));
      CHECK(zero3_ranges.empty() == !c.zero3);
      CHECK(rb.replicas_agree == (c.sets.empty() || c.sets.front() == "strategy.tensor=2"));
      if (c.sets.size() == 3 && c.sets.front() == "strategy.tensor=2") CHECK(tensor > 0);
      // Two stages: an activation out and its gradient back (or in and back) per micro-batch.
      const bool staged = std::any_of(prog.ops.begin(), prog.ops.end(),
                                      [](const Op& op) { return std::holds_alternative<SendOp>(op.body); });
      CHECK(messages == (staged ? 2 * static_cast<int>(micro_batches.size()) : 0));
    }
  }
}
