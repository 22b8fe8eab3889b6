// PyTorch profiler traces (dtsim calibrate --from-trace): Kineto's Chrome JSON, GPU or CPU.
#include "core/calibration/torch_trace.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = dtsim::fuzz::text_of(data, size);
  dtsim::fuzz::refuses_or_loads([&] { dtsim::parse_torch_trace(text, "fuzz-trace.json"); });
  return 0;
}
