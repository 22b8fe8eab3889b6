// Model files: a layer table (docs/models.md) and a model defined by its shape.
#include "fuzz/fuzz_support.hpp"
#include "models/zoo/model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = dtsim::fuzz::text_of(data, size);
  dtsim::fuzz::refuses_or_loads([&] { dtsim::parse_model_text(text, "fuzz-model.yaml"); });
  dtsim::fuzz::refuses_or_loads([&] { dtsim::parse_model_definition(text, "fuzz-model.yaml"); });
  return 0;
}
