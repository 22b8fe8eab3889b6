// The convergence proxy's CSV data (run.convergence.dataset: csv).
#include "fuzz/fuzz_support.hpp"
#include "learn/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = dtsim::fuzz::as_file(dtsim::fuzz::text_of(data, size), "-data.csv");
  dtsim::fuzz::refuses_or_loads([&] { dtsim::learn::load_csv(path); });
  return 0;
}
