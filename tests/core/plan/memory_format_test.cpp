// framework.memory_format nchw: every tensor-core convolution (fp16, bf16, tf32) gets a transpose op
// before it in each pass that reads and writes its tensors once more: 2 x the row's activation
// traffic x batch x dtype bytes (cuDNN's NCHW-to-NHWC transformations). No other op changes, and no
// transposes in fp32 (no tensor cores) or in NHWC.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "core/base/dtype.hpp"
#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"

using namespace dtsim;

namespace {

constexpr const char* kResnet = R"(name: rn50
model: {name: resnet50, batch_per_worker: 64, dtype: tf32}
cluster: {nodes: 1, devices_per_node: 1, device: a100_80gb}
)";

const RankProgram& worker_of(const Plan& p) { return p.ranks.at(p.jobs.at(0).workers.at(0)); }

std::map<std::string, const ComputeOp*> compute_ops(const RankProgram& r) {
  std::map<std::string, const ComputeOp*> ops;
  for (const Op& op : r.ops) {
    if (const auto* c = std::get_if<ComputeOp>(&op.body)) ops[op.label] = c;
  }
  return ops;
}

}  // namespace

TEST_CASE("NCHW tensor-core convolutions read and write their tensors once more, in transpose ops") {
  for (const char* dtype : {"tf32", "fp16", "bf16"}) {
    INFO(dtype);
    const std::string set = std::string("model.dtype=") + dtype;
    const Scenario nhwc = load_scenario_text(kResnet, "rn50.yaml", {set});
    const Scenario nchw = load_scenario_text(kResnet, "rn50.yaml", {set, "framework.memory_format=nchw"});
    const Plan a = compile_plan(nhwc), b = compile_plan(nchw);
    const auto before = compute_ops(worker_of(a)), after = compute_ops(worker_of(b));
    const Workload& w = nchw.jobs.front().workload;
    const double bytes = dtype_bytes(nchw.jobs.front().model.dtype);
    int convs = 0;
    double extra = 0;
    for (const Layer& layer : w.layers) {
      for (const char* pass : {"fwd", "bwd"}) {
        const std::string label = std::string(pass) + " " + layer.name;
        // The layer's own op is unchanged.
        REQUIRE(after.count(label));
        CHECK(after.at(label)->mem_bytes == before.at(label)->mem_bytes);
        CHECK(after.at(label)->flops == before.at(label)->flops);
        const auto t = after.find(label + " nchw transposes");
        if (layer.cls != KernelClass::Conv) {
          CHECK(t == after.end());
          continue;
        }
        REQUIRE(t != after.end());
        const double traffic = std::string(pass) == "fwd" ? layer.fwd_traffic : layer.bwd_traffic;
        CHECK(t->second->mem_bytes == Approx(2 * traffic * 64 * bytes));
        CHECK(t->second->flops == 0);
        CHECK(t->second->cls == KernelClass::Elementwise);
        extra += t->second->mem_bytes;
      }
      convs += layer.cls == KernelClass::Conv;
    }
    CHECK(convs == 53);  // ResNet-50 v1.5: the stem, 16 blocks of 3 and 4 downsample projections
    CHECK(worker_of(b).ops.size() == worker_of(a).ops.size() + 2 * 53);
    // ResNet-50's conv rows move 21.8 M elements per image forward and 42.6 M backward (the zoo's table).
    CHECK(extra == Approx(2 * (21776384.0 + 42599424.0) * 64 * bytes));
  }
}

TEST_CASE("fp32 convolutions and NHWC layouts are not transposed") {
  for (const auto& sets : std::vector<std::vector<std::string>>{{"model.dtype=fp32", "framework.memory_format=nchw"},
                                                                {"model.dtype=fp16"}}) {
    const Plan p = compile_plan(load_scenario_text(kResnet, "rn50.yaml", sets));
    for (const Op& op : worker_of(p).ops) CHECK(op.label.find("transposes") == std::string::npos);
  }
}

TEST_CASE("a bad memory format is refused with the valid ones") {
  CHECK_THROWS_WITH(load_scenario_text(kResnet, "rn50.yaml", {"framework.memory_format=nchw4"}),
                    Catch::Contains("framework.memory_format") && Catch::Contains("nhwc") && Catch::Contains("nchw"));
}
