// The pipeline bubble on the analytical engine: with equal stages and free communication, an
// iteration of m micro-batches over p stages takes (m + p - 1)(f + b) (GPipe, 1F1B) or
// (m + (p-1)/v)(f + b) (interleaved over v chunks), f and b one stage's forward and backward of a
// micro-batch (Narayanan et al. 2021, section 2.2), plus the optimizer step after the flush. The
// blocks are wide and the vocabulary tiny so that the first and last stages' embedding and
// output layer are within 1 % of a stage.
#include <catch2/catch.hpp>

#include <map>

#include "core/plan/compiler.hpp"
#include "sim/analytical/engine.hpp"
#include "tests/support/hybrid_job.hpp"

using namespace dtsim;

namespace {

struct Timing {
  double iteration = 0;   // the last iteration's span
  double stage_work = 0;  // a middle stage's forward and backward compute in it (m (f + b))
  double optimizer = 0;   // from the pipeline's flush (the last backward's end) to the iteration's end
};

Timing run(const std::vector<std::string>& layout) {
  std::vector<std::string> sets{"cluster.nodes=1", "cluster.devices_per_node=4", "model.transformer.vocab=8",
                                "cluster.intra_node.rate=100TB/s", "cluster.intra_node.latency=0us",
                                "cluster.nic.latency=0us", "strategy.global_batch=8", "model.transformer.hidden=4096",
                                "model.transformer.heads=32",
                                // One fraction of peak for every kernel: the embedding's and output
                                // layer's memory-bound kernels stay small beside a stage's GEMMs.
                                "cluster.efficiency=0.5"};
  sets.insert(sets.end(), layout.begin(), layout.end());
  const Scenario s = test::hybrid_job(sets);
  const Plan plan = compile_plan(s);
  Recorder rec;
  analytical::AnalyticalExecutor(s.cluster).run(plan, rec);
  const int last = plan.warmup + plan.iterations - 1;
  double lo = 1e300, hi = 0, flushed = 0;
  Timing t;
  for (const OpRecord& r : rec.records()) {
    if (r.iteration != last) continue;
    lo = std::min(lo, r.start);
    hi = std::max(hi, r.end);
    const Op& op = plan.ranks[r.rank].ops[r.op];
    const bool work = op.phase == Phase::Forward || op.phase == Phase::Backward;
    if (work) flushed = std::max(flushed, r.end);
    if (work && plan.ranks[r.rank].stage == 1) t.stage_work += r.end - r.start;
  }
  t.iteration = hi - lo;
  t.optimizer = hi - flushed;
  return t;
}

}  // namespace

TEST_CASE("equal stages and free communication give the published pipeline bubble", "[hybrid]") {
  const int p = 4, m = 8;
  for (const char* schedule : {"gpipe", "1f1b"}) {
    const Timing t = run({"strategy.pipeline=4", std::string("strategy.pipeline.schedule=") + schedule});
    const double per_micro_batch = t.stage_work / m;
    CHECK(t.iteration - t.optimizer == Approx((m + p - 1) * per_micro_batch).epsilon(0.01));
    CHECK(1 - t.stage_work / (t.iteration - t.optimizer) == Approx(double(p - 1) / (m + p - 1)).epsilon(0.01));
  }
  const int v = 2;
  const Timing t = run({"strategy.pipeline=4", "strategy.pipeline.schedule=interleaved",
                        "strategy.pipeline.virtual_stages=2", "model.transformer.layers=16"});
  CHECK(1 - t.stage_work / (t.iteration - t.optimizer) == Approx(double(p - 1) / (v * m + p - 1)).epsilon(0.01));
}
