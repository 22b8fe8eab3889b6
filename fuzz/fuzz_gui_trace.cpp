// dtsim-gui's trace.json parser and what it builds (lanes, level of detail, micro-batch spans).
#include "fuzz/fuzz_support.hpp"
#include "gui/model/json_scanner.hpp"
#include "gui/model/trace_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    dtsim::gui::parse_trace(dtsim::fuzz::text_of(data, size));
  } catch (const dtsim::gui::ParseError&) {
  }
  return 0;
}
