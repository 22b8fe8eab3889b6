// Choosing the shrunk layout and writing it, with the small model, as overrides.
#include "real/hybrid_shrink.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "core/plan/hybrid/job.hpp"

namespace dtsim::real {
namespace {

struct Layout {
  int tensor = 1, context = 1, pipeline = 1, expert = 1, data = 1;
};

// (dimensions of the scenario kept above 1, model-parallel ranks, tensor size): larger is better.
std::tuple<int, int, int> score(const HybridSpec& h, const Layout& l) {
  const int kept = (h.tensor > 1 && l.tensor > 1) + (h.context > 1 && l.context > 1) +
                   (h.pipeline > 1 && l.pipeline > 1) + (h.expert > 1 && l.expert > 1) + (h.data > 1 && l.data > 1);
  return {kept, l.tensor * l.context * l.pipeline * l.expert, l.tensor};
}

}  // namespace

std::vector<std::vector<std::string>> hybrid_shrinks(const Scenario& s, int world) {
  if (s.jobs.size() != 1 || world < 1) return {};
  const JobSpec& job = s.jobs.front();
  if (job.strategy.kind != StrategyKind::Hybrid || !job.model.is_transformer) return {};
  const HybridSpec h = job_layout(s, job);  // data resolved
  const TransformerSpec& m = job.model.transformer;
  std::vector<Layout> layouts;
  for (int t = 1; t <= h.tensor; ++t) {
    for (int c = 1; c <= h.context; ++c) {
      for (int p = 1; p <= h.pipeline; ++p) {
        if (world % (t * c * p) != 0) continue;
        const int d = world / (t * c * p);
        for (int e = 1; e <= std::min(h.expert, d * c); ++e) {
          if ((d * c) % e == 0 && (m.experts > 0 || e == 1)) layouts.push_back(Layout{t, c, p, e, d});
        }
      }
    }
  }
  std::stable_sort(layouts.begin(), layouts.end(),
                   [&h](const Layout& a, const Layout& b) { return score(h, a) > score(h, b); });
  std::vector<std::vector<std::string>> out;
  for (const Layout& best : layouts) {
    // Interleaving needs more than one stage.
    const bool interleaved = h.schedule == PipelineSchedule::Interleaved && best.pipeline > 1;
    const int chunks = interleaved ? h.virtual_stages : 1;
    std::vector<std::string> sets = {
        "cluster.nodes=1",
        fmt::format("cluster.devices_per_node={}", world),
        fmt::format("strategy.tensor={}", best.tensor),
        fmt::format("strategy.context={}", best.context),
        fmt::format("strategy.pipeline.stages={}", best.pipeline),
        fmt::format("strategy.expert={}", best.expert),
        "strategy.data=0",
        fmt::format("strategy.sequence_parallel={}", h.sequence_parallel && best.tensor > 1),
        "strategy.micro_batch=1",
        fmt::format("strategy.global_batch={}", best.data * 2 * best.pipeline),
        fmt::format("model.transformer.layers={}", 2 * best.pipeline * chunks),
        "model.transformer.hidden=256",
        fmt::format("model.transformer.heads={}", 4 * best.tensor),
        fmt::format("model.transformer.kv_heads={}", m.kv_heads > 0 && m.kv_heads < m.heads ? best.tensor : 0),
        "model.transformer.ffn=0",
        fmt::format("model.transformer.seq_len={}", 128 * best.context),
        "model.transformer.positions=0",
        "model.transformer.vocab=2048",
    };
    if (h.schedule == PipelineSchedule::Interleaved && !interleaved) {
      sets.push_back("strategy.pipeline.schedule=1f1b");
      sets.push_back("strategy.pipeline.virtual_stages=1");
    }
    if (m.experts > 0) {
      const int experts = 2 * best.expert;
      sets.push_back(fmt::format("model.transformer.experts={}", experts));
      sets.push_back(fmt::format("model.transformer.top_k={}", std::min(m.top_k, experts)));
    }
    out.push_back(std::move(sets));
  }
  return out;
}

}  // namespace dtsim::real
