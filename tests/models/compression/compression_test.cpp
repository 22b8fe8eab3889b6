// Compressors: exact payload sizes, the plan each one compiles to, and bad compression keys.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/base/error.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "models/compression/compressor.hpp"
#include "tests/support/tiny_job.hpp"

using namespace dtsim;

namespace {

const char* const kJob = test::kTinyJob;

Plan plan_of(const std::vector<std::string>& sets) { return compile_plan(load_scenario_text(kJob, "x.yaml", sets)); }

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    compile_plan(load_scenario_text(text, "x.yaml", sets));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("compressed sizes are exact") {
  const Tensor t{1e6, 4};
  CompressionSpec spec;
  auto bytes = [&](const char* name) { return find_compressor(name).payload_bytes(t, spec); };
  CHECK(bytes("none") == 4e6);
  CHECK(bytes("fp16") == 2e6);
  CHECK(bytes("bf16") == 2e6);
  CHECK(bytes("int8") == 1e6 + 4);
  CHECK(bytes("qsgd") == 1e6 + 4);  // s = 127: 7 magnitude bits and a sign bit
  spec.levels = 1;
  CHECK(bytes("qsgd") == 250000 + 4);
  spec.levels = 4;  // ceil(log2 5) = 3 bits + sign
  CHECK(bytes("qsgd") == 500000 + 4);
  CHECK(bytes("topk") == 8 * 10000);
  CHECK(bytes("randomk") == 8 * 10000);
  spec.ratio = 1e-9;  // at least one pair
  CHECK(bytes("topk") == 8);
  CHECK(bytes("sign") == 125000 + 4);
  CHECK(bytes("powersgd") == 4 * (1000 + 1000) * 4);  // 1000 x 1000, r = 4
  spec.rank = 2;
  CHECK(bytes("powersgd") == Approx(4 * (1000 + 1000) * 2));
  CHECK(find_compressor("powersgd").payload_bytes(Tensor{1001, 4}, spec) == 4 * (32 + 32) * 2);
}

TEST_CASE("compression costs grow with the tensor and scale with cost_scale") {
  CompressionSpec spec;
  for (std::string_view name : compressor_names()) {
    if (name == "none") continue;
    const Compressor& c = find_compressor(name);
    INFO(name);
    CHECK(c.compress(Tensor{2e6, 4}, spec).mem_bytes > c.compress(Tensor{1e6, 4}, spec).mem_bytes);
    spec.cost_scale = 0;
    for (const CodecStep& step : c.steps(Tensor{1e6, 4}, spec, 8)) CHECK(step.work.flops == 0);
    spec.cost_scale = 1;
  }
  // Decoding N sparse payloads costs more than decoding one.
  const Compressor& topk = find_compressor("topk");
  CHECK(topk.decompress(Tensor{1e6, 4}, spec, 64).flops > topk.decompress(Tensor{1e6, 4}, spec, 2).flops);
}

TEST_CASE("each compressor compiles to the collectives real systems use") {
  auto kinds = [](const Plan& p) {
    std::vector<std::string> out;
    for (const Op& op : p.ranks[0].ops) {
      if (op.phase == Phase::Compression) out.emplace_back("compute");
      if (const auto* c = std::get_if<CollectiveOp>(&op.body)) out.emplace_back(collective_name(c->kind));
    }
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(kinds(plan_of({})) == V{"allreduce"});
  CHECK(kinds(plan_of({"compression.method=fp16"})) == V{"compute", "allreduce", "compute"});
  CHECK(kinds(plan_of({"compression.method=qsgd"})) == V{"compute", "allreduce", "compute"});
  CHECK(kinds(plan_of({"compression.method=topk"})) == V{"compute", "allgather", "compute"});
  CHECK(kinds(plan_of({"compression.method=sign"})) == V{"compute", "allgather", "compute"});
  // PowerSGD: P AllReduced, orthogonalised, Q AllReduced.
  CHECK(kinds(plan_of({"compression.method=powersgd"})) ==
        V{"compute", "allreduce", "compute", "allreduce", "compute"});
  const Plan p = plan_of({"compression.method=topk"});
  const auto& gather = std::get<CollectiveOp>(p.ranks[0].ops[3].body);
  CHECK(gather.bytes == 4 * 8 * 10000);  // N x the per-rank payload
  for (const Op& op : p.ranks[0].ops) {
    if (op.phase == Phase::Compression) CHECK(op.stream == Stream::Comm);
  }
  CHECK(phase_name(Phase::Compression) == "compression");
}

TEST_CASE("buckets under min_size go uncompressed") {
  const Plan small = plan_of({"compression.method=int8", "compression.min_size=5MB"});
  CHECK(std::get<CollectiveOp>(small.ranks[0].ops[2].body).bytes == 4e6);
  const Plan large = plan_of({"compression.method=int8", "compression.min_size=4MB"});
  CHECK(std::get<CollectiveOp>(large.ranks[0].ops[3].body).bytes == 1e6 + 4);
}

TEST_CASE("layer granularity compresses every layer on its own") {
  const Plan p = plan_of({"compression.method=fp16", "compression.granularity=layer", "model.synthetic.layers=4"});
  const auto n = std::count_if(p.ranks[0].ops.begin(), p.ranks[0].ops.end(),
                               [](const Op& op) { return std::holds_alternative<CollectiveOp>(op.body); });
  CHECK(n == 4);
}

TEST_CASE("a parameter server receives compressed pushes and decompresses them") {
  const Plan p = plan_of({"strategy.kind=parameter_server", "compression.method=sign"});
  const RankProgram& server = p.ranks.back();
  CHECK(std::get<RecvOp>(server.ops[0].body).bytes == 125000 + 4);
  CHECK(server.ops[4].phase == Phase::Compression);
  CHECK(server.ops[5].phase == Phase::Aggregate);
}

TEST_CASE("bad compression keys give one exact line") {
  const std::string base(kJob);
  CHECK(error_of(base + "compression:\n  method: tpok\n") ==
        "x.yaml:9:11: error: compression.method: 'tpok' is not valid (valid: none, fp16, bf16, int8, qsgd, topk, "
        "randomk, sign, powersgd) (did you mean 'topk'?)");
  CHECK(error_of(base + "compression:\n  ratio: 0\n") ==
        "x.yaml:9:10: error: compression.ratio: must be in (0, 1] (got 0)");
  CHECK(error_of(base + "compression:\n  ratio: 1.5\n") ==
        "x.yaml:9:10: error: compression.ratio: must be in (0, 1] (got 1.5)");
  CHECK(error_of(base + "compression:\n  granularity: tensor\n") ==
        "x.yaml:9:16: error: compression.granularity: 'tensor' is not valid (valid: bucket, layer)");
  CHECK(error_of(base + "compression:\n  method: powersgd\nstrategy:\n  kind: parameter_server\n") ==
        "x.yaml:9:11: error: compression.method: powersgd needs strategy.kind allreduce (its factors P and Q are "
        "AllReduced)");
  CHECK(error_of(base + "compression:\n  cost_scale: -1\n") ==
        "x.yaml:9:15: error: compression.cost_scale: must be from 0 to 1e+06 (got -1)");
}
