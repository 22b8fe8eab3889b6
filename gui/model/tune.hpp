// A tune folder as the tune view reads it: tune.json, what `dtsim tune` writes (sim/tune/tuner.hpp,
// cli/tune_command.cpp): the search (scenario, devices, global batch, objective, how many layouts
// were valid and how many over memory), the Pareto front of iteration time against memory per rank
// (closed form) and the ranked layouts with each engine's time. Read strictly: a field missing or of
// the wrong type is a ParseError naming it, so a partial file never draws a half-empty view.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::gui {

// The engines of a tune, least exact first: the closed form ranks every layout, the analytical
// engine the best `screen` of them, SimGrid the best `top`.
enum class TuneEngine { ClosedForm, Analytical, SimGrid };
std::string_view tune_engine_name(TuneEngine e);

struct TuneRow {
  std::string layout;            // "t8 p8 d1 mb1 1f1b ..."
  std::vector<std::string> set;  // the --set overrides that run it
  int devices = 0;
  int global_batch = 0;  // its own (tune.json's global_batch where the row has none)
  double device_seconds_per_sample = 0;
  double closed_form_s = 0, analytical_s = 0, simgrid_s = 0;  // 0: the engine did not run it
  double iteration_time_s = 0;                                // the most exact engine's
  double throughput_samples_per_s = 0, mfu = 0, bubble_fraction = 0, peak_memory_bytes = 0;
  std::vector<std::pair<std::string, double>> exposed_comm_by_kind_s;  // per iteration, by group kind
  std::string analytical_error, simgrid_error;  // the engine's message where its run failed; "" where none

  // The time on `e`, when it ran this layout.
  std::optional<double> time_on(TuneEngine e) const;
  TuneEngine most_exact_engine() const;
  std::optional<double> exposed(const std::string& kind) const;
};

struct ParetoPoint {
  double peak_memory_bytes = 0, closed_form_s = 0;
  int global_batch = 0;  // its own (tune.json's global_batch where the point has none)
};

struct TuneData {
  std::string scenario, scenario_file, objective;
  std::vector<std::string> set;  // the search's own --set overrides
  int devices = 0, global_batch = 0;
  bool batch_searched = false;  // tokens_per_step given: each layout took its own batch, ranked by time a sample
  double min_tokens = 0, max_tokens = 0;  // tokens_per_step, where given
  std::vector<int> device_counts;
  double device_memory_bytes = 0, max_memory_fraction = 1;
  long layouts = 0, over_memory = 0;  // valid under the rules; of them, refused by the memory model
  std::string commonest_overflow;
  std::optional<double> closed_form_seconds, engine_seconds;  // the search's wall time
  bool simgrid = true;              // whether the SimGrid pass could run (false: a dtsim without SimGrid wrote it)
  std::vector<ParetoPoint> pareto;  // by memory
  std::vector<TuneRow> ranked;      // best first

  double memory_allowed_bytes() const { return device_memory_bytes * max_memory_fraction; }
  long fitting_layouts() const { return layouts - over_memory; }
  // Whether any ranked layout ran on `e`.
  bool engine_ran(TuneEngine e) const;
  // Every kind of exposed communication of any row, in order of first appearance.
  std::vector<std::string> exposed_kinds() const;
  // The --set overrides of row `i`: the search's own that the row's do not replace, then the row's.
  std::vector<std::string> run_overrides(size_t i) const;
  // `dtsim run SCENARIO --set ...` of row `i`.
  std::string run_command(size_t i) const;
};

// The tune.json schema_version this reader reads: sim/tune/tune_json.hpp's kTuneSchemaVersion, which the viewer
// cannot include (gui depends on core only; tests/gui/tune_model_test.cpp holds the two equal).
inline constexpr int kTuneSchemaRead = 1;

// Throws ParseError ("tune.json: ranked[2].mfu: expected a number") on malformed text.
TuneData parse_tune(const std::string& tune_json_text);
// A tune folder (with tune.json) or tune.json itself.
TuneData load_tune(const std::string& path);

}  // namespace dtsim::gui
