// MNIST IDX files (run.convergence.dataset: mnist): the first half of the input is the images
// file, the rest the labels file.
#include "fuzz/fuzz_support.hpp"
#include "learn/dataset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = dtsim::fuzz::text_of(data, size);
  const std::string images = dtsim::fuzz::as_file(text.substr(0, size / 2), "-images.idx");
  const std::string labels = dtsim::fuzz::as_file(text.substr(size / 2), "-labels.idx");
  dtsim::fuzz::refuses_or_loads([&] { dtsim::learn::load_idx(images, labels); });
  return 0;
}
