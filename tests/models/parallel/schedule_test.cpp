// Pipeline schedules: each one's order runs every micro-batch once, its warm-up and peak memory are
// the published ones, and played with equal stages and free communication it leaves the
// published bubble: (p-1)/(m+p-1) for GPipe and 1F1B, (p-1)/(v m+p-1) interleaved.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "models/parallel/memory.hpp"
#include "models/parallel/schedule.hpp"

using namespace dtsim;

namespace {

// Plays the schedule of every pipeline rank: a step starts when the rank's previous step and its
// input (the previous global stage's forward, or the next one's backward, of the micro-batch) have
// ended; a chunk's forward takes f / v, its backward b / v. Returns the time the last step ends.
double play(PipelineSchedule kind, int p, int m, int v, double f, double b) {
  const ScheduleTraits& s = find_schedule(kind);
  std::vector<std::vector<PipelineStep>> orders;
  for (int i = 0; i < p; ++i) orders.push_back(s.order(i, p, m, v));
  std::map<std::tuple<bool, int, int>, double> done;  // (backward, micro-batch, global stage) -> end
  std::vector<size_t> next(p, 0);
  std::vector<double> free(p, 0.0);
  const int stages = p * v;
  bool progress = true;
  while (progress) {
    progress = false;
    for (int i = 0; i < p; ++i) {
      while (next[i] < orders[i].size()) {
        const PipelineStep& st = orders[i][next[i]];
        const int g = st.chunk * p + i;
        double ready = free[i];
        if (!st.backward && g > 0) {
          const auto in = done.find({false, st.micro_batch, g - 1});
          if (in == done.end()) break;
          ready = std::max(ready, in->second);
        }
        if (st.backward) {
          const auto in =
              g == stages - 1 ? done.find({false, st.micro_batch, g}) : done.find({true, st.micro_batch, g + 1});
          if (in == done.end()) break;
          ready = std::max(ready, in->second);
        }
        free[i] = ready + (st.backward ? b : f) / v;
        done[{st.backward, st.micro_batch, g}] = free[i];
        ++next[i];
        progress = true;
      }
    }
  }
  for (int i = 0; i < p; ++i) REQUIRE(next[i] == orders[i].size());  // no deadlock
  return *std::max_element(free.begin(), free.end());
}

}  // namespace

TEST_CASE("every schedule runs each micro-batch's forward once, then its backward once", "[schedule]") {
  for (const ScheduleTraits& s : pipeline_schedules()) {
    const int v = s.kind == PipelineSchedule::Interleaved ? 3 : 1;
    for (int stage = 0; stage < 4; ++stage) {
      const auto order = s.order(stage, 4, 8, v);
      std::map<std::pair<int, int>, int> seen;  // (mb, chunk) -> 1 after forward, 2 after backward
      for (const PipelineStep& st : order) {
        int& state = seen[{st.micro_batch, st.chunk}];
        CHECK(state == (st.backward ? 1 : 0));
        state += 1;
      }
      CHECK(static_cast<int>(seen.size()) == 8 * v);
      for (const auto& [key, state] : seen) CHECK(state == 2);
    }
  }
}

TEST_CASE("1f1b warms up p - i - 1 forwards and holds at most p - i micro-batches", "[schedule]") {
  for (int stage = 0; stage < 4; ++stage) {
    const auto order = schedules::one_f_one_b_order(stage, 4, 8, 1);
    int warmup = 0;
    while (!order[warmup + 1].backward) ++warmup;  // the forwards before the first 1F1B pair
    CHECK(warmup == 4 - stage - 1);
    CHECK(peak_in_flight(order) == 4 - stage);
  }
  CHECK(peak_in_flight(schedules::one_f_one_b_order(0, 8, 3, 1)) == 3);  // fewer micro-batches than stages
  CHECK(peak_in_flight(schedules::gpipe_order(0, 4, 8, 1)) == 8);
}

TEST_CASE("interleaving holds p v + p - 1 chunk-micro-batches on the first stage (Korthikanti eq. 5)", "[schedule]") {
  // (1 + (p-1)/(p v)) times the L layers of 1F1B: p v + p - 1 chunks of L / (p v) layers.
  for (int v : {2, 3, 4}) {
    const int p = 4;
    CHECK(peak_in_flight(schedules::interleaved_order(0, p, 8, v)) == p * v + p - 1);
  }
}

TEST_CASE("the memory model holds the micro-batches each schedule keeps in flight", "[schedule][memory]") {
  // GPipe m; 1F1B p - i (Narayanan et al. 2021); interleaved Megatron's warm-up (p - i - 1) 2 +
  // (v - 1) p plus one, or all m v chunk-micro-batches when m = p (its all-warm-up case).
  MemoryInputs in;
  in.model.layers = 24;
  in.model.hidden = 256;
  in.model.heads = 8;
  in.model.seq_len = 128;
  in.model.vocab = 1000;
  in.layout.pipeline = 4;
  in.layout.data = 1;
  const int p = 4;
  for (int m : {4, 8}) {
    in.layout.global_batch = m;
    for (const ScheduleTraits& s : pipeline_schedules()) {
      in.layout.schedule = s.kind;
      const int v = s.kind == PipelineSchedule::Interleaved ? 2 : 1;
      in.layout.virtual_stages = v;
      const auto stages = stage_memory(in);
      for (int i = 0; i < p; ++i) {
        INFO(s.name << " m " << m << " stage " << i);
        int expected = m;
        if (s.kind == PipelineSchedule::OneFOneB) expected = p - i;
        if (s.kind == PipelineSchedule::Interleaved) expected = m == p ? m * v : (p - i - 1) * 2 + (v - 1) * p + 1;
        CHECK(stages[i].micro_batches_in_flight == expected);
      }
    }
  }
}

TEST_CASE("equal stages and free communication leave the published bubble", "[schedule]") {
  const double f = 1.0;
  const double b = 2.0;
  for (int p : {2, 4, 8}) {
    for (int m : {8, 16, 32}) {
      for (PipelineSchedule kind : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
        const double t = play(kind, p, m, 1, f, b);
        CHECK(t == Approx((m + p - 1) * (f + b)));
        CHECK(1 - m * (f + b) / t == Approx(static_cast<double>(p - 1) / (m + p - 1)));
      }
      for (int v : {2, 4}) {
        const double t = play(PipelineSchedule::Interleaved, p, m, v, f, b);
        CHECK(1 - m * (f + b) / t == Approx(static_cast<double>(p - 1) / (v * m + p - 1)));
      }
    }
  }
}

TEST_CASE("interleaving refuses micro-batches that are not a multiple of the stages", "[schedule]") {
  CHECK(schedules::interleaved_refusal(4, 6, 2).find("multiple of the pipeline stages (4)") != std::string::npos);
  CHECK(schedules::interleaved_refusal(4, 8, 2).empty());
}
