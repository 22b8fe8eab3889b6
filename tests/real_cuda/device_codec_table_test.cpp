// The cuda halves' switch (real/cuda/codecs/registry.cpp) held to the methods' table: a method has
// a cuda half exactly where the table's `cuda` gives it an exchange (dtsim-real refuses the others
// before a run, tests/real/method_support_test.cpp). Needs no GPU: choosing a half touches none.
#include <catch2/catch.hpp>

#include "models/compression/method.hpp"
#include "real/cuda/device_codec.hpp"

using namespace dtsim;

TEST_CASE("a method has a cuda half exactly where the methods' table gives the cuda backend an exchange") {
  for (const MethodTraits& m : compression_methods()) {
    if (m.method == CompressionMethod::None) continue;  // nothing to compress
    INFO(m.name);
    CHECK((real::cuda::device_codec(m.method) != nullptr) == (m.cuda.allreduce || m.cuda.parameter_server));
  }
}
