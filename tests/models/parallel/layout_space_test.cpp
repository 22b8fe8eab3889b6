// The layout space: counted by hand on a small model, equal to a brute-force filter of every
// combination through the layout rules, and without duplicates.
#include <catch2/catch.hpp>

#include <set>
#include <tuple>

#include "models/parallel/layout.hpp"
#include "models/parallel/layout_rules.hpp"
#include "models/parallel/layout_space.hpp"

using namespace dtsim;

namespace {

TransformerSpec small() {
  TransformerSpec m;
  m.layers = 4;
  m.hidden = 256;
  m.heads = 4;
  m.seq_len = 128;
  return m;
}

using Key = std::tuple<int, int, int, int, int, int, int, int, int, int>;
Key key_of(const HybridSpec& h) {
  return {h.tensor,
          h.context,
          h.pipeline,
          h.data,
          h.expert,
          h.micro_batch,
          static_cast<int>(h.schedule) * 10 + h.virtual_stages,
          static_cast<int>(h.recompute),
          h.zero,
          h.sequence_parallel ? 1 : 0};
}

}  // namespace

TEST_CASE("the layout space of a 4-layer model on 4 devices, counted by hand") {
  LayoutLimits limits;
  limits.devices = 4;
  limits.global_batch = 8;
  limits.max_tensor = 4;
  limits.schedules = {PipelineSchedule::OneFOneB};
  limits.recomputes = {Recompute::None};
  // (t, p, d) in (1,1,4) (1,2,2) (1,4,1) (2,1,2) (2,2,1) (4,1,1); micro-batches the divisors of 8 / d;
  // ZeRO 0-3 where d > 1; sequence parallel on or off where t > 1:
  // 2x4 + 3x4 + 4 + 3x4x2 + 4x2 + 4x2 = 64.
  CHECK(for_each_layout(small(), limits, [](const HybridSpec&) {}) == 64);
  // GPipe doubles the pipelined ones (12 + 4 + 8); interleaved (2 chunks of 1 layer on 2 stages) needs
  // micro-batches in multiples of 2: (1,2,2) with 4 or 2 of them, x4 ZeRO; (2,2,1) with 8, 4, 2, x2.
  limits.schedules = {PipelineSchedule::OneFOneB, PipelineSchedule::GPipe, PipelineSchedule::Interleaved};
  CHECK(for_each_layout(small(), limits, [](const HybridSpec&) {}) == 64 + 24 + 8 + 6);
  limits.tensor = 2;
  limits.zero = 0;
  // Fixed tensor 2 and ZeRO 0: (2,1,2) 3x2 + (2,2,1) (4 x 1F1B + 4 x GPipe + 3 interleaved) x 2.
  CHECK(for_each_layout(small(), limits, [](const HybridSpec&) {}) == 6 + 22);
}

TEST_CASE("the enumeration equals every combination filtered by the layout rules, once each") {
  TransformerSpec m = small();
  m.layers = 8;
  m.experts = 4;
  LayoutLimits limits;
  limits.devices = 8;
  limits.global_batch = 16;
  limits.max_context = 2;
  std::set<Key> seen;
  const long n = for_each_layout(m, limits, [&](const HybridSpec& h) {
    CHECK(!layout_problem(m, h, limits.devices));
    CHECK(h.tensor * h.context * h.pipeline * h.data == limits.devices);
    CHECK(seen.insert(key_of(h)).second);
  });
  CHECK(n == static_cast<long>(seen.size()));
  long brute = 0;
  for (int t = 1; t <= 8; ++t)
    for (int c = 1; c <= 2; ++c)
      for (int p = 1; p <= 8; ++p)
        for (int e = 1; e <= 8; ++e)
          for (int b = 1; b <= 8; ++b)
            for (int s = 0; s < 3; ++s)
              for (int v = 1; v <= 4; ++v)
                for (int r = 0; r < 3; ++r)
                  for (int z = 0; z <= 3; ++z)
                    for (int sp = 0; sp <= 1; ++sp) {
                      if (limits.devices % (t * c * p) != 0) continue;
                      const int d = limits.devices / (t * c * p);
                      const auto schedule = static_cast<PipelineSchedule>(s);
                      // What the search leaves out on purpose: a schedule for one stage, interleaving
                      // one chunk (1F1B), ZeRO without data parallelism, sequence parallelism without
                      // tensor parallelism.
                      if (p == 1 && (schedule != PipelineSchedule::OneFOneB || v > 1)) continue;
                      if (schedule == PipelineSchedule::Interleaved && v == 1) continue;
                      if ((z > 0 && d == 1) || (sp == 1 && t == 1)) continue;
                      HybridSpec h;
                      h.tensor = t;
                      h.context = c;
                      h.pipeline = p;
                      h.data = d;
                      h.expert = e;
                      h.micro_batch = b;
                      h.global_batch = limits.global_batch;
                      h.schedule = schedule;
                      h.virtual_stages = v;
                      h.recompute = static_cast<Recompute>(r);
                      h.zero = z;
                      h.sequence_parallel = sp == 1;
                      if (!layout_problem(m, h, limits.devices)) ++brute;
                    }
  CHECK(n == brute);
  CHECK(n > 100);
}

TEST_CASE("rank orders: every order of a layout's spread dimensions, each placing its ranks differently") {
  HybridSpec h;
  h.tensor = 2;
  h.pipeline = 2;
  h.data = 2;
  const std::vector<std::string> orders = distinct_rank_orders(h, "tp-cp-ep-dp-pp");
  REQUIRE(orders.size() == 6);                // 3! orders of tp, dp, pp
  CHECK(orders.front() == "tp-dp-pp-cp-ep");  // base's placement, its size-1 dimensions last
  // Each order makes different groups; size-1 dimensions (cp, ep) go last and change nothing.
  std::set<std::vector<std::vector<int>>> placements;
  for (const std::string& order : orders) {
    HybridSpec o = h;
    o.rank_order = order;
    const HybridLayout layout(o);
    std::vector<std::vector<int>> groups = layout.groups(GroupKind::Tensor);
    for (const auto& g : layout.groups(GroupKind::Pipeline)) groups.push_back(g);
    placements.insert(groups);
    CHECK(spread_rank_order(o).size() == std::string("tp-dp-pp").size());
  }
  CHECK(placements.size() == 6);
  // With one spread dimension there is one order, and with experts the data dimension's share is d / e.
  h.pipeline = 1;
  h.data = 1;
  CHECK(distinct_rank_orders(h, "dp-tp-pp-cp-ep") == std::vector<std::string>{"tp-dp-pp-cp-ep"});
  h.data = 4;
  h.expert = 4;  // d' = 1: only tp and ep spread
  CHECK(distinct_rank_orders(h, "tp-cp-ep-dp-pp").size() == 2);
  // The enumeration visits each layout once per order when asked.
  LayoutLimits limits;
  limits.devices = 4;
  limits.global_batch = 4;
  const long plain = for_each_layout(small(), limits, [](const HybridSpec&) {});
  limits.rank_orders = true;
  std::set<std::pair<Key, std::string>> seen;
  const long ordered = for_each_layout(
      small(), limits, [&](const HybridSpec& l) { CHECK(seen.emplace(key_of(l), spread_rank_order(l)).second); });
  CHECK(ordered > plain);
  CHECK(ordered == static_cast<long>(seen.size()));
}

TEST_CASE("the global batch searched within a token budget: each layout its largest whole rounds of d x micro-batch") {
  // 128-token sequences, 2,000 to 4,100 tokens a step: 16 to 32 sequences (ceil(2000 / 128), floor(4100 / 128)).
  LayoutLimits limits;
  limits.devices = 4;
  limits.max_tensor = 4;
  limits.min_tokens = 2000;
  limits.max_tokens = 4100;
  limits.schedules = {PipelineSchedule::OneFOneB};
  limits.recomputes = {Recompute::None};
  long count = 0;
  for_each_layout(small(), limits, [&](const HybridSpec& h) {
    ++count;
    const int round = h.data * h.micro_batch;
    INFO(h.data << " x " << h.micro_batch);
    CHECK(h.global_batch % round == 0);
    CHECK(h.global_batch >= 16);
    CHECK(h.global_batch <= 32);
    CHECK(h.global_batch + round > 32);  // the most rounds that fit
  });
  // (t, p, d) as above, micro-batches 1, 2, 4, 8, each a round of d x b within 32: d = 4 takes b <= 8 (4 of them),
  // d = 2 and d = 1 too: the same 64 layouts' shapes but with powers of two, 4 each instead of the divisors.
  // (1,1,4) 4 micro x 4 ZeRO + (1,2,2) 4 x 4 + (1,4,1) 4 + (2,1,2) 4 x 4 x 2 + (2,2,1) 4 x 2 + (4,1,1) 4 x 2 = 84.
  CHECK(count == 84);
  // A budget under one round of a layout leaves it out: at most 12 sequences (1,536 tokens), d = 4 takes b <= 2.
  limits.min_tokens = 128;
  limits.max_tokens = 1536;
  limits.tensor = 1;
  limits.pipeline = 1;
  limits.zero = 0;
  std::vector<int> micro;
  for_each_layout(small(), limits, [&](const HybridSpec& h) {
    micro.push_back(h.micro_batch);
    CHECK(h.global_batch == (12 / (4 * h.micro_batch)) * 4 * h.micro_batch);
  });
  CHECK(micro == std::vector<int>{1, 2});
}
