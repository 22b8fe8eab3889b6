// Tokens/s, MFU and HFU in a run's metrics (core/plan/job_flops.hpp) against closed forms and against tune: the
// model FLOPs of a GPT are Narayanan et al.'s (2021, section 5.1) 72 B s l h^2 (1 + s/6h + V/12lh) per iteration,
// full recompute adds each block's forward (96 B s l h^2 (1 + s/6h + V/16lh)); a run's MFU is tune's MFU of the same
// layout; the symmetric fast path (a plan of representatives) and a run of every rank agree.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/scenario/loader.hpp"
#include "sim/run.hpp"
#include "sim/tune/tuner.hpp"
#include "tests/support/hybrid_job.hpp"
#include "tests/support/run_analytical.hpp"

namespace dtsim::test {
namespace {

// A GPT-3-shaped model (h 6144, s 2048, l 4, V 51200; attention's s/6h and the head's V/12lh both matter) on 2 nodes
// of 4 A100s.
Scenario gpt(const std::vector<std::string>& more) {
  std::vector<std::string> sets{"model.transformer.layers=4",    "model.transformer.hidden=6144",
                                "model.transformer.heads=48",    "model.transformer.seq_len=2048",
                                "model.transformer.vocab=51200", "strategy.tensor=4",
                                "strategy.pipeline=2",           "strategy.micro_batch=1",
                                "strategy.global_batch=8",       "model.transformer.tied_embeddings=false"};
  sets.insert(sets.end(), more.begin(), more.end());
  return hybrid_job(sets);
}

Metrics metrics_of(const Scenario& s) { return sim::run(s, {}).metrics.front(); }

}  // namespace

TEST_CASE("MFU counts Narayanan's model FLOPs and HFU adds full recompute's forward", "[utilisation]") {
  const double s = 2048, l = 4, h = 6144, V = 51200, B = 8;
  const double model = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  const double with_recompute = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  const Metrics none = metrics_of(gpt({"strategy.recompute=none"}));
  const Metrics full = metrics_of(gpt({"strategy.recompute=full"}));
  const double peak = 8 * 312e12;  // 8 A100s, bf16 dense
  REQUIRE(none.mfu);
  REQUIRE(full.hfu);
  CHECK(none.peak_flops == Approx(peak));
  // The matmuls of the closed form, the attention core counted whole (the causal kernel skips half of it).
  CHECK(*none.mfu == Approx(model / none.iteration_time.mean / peak).epsilon(1e-9));
  CHECK(*full.mfu == Approx(model / full.iteration_time.mean / peak).epsilon(1e-9));
  // Without recompute HFU is MFU; full recompute runs each block's forward twice, the head once.
  CHECK(*none.hfu == Approx(*none.mfu).epsilon(1e-12));
  CHECK(*full.hfu / *full.mfu == Approx(with_recompute / model).epsilon(1e-9));
  CHECK(full.iteration_time.mean > none.iteration_time.mean);
}

TEST_CASE("tokens/s is samples/s times the sequence, and per device over the job's workers", "[utilisation]") {
  const Metrics m = metrics_of(gpt({}));
  REQUIRE(m.tokens_per_s);
  CHECK(*m.tokens_per_s == Approx(m.throughput_samples_per_s * 2048));
  CHECK(*m.tokens_per_s_per_device == Approx(*m.tokens_per_s / 8));
  CHECK(m.throughput_samples_per_s == Approx(8 / m.iteration_time.mean));
}

TEST_CASE("a model without a sequence has MFU but no tokens, a synthetic model's MFU is 3 x its forward FLOPs",
          "[utilisation]") {
  const Scenario s = load_scenario_text(R"(name: synthetic
model: {name: synthetic, synthetic: {params: 1e8, flops_per_sample: 2e11, layers: 4}, batch_per_worker: 16, dtype: fp16}
cluster: {nodes: 2, devices_per_node: 4, device: a100_80gb}
run: {iterations: 3, warmup: 1, engine: analytical}
)",
                                        "synthetic.yaml");
  const Metrics m = metrics_of(s);
  CHECK_FALSE(m.tokens_per_s);
  REQUIRE(m.mfu);
  CHECK(*m.mfu == Approx(3 * 2e11 * m.throughput_samples_per_s / (8 * 312e12)));
  CHECK(*m.hfu == *m.mfu);  // nothing recomputed
}

TEST_CASE("a run's MFU is tune's MFU of the same layout on the same engine", "[utilisation]") {
  const Scenario s = gpt({});
  tune::TuneRequest request;
  request.limits = s.job().tune.limits;
  request.top = 0;
  request.screen = 3;
  const tune::TuneResult r = tune::tune(s, request);
  REQUIRE_FALSE(r.ranked.empty());
  for (const tune::Candidate& c : r.ranked) {
    if (c.analytical_s <= 0) continue;
    const Metrics m = metrics_of(tune::with_layout(s, c.layout, Engine::Analytical, c.devices));
    INFO(fmt::format("{}", fmt::join(r.overrides(c), " ")));
    REQUIRE(m.mfu);
    CHECK(m.iteration_time.mean == Approx(c.analytical_s).epsilon(1e-9));
    CHECK(*m.mfu == Approx(r.mfu(c)).epsilon(1e-9));
  }
}

TEST_CASE("a plan of representatives and a plan of every rank give the same utilisation", "[utilisation]") {
  for (const char* recompute : {"none", "selective", "full"}) {
    const Scenario s = gpt({std::string("strategy.recompute=") + recompute, "strategy.data=1"});
    const Metrics fast = metrics_of(s);               // the symmetric fast path
    const Metrics every = run_analytical(s).front();  // every rank compiled and run
    INFO(recompute);
    REQUIRE(fast.mfu);
    REQUIRE(every.mfu);
    CHECK(fast.peak_flops == Approx(every.peak_flops));
    CHECK(*fast.hfu / *fast.mfu == Approx(*every.hfu / *every.mfu).epsilon(1e-9));
    CHECK(*fast.tokens_per_s_per_device == Approx(*every.tokens_per_s_per_device).epsilon(1e-6));
    CHECK(*fast.mfu == Approx(*every.mfu).epsilon(1e-6));
  }
}

}  // namespace dtsim::test
