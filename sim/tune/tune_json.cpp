// tune.json (tune_json.hpp).
#include "sim/tune/tune_json.hpp"

#include <fmt/format.h>

#include "models/parallel/layout_space.hpp"
#include "models/parallel/schedule.hpp"

namespace dtsim::tune {
namespace {

nlohmann::json error_or_null(const std::string& error) {
  return error.empty() ? nlohmann::json() : nlohmann::json(error);
}

// An engine's time of a layout; null where it did not run it (or its run failed).
nlohmann::json seconds_or_null(double s) { return s > 0 ? nlohmann::json(s) : nlohmann::json(); }

}  // namespace

std::string layout_text(const HybridSpec& h) {
  std::string s = fmt::format("t{} p{} d{}", h.tensor, h.pipeline, h.data);
  if (h.context > 1) s += fmt::format(" c{}", h.context);
  if (h.expert > 1) s += fmt::format(" e{}", h.expert);
  s += fmt::format(" mb{} {}", h.micro_batch, schedule_name(h.schedule));
  if (h.schedule == PipelineSchedule::Interleaved) s += fmt::format(" v{}", h.virtual_stages);
  if (h.recompute != Recompute::None) s += fmt::format(" rc:{}", recompute_name(h.recompute));
  if (h.zero > 0) s += fmt::format(" zero{}", h.zero);
  if (h.sequence_parallel) s += " sp";
  // Where ranks go, when more than one dimension spreads them.
  if (const std::string order = spread_rank_order(h); order.find('-') != std::string::npos) s += " " + order;
  return s;
}

nlohmann::json tune_json(const TuneResult& r, const TuneRequest& request, const TuneSource& source) {
  nlohmann::json ranked = nlohmann::json::array();
  for (const Candidate& c : r.ranked) {
    nlohmann::json by_kind = nlohmann::json::object();  // the kinds of group with exposed communication
    for (int k = 0; k < kGroupKinds; ++k) {
      if (c.exposed_s[static_cast<size_t>(k)] > 0)
        by_kind[std::string(group_kind_name(static_cast<GroupKind>(k)))] = c.exposed_s[static_cast<size_t>(k)];
    }
    ranked.push_back({{"layout", layout_text(c.layout)},
                      {"set", r.overrides(c)},
                      {"devices", c.devices},
                      {"global_batch", c.layout.global_batch},
                      {"device_seconds_per_sample", r.device_seconds_per_sample(c)},
                      {"closed_form_s", c.closed.iteration_s},
                      {"analytical_s", seconds_or_null(c.analytical_s)},
                      {"simgrid_s", seconds_or_null(c.simgrid_s)},
                      {"iteration_time_s", c.iteration_s()},
                      {"throughput_samples_per_s", r.throughput(c)},
                      {"mfu", r.mfu(c)},
                      {"bubble_fraction", c.bubble_fraction},
                      {"peak_memory_bytes", c.peak_memory_bytes},
                      {"exposed_comm_by_kind_s", by_kind},
                      {"analytical_error", error_or_null(c.analytical_error)},
                      {"simgrid_error", error_or_null(c.simgrid_error)}});
  }
  nlohmann::json front = nlohmann::json::array();
  for (const TuneResult::SpacePoint& p : r.pareto)
    front.push_back(
        {{"peak_memory_bytes", p.memory_bytes}, {"closed_form_s", p.closed_form_s}, {"global_batch", p.global_batch}});
  return {
      {"schema_version", kTuneSchemaVersion},
      {"scenario", r.scenario},
      {"scenario_file", source.scenario_file},
      {"set", source.sets},
      {"objective", std::string(objective_name(r.objective))},
      {"devices", r.devices},
      {"device_counts", r.device_counts},
      {"global_batch", r.global_batch},
      {"tokens_per_step", r.batch_searched() ? nlohmann::json{r.min_tokens, r.max_tokens} : nlohmann::json(nullptr)},
      {"device_memory_bytes", r.device_memory_bytes},
      {"max_memory_fraction", request.max_memory_fraction},
      {"layouts", r.layouts},
      {"over_memory", r.over_memory},
      {"commonest_overflow", r.commonest_overflow},
      {"closed_form_seconds", r.closed_form_seconds},
      {"engine_seconds", r.engine_seconds},
      {"simgrid_top", request.top},
      {"simgrid", r.simgrid},
      {"pareto", front},
      {"ranked", ranked}};
}

}  // namespace dtsim::tune
