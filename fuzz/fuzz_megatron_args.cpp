// Megatron-LM's launch arguments (dtsim import-megatron): read, and written as a scenario that loads or is refused.
#include "core/scenario/loader.hpp"
#include "core/scenario/megatron_args.hpp"
#include "core/scenario/megatron_scenario.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = dtsim::fuzz::text_of(data, size);
  dtsim::fuzz::refuses_or_loads([&] {
    const dtsim::MegatronImport in = dtsim::parse_megatron_args(text, "fuzz-args.sh");
    const std::string scenario = dtsim::megatron_scenario_text(in, {"", "h100_sxm", 1, 8}, "fuzz", "fuzz-args.sh");
    dtsim::load_scenario_text(scenario, "fuzz-imported.yaml");
  });
  return 0;
}
