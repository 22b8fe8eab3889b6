// Calibration profiles (the YAML dtsim calibrate writes and cluster.calibration reads).
#include "core/calibration/profile_reader.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = dtsim::fuzz::as_file(dtsim::fuzz::text_of(data, size), "-profile.yaml");
  dtsim::fuzz::refuses_or_loads([&] { dtsim::load_calibration_profile(path); });
  return 0;
}
