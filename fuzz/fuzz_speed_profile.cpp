// Speed and NIC bandwidth profiles: a file of `time factor` lines, and the inline form.
#include <string>

#include "core/base/profile.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = dtsim::fuzz::text_of(data, size);
  const std::string path = dtsim::fuzz::as_file(text, "-profile.txt");
  dtsim::fuzz::refuses_or_loads([&] {
    const dtsim::Profile p = dtsim::load_profile(path, 1);
    p.finish(0, 1);  // what the engines ask of a profile
    p.work_between(0, 1e3);
  });
  dtsim::fuzz::refuses_or_loads([&] {
    const dtsim::Profile p = dtsim::parse_inline_profile(std::string(text), 1e6);
    p.finish(0, 1);
    p.work_between(0, 1e3);
  });
  return 0;
}
