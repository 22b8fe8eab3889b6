// dtsim-gui's metrics.json reader.
#include <nlohmann/json.hpp>

#include "fuzz/fuzz_support.hpp"
#include "gui/model/json_scanner.hpp"
#include "gui/model/run_metrics.hpp"
#include "gui/model/trace_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json j = nlohmann::json::parse(dtsim::fuzz::text_of(data, size), nullptr, false);
  if (j.is_discarded()) return 0;  // not JSON: load_run_metrics refuses it before this
  try {
    const dtsim::gui::RunMetrics m = dtsim::gui::run_metrics_from_json(j);
    m.job_of_rank();
  } catch (const dtsim::gui::ParseError&) {
  }
  return 0;
}
