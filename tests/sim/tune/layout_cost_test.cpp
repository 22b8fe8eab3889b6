// The closed-form layout cost against the analytical engine's event-by-event replay of the same layouts.
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "core/scenario/loader.hpp"
#include "models/parallel/layout_space.hpp"
#include "sim/analytical/symmetric.hpp"
#include "sim/tune/layout_cost.hpp"

namespace dtsim::test {
namespace {

std::string scenario_path(const char* name) { return std::string(DTSIM_SOURCE_DIR) + "/scenarios/" + name; }

struct Compared {
  HybridSpec layout;
  double closed = 0;
  double engine = 0;
  double error() const { return (closed - engine) / engine; }
};

std::string describe(const HybridSpec& h) {
  return fmt::format("t{} p{} d{} e{} mb{} {} v{} {} zero{} sp{}", h.tensor, h.pipeline, h.data, h.expert,
                     h.micro_batch, static_cast<int>(h.schedule), h.virtual_stages, recompute_name(h.recompute), h.zero,
                     h.sequence_parallel);
}

// Every `every`-th layout of the space: the closed form and the engine.
std::vector<Compared> compare(const Scenario& base, const LayoutLimits& limits, int every) {
  tune::LayoutCoster coster(base, 0);
  std::vector<HybridSpec> layouts;
  long index = 0;
  for_each_layout(base.job().model.transformer, limits, [&](const HybridSpec& h) {
    if (index++ % every == 0) layouts.push_back(h);
  });
  std::vector<Compared> out;
  for (const HybridSpec& h : layouts) {
    Scenario s = base;
    HybridSpec& job = s.jobs[0].strategy.hybrid;
    const std::string order = job.rank_order;
    job = h;
    job.rank_order = order;
    Compared c{h, coster.cost(h).iteration_s, analytical::run_analytical(s).front().iteration_time.mean};
    out.push_back(c);
  }
  return out;
}

}  // namespace

// Measured 2026-11-27: GPT-3 175B on 64 A100s, 400 layouts: mean |error| 1.7 %, worst 10.6 % (ZeRO-3 with
// interleaving, where the gathers' overlap with the bubble is the form's roughest part); Mixtral 8x7B on 32 A100s.
void check_follows(const std::vector<Compared>& all, double mean_bound, double worst_bound) {
  REQUIRE(all.size() > 20);
  double sum = 0, worst = 0;
  const Compared* at = nullptr;
  for (const Compared& c : all) {
    sum += std::abs(c.error());
    if (std::abs(c.error()) >= worst) {
      worst = std::abs(c.error());
      at = &c;
    }
  }
  const double mean = sum / static_cast<double>(all.size());
  INFO(fmt::format("{} layouts: mean |error| {:.1f} %, worst {:.1f} % ({}: closed {:.3f} s, engine {:.3f} s)",
                   all.size(), 100 * mean, 100 * worst, describe(at->layout), at->closed, at->engine));
  CHECK(mean <= mean_bound);
  CHECK(worst <= worst_bound);
}

TEST_CASE("the closed-form layout cost follows the analytical engine", "[tune]") {
  SECTION("GPT-3 175B on 64 A100s") {
    const Scenario base = load_scenario(scenario_path("gpt3_175b_megatron.yaml"));
    LayoutLimits limits;
    limits.devices = 64;
    limits.global_batch = 64;
    limits.max_micro_batch = 2;
    check_follows(compare(base, limits, 7), 0.03, 0.12);
  }
  SECTION("Mixtral 8x7B (expert parallel) on 32 A100s") {
    const Scenario base = load_scenario(scenario_path("mixtral_moe.yaml"));
    LayoutLimits limits;
    limits.devices = 32;
    limits.global_batch = 64;
    limits.max_micro_batch = 2;
    check_follows(compare(base, limits, 23), 0.03, 0.12);
  }
  SECTION("GPT-3 175B in fp8 on 64 H100s: its fp8 GEMMs at the fp8 rate, as the plan runs them") {
    const Scenario base =
        load_scenario(scenario_path("gpt3_175b_megatron.yaml"), {"cluster.device=h100_sxm", "model.fp8=delayed"});
    LayoutLimits limits;
    limits.devices = 64;
    limits.global_batch = 64;
    limits.max_micro_batch = 2;
    // Measured 2026-11-29: mean |error| 2.6 %, worst 18.4 % (ZeRO-3 with interleaving again); when the closed form
    // priced fp8 GEMMs in the model's dtype, 29.3 % and 53.2 %.
    check_follows(compare(base, limits, 7), 0.03, 0.20);
  }
  SECTION("Mixtral 8x7B in fp8 with fp8 parameters on 32 H100s: ZeRO's gathers at the plan's bytes") {
    const Scenario base =
        load_scenario(scenario_path("mixtral_moe.yaml"),
                      {"cluster.device=h100_sxm", "model.fp8=delayed", "framework.fp8_param_gather=true"});
    LayoutLimits limits;
    limits.devices = 32;
    limits.global_batch = 64;
    limits.max_micro_batch = 2;
    // Measured 2026-11-29: mean |error| 3.0 %, worst 16.3 %; with the parameters gathered in bf16, 2.9 % and 15.9 %.
    check_follows(compare(base, limits, 23), 0.035, 0.20);
  }
}

}  // namespace dtsim::test
