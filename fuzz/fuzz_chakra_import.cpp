// A Chakra trace replayed as a job's workload (core/plan/chakra/import.hpp): one rank's file, plain or gzip, read,
// its graph checked (dependencies, cycles, collectives, sends and receives) and compiled into a Plan, as
// `dtsim import-chakra` and `workload.chakra` do.
#include <string>

#include "core/plan/compiler.hpp"
#include "core/scenario/loader.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string dir = dtsim::fuzz::as_file_in(dtsim::fuzz::text_of(data, size), "chakra-import", "t.0.et");
  const std::string scenario = "name: fuzz\nworkload:\n  chakra: " + dir +
                               "/t\ncluster:\n  nodes: 1\n  devices_per_node: 1\n  device: a100_80gb\n"
                               "run: {iterations: 1, warmup: 0, engine: analytical}\n";
  dtsim::fuzz::refuses_or_loads([&] { dtsim::compile_plan(dtsim::load_scenario_text(scenario, "fuzz.yaml")); });
  return 0;
}
