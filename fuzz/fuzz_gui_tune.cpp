// dtsim-gui's tune.json reader (gui/model/tune.hpp): a malformed search is one ParseError, never a crash.
#include "fuzz/fuzz_support.hpp"
#include "gui/model/json_scanner.hpp"
#include "gui/model/tune.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const dtsim::gui::TuneData t = dtsim::gui::parse_tune(std::string(dtsim::fuzz::text_of(data, size)));
    t.exposed_kinds();
    for (size_t i = 0; i < t.ranked.size(); ++i) t.run_command(i);
  } catch (const dtsim::gui::ParseError&) {
  }
  return 0;
}
