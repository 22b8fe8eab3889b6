// The scenario loader with --set overrides: the input is YAML, then optionally a line `---set`
// followed by one override (key.path=value) per line.
#include <string>
#include <vector>

#include "core/scenario/loader.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = dtsim::fuzz::text_of(data, size);
  const size_t split = input.find("\n---set\n");
  const std::string_view yaml = input.substr(0, split);
  std::vector<std::string> sets;
  if (split != std::string_view::npos) {
    std::string_view rest = input.substr(split + 8);
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      sets.emplace_back(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    }
  }
  dtsim::fuzz::refuses_or_loads([&] { dtsim::load_scenario_text(yaml, "fuzz.yaml", sets); });
  return 0;
}
