// Display-free tests of the viewer's model: zoom and pan arithmetic, level-of-detail
// aggregation, kinds and colours, JSON scanning, trace parsing, micro-batch spans and the
// representative rank of each pipeline stage.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

#include "gui/model/format.hpp"
#include "gui/model/json_scanner.hpp"
#include "gui/model/kinds.hpp"
#include "gui/model/lane_layout.hpp"
#include "gui/model/lod.hpp"
#include "gui/model/time_axis.hpp"
#include "gui/model/trace_model.hpp"
#include "gui_fixtures.hpp"

using namespace dtsim::gui;

TEST_CASE("zooming around the cursor keeps the time under it fixed") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < 1000; ++i) {
    TimeAxis a(u(rng) * 1e6 - 5e5, std::pow(10, u(rng) * 8 - 4));
    const double x = u(rng) * 1600;
    const double before = a.time_at(x);
    a.zoom_at(x, std::pow(1.25, u(rng) * 8 - 4));
    CHECK(a.time_at(x) == Approx(before).epsilon(1e-9).margin(1e-9 * std::fabs(before) + 1e-9));
  }
}

TEST_CASE("panning moves the content by the dragged pixels") {
  TimeAxis a(1000, 2.5);
  const double t = 4321;
  const double x = a.x_of(t);
  a.pan_px(37);
  CHECK(a.x_of(t) == Approx(x + 37));
  a.pan_px(-100);
  CHECK(a.x_of(t) == Approx(x - 63));
}

TEST_CASE("fit shows the whole span in the width") {
  TimeAxis a;
  a.fit(100, 1100, 1000, 0.0);
  CHECK(a.x_of(100) == Approx(0));
  CHECK(a.x_of(1100) == Approx(1000));
  a.fit(0, 50, 500);
  CHECK(a.x_of(0) > 0);
  CHECK(a.x_of(50) < 500);
  CHECK(nice_step(0.7) == Approx(1));
  CHECK(nice_step(130) == Approx(200));
}

TEST_CASE("level of detail keeps every op visible as at least one pixel (random property)") {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const Trace trace = parse_trace(dtsim::test::random_trace_text(seed, 3, 3000));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    const int width = 200 + static_cast<int>(rng() % 1500);
    TimeAxis axis;
    axis.fit(trace.t_min, trace.t_max, width);
    if (seed % 2) axis.zoom_at(u(rng) * width, 1 + u(rng) * 200);  // also zoomed into a part
    for (size_t l = 0; l < trace.lanes.size(); ++l) {
      REQUIRE(!trace.lanes[l].levels.empty());
      std::vector<LodRect> rects;
      // What the renderer draws: the coarsened levels when zoomed out, the events when zoomed in.
      aggregate_lane_auto(trace, l, axis, width, {}, rects);
      std::vector<int> painted(width, 0);
      for (size_t i = 0; i < rects.size(); ++i) {
        REQUIRE(rects[i].x0 < rects[i].x1);
        REQUIRE(rects[i].x0 >= 0);
        REQUIRE(rects[i].x1 <= width);
        if (i) REQUIRE(rects[i - 1].x1 <= rects[i].x0);  // sorted, never overlapping
        for (int x = rects[i].x0; x < rects[i].x1; ++x) ++painted[x];
      }
      CHECK(rects.size() <= static_cast<size_t>(width));
      for (const TraceEvent& e : trace.lane_events(l)) {
        int c0 = 0, c1 = 0;
        if (!event_columns(e, axis, width, c0, c1)) continue;
        bool seen = false;
        for (int x = c0; x <= c1 && !seen; ++x) seen = painted[x] > 0;
        REQUIRE(seen);
      }
    }
  }
}

TEST_CASE("coarser levels merge ops into blocks no wider than their span") {
  const Trace trace = parse_trace(dtsim::test::random_trace_text(5, 1, 5000));
  const Lane& lane = trace.lanes[0];
  REQUIRE(lane.levels.size() >= 2);
  size_t previous = trace.events.size();
  for (const LodLevel& level : lane.levels) {
    CHECK(level.blocks.size() * 2 <= previous);
    previous = level.blocks.size();
    for (const TraceEvent& b : level.blocks) {
      // A block wider than its span is a single op longer than the span.
      if (b.dur > level.max_span) CHECK(b.dur <= 5000);
    }
  }
}

TEST_CASE("level of detail draws a long op as one run in its own kind and honours the filter") {
  const Trace t = parse_trace(R"({"traceEvents":[
    {"name":"a","cat":"forward","ph":"X","ts":0,"dur":100,"pid":0,"tid":0,"args":{"kind":"compute"}},
    {"name":"b","cat":"wait","ph":"X","ts":100,"dur":0.01,"pid":0,"tid":0,"args":{"kind":"wait"}},
    {"name":"c","cat":"backward","ph":"X","ts":300,"dur":100,"pid":0,"tid":0,"args":{"kind":"compute"}}]})");
  TimeAxis axis(0, 1);  // 1 us per pixel
  std::vector<LodRect> rects;
  aggregate_lane(t.lane_events(0), t.lanes[0].max_end, axis, 1000, {}, rects);
  REQUIRE(rects.size() == 3);
  CHECK(rects[0].x0 == 0);
  CHECK(rects[0].x1 == 100);
  CHECK(t.kinds.info(rects[0].kind).name == "forward");
  CHECK(t.kinds.info(rects[1].kind).name == "waiting");  // 10 ns still gets its pixel
  CHECK(rects[2].x0 == 300);
  const std::vector<uint8_t> keep{1, 0, 1};
  rects.clear();
  aggregate_lane(t.lane_events(0), t.lanes[0].max_end, axis, 1000, keep, rects);
  CHECK(rects.size() == 2);
}

TEST_CASE("kinds: classification, presets and stable hashed colours") {
  CHECK(classify_kind("waiting", "wait", "wait") == "waiting");
  CHECK(classify_kind("exposed communication", "exposed", "exposed") == "exposed");  // the summary's category
  CHECK(classify_kind("fwd conv1", "forward", "compute") == "forward");
  CHECK(classify_kind("bwd", "backward", "compute") == "backward");
  CHECK(classify_kind("ar", "communication", "allreduce") == "allreduce");
  CHECK(classify_kind("push", "communication", "send") == "send");
  CHECK(classify_kind("x", "", "pull") == "recv");
  KindTable k;
  const auto w = k.intern("waiting");
  const auto f = k.intern("forward");
  CHECK(k.info(w).colour == 0xe31a1c);
  CHECK(k.info(f).colour != k.info(w).colour);
  CHECK(k.intern("waiting") == w);
  const auto u = k.intern("quantum_gossip");
  CHECK(k.info(u).colour == hashed_colour("quantum_gossip"));
  CHECK(hashed_colour("quantum_gossip") == hashed_colour(std::string("quantum_") + "gossip"));
  CHECK(hashed_colour("a") != hashed_colour("b"));
  for (const char* name :
       {"failure", "restart", "compress", "decompress", "reduce_scatter", "allgather", "gossip", "gate", "quorum"}) {
    bool known = false;
    known_kind_colour(name, known);
    CHECK(known);
  }
}

TEST_CASE("trace parsing: metadata, lane order, escapes, quoted numbers, iteration starts, hit tests") {
  const Trace t = parse_trace(R"({"otherData":{"scenario":"s\"q"},"traceEvents":[
    {"name":"process_name","ph":"M","pid":1,"args":{"name":"node 1"}},
    {"name":"process_name","ph":"M","pid":0,"args":{"name":"node 0"}},
    {"name":"thread_name","ph":"M","pid":0,"tid":5,"args":{"name":"rank 0 comm"}},
    {"name":"thread_sort_index","ph":"M","pid":0,"tid":5,"args":{"sort_index":1}},
    {"name":"thread_sort_index","ph":"M","pid":0,"tid":3,"args":{"sort_index":0}},
    {"name":"ar\u00e9\n","cat":"communication","ph":"X","ts":"10.5","dur":5,"pid":0,"tid":5,"args":{"rank":0,"iteration":1,"kind":"allreduce","bytes":1e6}},
    {"name":"fwd","cat":"forward","ph":"X","ts":2,"dur":3,"pid":0,"tid":3,"args":{"rank":0,"iteration":0,"kind":"compute","flops":2e9}},
    {"name":"fwd","cat":"forward","ph":"X","ts":7,"dur":3,"pid":1,"tid":9,"args":{"rank":1,"iteration":1,"kind":"compute"}},
    {"name":"ignored","ph":"i","ts":1,"pid":0,"tid":3}
  ]})");
  CHECK(t.scenario == "s\"q");
  REQUIRE(t.lanes.size() == 3);
  CHECK(t.lanes[0].tid == 3);
  CHECK(t.lanes[1].name == "rank 0 comm");
  CHECK(t.lanes[2].process_name == "node 1");
  CHECK(t.events.size() == 3);
  CHECK(t.strings.at(t.events[1].name) == "ar\xc3\xa9\n");
  CHECK(t.events[1].start == 10.5);
  CHECK(t.rank_count() == 2);
  REQUIRE(t.iteration_starts.size() == 2);
  CHECK(t.iteration_starts[0] == 2);
  CHECK(t.iteration_starts[1] == 7);
  CHECK(t.find_event(0, 3, 0) == 0);
  CHECK(t.find_event(0, 100, 1) == -1);
  const auto details = event_details(t, 0);
  CHECK(details[0].second == "fwd");
  CHECK(parse_trace(R"([{"name":"x","ph":"X","ts":1,"dur":2,"pid":0,"tid":0}])").events.size() == 1);
  CHECK_THROWS_AS(parse_trace(R"({"traceEvents":[{"name":)"), ParseError);
  CHECK_THROWS_AS(parse_trace(R"({"foo":1})"), ParseError);
  const Trace sub = subset_trace(t, {1});
  REQUIRE(sub.lanes.size() == 1);
  CHECK(sub.strings.at(sub.events[0].name) == "fwd");
  CHECK(sub.t_min == 7);
}

TEST_CASE("lane layout: headers per node, rows found by pixel") {
  const Trace t = parse_trace(dtsim::test::random_trace_text(3, 4, 10));
  const LaneLayout l(t, 12, 16);
  CHECK(l.lane_count() == 4);
  CHECK(l.rows().size() == 6);  // 2 nodes: 2 headers + 4 lanes
  CHECK(l.total_height() == 2 * 16 + 4 * 12);
  CHECK(l.lane_at(0) == -1);
  CHECK(l.lane_at(16) == 0);
  CHECK(l.lane_at(16 + 12) == 1);
  CHECK(l.lane_at(10000) == -1);
  const LaneLayout compact(t, 4, 0);
  CHECK(compact.rows()[0].group_height == 8);
  CHECK(LaneLayout::fitting_lane_height(1000, 100, 0, 0, 3, 18) == 10);
}

TEST_CASE("formatting") {
  CHECK(format_duration_us(1500) == "1.5 ms");
  CHECK(format_duration_us(2.5e6) == "2.5 s");
  CHECK(format_bytes(25e6) == "25 MB");
  CHECK(format_flops(3.1e9) == "3.1 GFLOP");
}

TEST_CASE("pipeline traces: stage and micro-batch args, micro-batch spans by pass, recompute has its colour") {
  const Trace t = parse_trace(R"({"traceEvents":[
    {"name":"process_name","ph":"M","pid":1,"args":{"name":"pipeline stage 1"}},
    {"name":"fwd L2 qkv mb0","cat":"forward","ph":"X","ts":0,"dur":10,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":0}},
    {"name":"fwd L2 allreduce mb0","cat":"communication","ph":"X","ts":10,"dur":5,"pid":1,"tid":0,"args":{"rank":2,"kind":"allreduce","stage":1,"micro_batch":0}},
    {"name":"fwd L2 fc1 mb0","cat":"forward","ph":"X","ts":15,"dur":10,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":0}},
    {"name":"fwd L2 qkv mb1","cat":"forward","ph":"X","ts":25,"dur":10,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":1}},
    {"name":"waiting","cat":"wait","ph":"X","ts":35,"dur":20,"pid":1,"tid":0,"args":{"rank":2,"kind":"wait"}},
    {"name":"recv grad mb0","cat":"communication","ph":"X","ts":55,"dur":5,"pid":1,"tid":0,"args":{"rank":2,"kind":"recv","stage":1,"micro_batch":0}},
    {"name":"recompute L2 qkv recompute mb0","cat":"recompute","ph":"X","ts":60,"dur":10,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":0}},
    {"name":"bwd L2 fc1 bwd mb0","cat":"backward","ph":"X","ts":70,"dur":20,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":0}},
    {"name":"recompute L1 qkv recompute mb0","cat":"recompute","ph":"X","ts":90,"dur":10,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":0}},
    {"name":"bwd L1 qkv bwd mb0","cat":"backward","ph":"X","ts":100,"dur":10,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":0}},
    {"name":"optimizer step","cat":"optimizer","ph":"X","ts":110,"dur":5,"pid":1,"tid":0,"args":{"rank":2,"kind":"update","stage":1}},
    {"name":"recompute L0 qkv recompute mb1","cat":"recompute","ph":"X","ts":115,"dur":5,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":1}},
    {"name":"fwd L2 qkv mb2","cat":"forward","ph":"X","ts":120,"dur":5,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":2}},
    {"name":"bwd L2 qkv bwd mb2","cat":"backward","ph":"X","ts":125,"dur":5,"pid":1,"tid":0,"args":{"rank":2,"kind":"compute","stage":1,"micro_batch":2}}
  ]})");
  REQUIRE(t.lanes.size() == 1);
  CHECK(t.has_stages());
  CHECK(t.lanes[0].stage == 1);
  CHECK(t.lanes[0].process_name == "pipeline stage 1");
  CHECK(t.events[0].stage == 1);
  CHECK(t.events[0].micro_batch == 0);
  CHECK(t.events[3].micro_batch == 1);
  CHECK(t.events[4].micro_batch == -1);  // the wait
  CHECK(t.events[4].stage == -1);
  const auto& spans = t.lanes[0].micro_batches;
  REQUIRE(spans.size() == 6);
  auto kind = [&](const MicroBatchSpan& s) { return t.kinds.info(s.kind).name; };
  // Forward of mb 0 with the all-reduce inside it; forward of mb 1; after the wait, the backward
  // of mb 0: the receive that starts it and the recompute before and between its layers.
  CHECK(spans[0].micro_batch == 0);
  CHECK(kind(spans[0]) == "forward");
  CHECK(spans[0].last - spans[0].first == 3);
  CHECK(spans[0].start == 0);
  CHECK(spans[0].end == 25);
  CHECK(spans[1].micro_batch == 1);
  CHECK(spans[1].last - spans[1].first == 1);
  CHECK(spans[2].micro_batch == 0);
  CHECK(kind(spans[2]) == "backward");
  CHECK(spans[2].start == 55);
  CHECK(spans[2].end == 110);
  CHECK(spans[2].last - spans[2].first == 5);
  // A recompute alone names its span; a forward and a backward of one micro-batch are two.
  CHECK(kind(spans[3]) == "recompute");
  CHECK(spans[3].micro_batch == 1);
  CHECK(kind(spans[4]) == "forward");
  CHECK(kind(spans[5]) == "backward");
  CHECK(spans[5].micro_batch == 2);
  CHECK(t.micro_batch_span(1) == &spans[0]);
  CHECK(t.micro_batch_span(4) == nullptr);  // the wait belongs to none
  CHECK(t.micro_batch_span(8) == &spans[2]);
  CHECK(t.micro_batch_span(10) == nullptr);  // the optimizer step neither
  CHECK(t.micro_batch_span(11) == &spans[3]);
  // The tooltip's details name the stage, the micro-batch and the pass.
  std::map<std::string, std::string> d;
  for (const auto& [k, v] : event_details(t, 1)) d[k] = v;
  CHECK(d["stage"] == "1");
  CHECK(d["micro-batch"] == "0");
  CHECK(d["rank"] == "2");
  CHECK(d["micro-batch pass"] == "forward of mb 0: 25 us from 0 us (3 ops)");
  // Recompute is its own kind with its own colour, not forward's.
  const int recompute = t.kinds.find("recompute");
  REQUIRE(recompute >= 0);
  CHECK(t.kinds.info(recompute).colour != t.kinds.info(t.kinds.find("forward")).colour);
  CHECK(classify_kind("recompute L5 qk^T recompute mb2", "recompute", "compute") == "recompute");
  bool known = false;
  known_kind_colour("recompute", known);
  CHECK(known);
  // A data-parallel trace has neither stages nor spans.
  const Trace dp = parse_trace(dtsim::test::random_trace_text(2, 2, 20));
  CHECK_FALSE(dp.has_stages());
  CHECK(dp.lanes[0].micro_batches.empty());
  // The subset of one job keeps its spans.
  const Trace sub = subset_trace(t, {2});
  CHECK(sub.lanes[0].micro_batches.size() == 6);
}

TEST_CASE("one representative rank per pipeline stage: lanes, headers, the default") {
  const Trace t = parse_trace(dtsim::test::pipeline_trace_text(2, 4, 3));
  REQUIRE(t.lanes.size() == 16);
  CHECK(t.has_stages());
  const auto shown = stage_representative_lanes(t);
  REQUIRE(shown.size() == t.lanes.size());
  std::set<int> ranks;
  int lanes = 0;
  for (size_t i = 0; i < shown.size(); ++i) {
    if (!shown[i]) continue;
    ranks.insert(t.lanes[i].rank);
    ++lanes;
  }
  CHECK(ranks == std::set<int>{0, 4});  // the lowest rank of each stage
  CHECK(lanes == 4);                    // with both its lanes
  int headers = 0, counted = 0;
  LaneLayout::count_rows(t, shown, headers, counted);
  CHECK(headers == 2);
  CHECK(counted == 4);
  const LaneLayout l(t, 12, 16, {}, shown);
  CHECK(l.lane_count() == 4);
  CHECK(l.rows().size() == 6);
  CHECK(l.rows()[0].lane == -1);
  CHECK(l.rows()[0].label == "pipeline stage 0  ·  1 of 4 ranks shown: rank 0 (R: all)");
  CHECK(l.rows()[3].label == "pipeline stage 1  ·  1 of 4 ranks shown: rank 4 (R: all)");
  CHECK(l.total_height() == 2 * 16 + 4 * 12);
  // All lanes: the headers say nothing of hidden ranks.
  const LaneLayout all(t, 12, 16);
  CHECK(all.lane_count() == 16);
  CHECK(all.rows()[0].label == "pipeline stage 0");
  // On by default only past 16 ranks.
  CHECK_FALSE(prefer_stage_representatives(t));
  CHECK(prefer_stage_representatives(t, 4));
  CHECK(prefer_stage_representatives(parse_trace(dtsim::test::pipeline_trace_text(4, 8, 1))));
  // A trace without stages shows everything.
  const Trace dp = parse_trace(dtsim::test::random_trace_text(3, 40, 5));
  CHECK(stage_representative_lanes(dp).empty());
  CHECK_FALSE(prefer_stage_representatives(dp));
  // Every micro-batch's forward and backward is one span on each compute lane.
  for (const auto& lane : t.lanes) {
    if (lane.micro_batches.empty()) continue;
    REQUIRE(lane.micro_batches.size() == 6);
    CHECK(t.kinds.info(lane.micro_batches[0].kind).name == "forward");
    CHECK(t.kinds.info(lane.micro_batches[5].kind).name == "backward");
    CHECK(lane.micro_batches[5].micro_batch == 2);
  }
}
