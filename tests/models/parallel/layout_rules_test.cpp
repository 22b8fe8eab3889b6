// The layout rules on their own (the loader's messages are tested in tests/core/scenario): every
// rule names the key that fixes it, and a layout that keeps them all has none.
#include <catch2/catch.hpp>

#include "models/parallel/layout_rules.hpp"

using namespace dtsim;

namespace {

TransformerSpec gpt() {
  TransformerSpec m;
  m.layers = 24;
  m.hidden = 2048;
  m.heads = 16;
  m.seq_len = 2048;
  return m;
}

HybridSpec layout(int t, int p, int c = 1) {
  HybridSpec h;
  h.tensor = t;
  h.pipeline = p;
  h.context = c;
  h.global_batch = 64;
  return h;
}

std::string key_of(const TransformerSpec& m, const HybridSpec& h, int devices) {
  const auto problem = layout_problem(m, h, devices);
  return problem ? problem->key : std::string("none");
}

}  // namespace

TEST_CASE("a layout that keeps every rule has no problem, each broken rule names its key") {
  const TransformerSpec m = gpt();
  CHECK(key_of(m, layout(2, 4), 64) == "none");                     // d = 8, 8 micro-batches per rank
  CHECK(key_of(m, layout(2, 4, 2), 64) == "none");                  // context 2 divides 2048 tokens
  CHECK(key_of(m, layout(3, 1), 63) == "strategy.tensor");          // 16 heads
  CHECK(key_of(m, layout(2, 4), 60) == "strategy.tensor");          // 8 ranks per replica do not divide 60
  CHECK(key_of(m, layout(1, 5), 5) == "strategy.pipeline.stages");  // 24 layers over 5 stages
  HybridSpec data = layout(2, 2);
  data.data = 3;
  CHECK(key_of(m, data, 16) == "strategy.data");
  HybridSpec batch = layout(1, 1);
  batch.global_batch = 12;
  CHECK(key_of(m, batch, 8) == "strategy.global_batch");  // 12 sequences over 8 ranks
  HybridSpec chunks = layout(1, 2);
  chunks.virtual_stages = 2;
  CHECK(key_of(m, chunks, 2) == "strategy.pipeline.virtual_stages");  // 1F1B has no model chunks
  HybridSpec experts = layout(1, 1);
  experts.expert = 2;
  CHECK(key_of(m, experts, 8) == "strategy.expert");  // a dense model
  TransformerSpec moe = gpt();
  moe.experts = 8;
  experts.tensor = 2;
  experts.global_batch = 0;
  CHECK(key_of(moe, experts, 8) == "strategy.sequence_parallel");  // MoE with t > 1 needs it
  experts.sequence_parallel = true;
  CHECK(key_of(moe, experts, 8) == "none");
}
