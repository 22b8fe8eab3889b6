// A Chakra trace file (core/chakra/et_file.hpp): plain or gzip, its varint-delimited messages read one by one.
#include "core/chakra/et_file.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = dtsim::fuzz::as_file(dtsim::fuzz::text_of(data, size), ".0.et");
  dtsim::fuzz::refuses_or_loads([&] { dtsim::read_et(path, 0); });
  return 0;
}
