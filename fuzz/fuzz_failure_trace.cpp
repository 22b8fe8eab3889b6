// Failure traces (faults.trace): one failure time per line.
#include "core/faults/faults.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = dtsim::fuzz::as_file(dtsim::fuzz::text_of(data, size), "-failures.txt");
  dtsim::fuzz::refuses_or_loads([&] { dtsim::load_failure_trace(path); });
  return 0;
}
