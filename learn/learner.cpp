// Running the sync rule of each job over its events, and the convergence outputs.
#include "learn/learner.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/base/available_memory.hpp"
#include "core/base/error.hpp"
#include "core/base/units.hpp"
#include "core/scenario/sync_policy.hpp"
#include "learn/events.hpp"
#include "learn/sync_rule.hpp"

namespace dtsim::learn {
namespace {

// "allreduce bsp", "parameter_server ssp(2)": the strategy and sync policy as the scenario names them.
std::string policy_name(const JobSpec& job) {
  return fmt::format("{} {}", strategy_name(job.strategy.kind), sync_label(job.sync));
}

// A data file sets the proxy's inputs and outputs, so its models are sized once it is read, before they allocate (a
// small CSV with a wide line and a large label can ask for more than the machine has).
void refuse_models_too_big(const Scenario& s, const Dataset& d) {
  const ConvergenceSpec& c = s.run.convergence;
  double workers = 0;
  for (const JobSpec& j : s.jobs) workers += j.workers(s.cluster);
  const double need = proxy_model_bytes(c, d.features(), d.classes, workers);
  const Available available = available_memory();
  if (need <= available.bytes) return;
  throw InputError(
      s.location_of("run.convergence.file"),
      fmt::format("run.convergence.file: the proxy on its {} features and {} classes would hold about {} "
                  "(6 copies of {:.3g} parameters for each of {:.0f} workers), more than the {} {}",
                  d.features(), d.classes, format_bytes(need), proxy_parameters(c, d.features(), d.classes), workers,
                  format_bytes(available.bytes), available.what));
}

}  // namespace

ConvergenceResult train_along(const Scenario& s, const Plan& plan, int job, const std::vector<OpRecord>& records,
                              const Split& data) {
  const JobSpec& spec = s.jobs[static_cast<size_t>(job)];
  const JobPlan& jp = plan.jobs[static_cast<size_t>(job)];
  const int workers = static_cast<int>(jp.workers.size());
  const uint64_t seed = mix_seed(static_cast<uint64_t>(s.run.seed), 17, static_cast<uint64_t>(job));
  Training training(s.run.convergence, spec.compression, data, workers, seed);
  std::unique_ptr<SyncRule> rule;
  if (spec.strategy.kind != StrategyKind::AllReduce) {
    rule = make_parameter_server_rule(training, spec, workers, jp.shards);
  } else if (spec.sync.kind == SyncKind::Gossip) {
    rule = make_gossip_rule(training, workers);
  } else {
    rule = make_allreduce_rule(training, spec, workers);
  }
  double last = 0;
  for (const LearnEvent& e : learner_events(plan, job, records)) {
    rule->on(e);
    last = e.time;
  }
  ConvergenceResult r = training.finish(last, rule->model());
  r.job = jp.name;
  r.policy = policy_name(spec);
  return r;
}

Split load_split(const Scenario& s) {
  const auto seed = static_cast<uint64_t>(s.run.seed);
  const Dataset d = load_dataset(s.run.convergence, seed);
  if (s.run.convergence.dataset != ProxyDataset::Synthetic) refuse_models_too_big(s, d);
  return split_dataset(d, s.run.convergence.holdout, seed);
}

std::vector<ConvergenceResult> train_jobs(const Scenario& s, const Plan& plan, const std::vector<OpRecord>& records,
                                          const Split& data) {
  std::vector<ConvergenceResult> out;
  if (!s.run.convergence.enabled) return out;
  for (size_t j = 0; j < plan.jobs.size(); ++j) out.push_back(train_along(s, plan, static_cast<int>(j), records, data));
  return out;
}

void attach_convergence(const Scenario& s, const std::vector<ConvergenceResult>& results, nlohmann::json& metrics) {
  for (size_t j = 0; j < results.size(); ++j) metrics["jobs"][j]["convergence"] = convergence_json(s, results[j]);
  if (!results.empty()) metrics["convergence"] = metrics["jobs"][0]["convergence"];
}

void add_convergence(const Scenario& s, const Plan& plan, const std::vector<OpRecord>& records,
                     nlohmann::json& metrics) {
  if (!s.run.convergence.enabled) return;
  attach_convergence(s, train_jobs(s, plan, records, load_split(s)), metrics);
}

nlohmann::json convergence_json(const Scenario& s, const ConvergenceResult& r) {
  const ConvergenceSpec& c = s.run.convergence;
  nlohmann::json curve = nlohmann::json::array();
  for (const CurvePoint& p : r.curve) {
    curve.push_back({{"updates", p.updates}, {"time_s", p.time_s}, {"loss", p.loss}, {"accuracy", p.accuracy}});
  }
  const char* dataset =
      c.dataset == ProxyDataset::Synthetic ? "synthetic" : (c.dataset == ProxyDataset::Csv ? "csv" : "mnist");
  nlohmann::json out{{"proxy", c.model == ProxyModel::Softmax ? "softmax" : "mlp"},
                     {"dataset", dataset},
                     {"policy", r.policy},
                     {"learning_rate", c.lr},
                     {"batch_per_worker", c.batch},
                     {"target_loss", r.target_loss},
                     {"time_to_target_s", nullptr},
                     {"updates_to_target", nullptr},
                     {"updates", r.updates},
                     {"gradients", r.gradients},
                     {"final_loss", r.curve.back().loss},
                     {"final_accuracy", r.curve.back().accuracy},
                     {"staleness", {{"mean", r.mean_staleness}, {"max", r.max_staleness}}},
                     {"curve", curve}};
  if (r.time_to_target_s) out["time_to_target_s"] = *r.time_to_target_s;
  if (r.updates_to_target) out["updates_to_target"] = *r.updates_to_target;
  if (r.kept_gradients) out["gradients_kept"] = *r.kept_gradients;
  if (r.final_consensus) {
    out["consensus_distance"] = {{"mean", *r.mean_consensus}, {"max", *r.max_consensus}, {"final", *r.final_consensus}};
  }
  return out;
}

std::string convergence_csv(const std::vector<ConvergenceResult>& results) {
  std::string out = "job,updates,time_s,loss,accuracy\n";
  for (const ConvergenceResult& r : results) {
    for (const CurvePoint& p : r.curve) {
      out += fmt::format("{},{},{:.9g},{:.9g},{:.6g}\n", r.job, p.updates, p.time_s, p.loss, p.accuracy);
    }
  }
  return out;
}

}  // namespace dtsim::learn
