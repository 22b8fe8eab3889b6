// A two-pass row kernel's second read (models/zoo/reread.hpp): what misses L2 by the closed form, its limits, the
// constant held to its fit (bench/kernels/memory.md), and the plan's norms carrying it forward and backward.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "models/parallel/transformer_ops.hpp"
#include "models/zoo/device.hpp"
#include "models/zoo/reread.hpp"

using namespace dtsim;

TEST_CASE("a second read misses L2 by the share of the rows in flight that do not fit", "[reread]") {
  const DeviceSpec a100 = load_device("a100_80gb");
  REQUIRE(a100.kernels.l2 == 40.0 * (1 << 20));
  REQUIRE(a100.kernels.sms == 108);
  // 8,192 bf16 columns: 16 KiB a row, 108 SMs x 16 rows in flight = 28.3 MB, of which 0.15 x 40 MiB fits.
  const double in_flight = 108.0 * 16 * 16384;
  const double misses = 1 - kL2RowShare * 40 * (1 << 20) / in_flight;
  CHECK(reread_memory_bytes(a100, Reread{16384, 1e9}) == Approx(1e9 * misses));
  CHECK(misses == Approx(0.778).epsilon(0.001));
  // 1,024 bf16 columns: 3.5 MB in flight fit in 6.3 MB: the second read is free.
  CHECK(reread_memory_bytes(a100, Reread{2048, 1e9}) == 0);
  // Nothing to read again, or no L2 figure: nothing.
  CHECK(reread_memory_bytes(a100, Reread{}) == 0);
  DeviceSpec bare = a100;
  bare.kernels.l2 = 0;
  CHECK(reread_memory_bytes(bare, Reread{16384, 1e9}) == 0);
}

TEST_CASE("longer rows never miss less, and never more than they read again, a larger L2 never misses more",
          "[reread]") {
  const DeviceSpec h200 = load_device("h200");
  const DeviceSpec v100 = load_device("v100");
  double last = 0;
  for (double row = 256; row <= 1 << 20; row *= 2) {
    const double m = reread_memory_bytes(h200, Reread{row, 1e9});
    CHECK(m >= last);
    CHECK(m <= 1e9);
    CHECK(reread_memory_bytes(v100, Reread{row, 1e9}) >= m);  // 6 MiB of L2 on 80 SMs against 50 MiB on 132
    last = m;
  }
  CHECK(last > 0.99e9);
}

TEST_CASE("rows resident per SM: 128-thread blocks within the compute capability's threads and blocks", "[reread]") {
  CHECK(rows_resident_per_sm(60) == 16);
  CHECK(rows_resident_per_sm(70) == 16);
  CHECK(rows_resident_per_sm(75) == 8);
  CHECK(rows_resident_per_sm(80) == 16);
  CHECK(rows_resident_per_sm(86) == 12);
  CHECK(rows_resident_per_sm(89) == 12);
  CHECK(rows_resident_per_sm(90) == 16);
  CHECK(rows_resident_per_sm(100) == 16);
}

TEST_CASE("the share of L2 is the one bench/kernels/memory_fit.py fitted", "[reread]") {
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/bench/kernels/memory.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string s = text.str();
  REQUIRE(std::regex_search(s, m, std::regex(R"(f = ([0-9.]+) fitted on V100 and A100 40GB)")));
  CHECK(std::stod(m[1].str()) == kL2RowShare);
}

TEST_CASE("a two-pass norm reads its row again forward, and the gradient and the input again backward", "[reread]") {
  TransformerSpec m;
  m.layers = 1;
  m.hidden = 8192;
  m.heads = 64;
  m.seq_len = 2048;
  m.vocab = 32000;
  ShardShape sh{2, 1, 1, true, 1, 2};  // tensor 2 with sequence parallelism: a norm sees 1,024 tokens
  const auto find = [](const std::vector<KernelStep>& steps, const std::string& name) {
    for (const KernelStep& k : steps)
      if (k.name == name) return k;
    FAIL("no step " << name);
    return KernelStep{};
  };
  CHECK_FALSE(find(block_forward(m, sh), "ln1").reread.on());
  sh.norm_kernel = NormKernel::TwoPass;
  const KernelStep fwd = find(block_forward(m, sh), "ln1");
  CHECK(fwd.reread == Reread{8192 * 2, 1024 * 8192 * 2});
  CHECK(fwd.backward_reread == Reread{2 * 8192 * 2, 2 * 1024 * 8192 * 2});
  bool backward_found = false;
  for (const KernelStep& k : block_backward(m, sh)) {
    if (k.cls != KernelClass::Norm) continue;
    CHECK(k.reread == fwd.backward_reread);
    backward_found = true;
  }
  CHECK(backward_found);
  // The one-pass traffic is unchanged: the second read is the device's to price.
  sh.norm_kernel = NormKernel::OnePass;
  CHECK(find(block_forward(m, sh), "ln1").mem_bytes == fwd.mem_bytes);
}
