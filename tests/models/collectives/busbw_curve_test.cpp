// Measured bus bandwidth curves (`dtsim collectives --measured`): nccl-tests' own output, old and new column sets,
// and the CSV of bench/collectives/published/; bad rows named by file and line.
#include <catch2/catch.hpp>

#include "core/base/error.hpp"
#include "models/collectives/nccl/busbw_curve.hpp"

using dtsim::InputError;
using dtsim::nccl::BusbwPoint;
using dtsim::nccl::parse_busbw_curve;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_busbw_curve(text, "m.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("nccl-tests output: every row's out-of-place busbw, with or without the root column") {
  // nccl-tests 2.13 and later (a root column), as all_reduce_perf prints it, log lines between.
  const std::string recent = R"(# nThread 1 nGpus 1 minBytes 8 maxBytes 16777216 step: 2(factor)
#  Rank  0 Group  0 Pid  28307 on      gpu59 device  0 [0x16] NVIDIA H100 80GB HBM3
gpu59:28307:28307 [0] NCCL INFO Bootstrap : Using eth0
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           0             0     float     sum      -1     0.30    0.00    0.00      0     0.26    0.00    0.00      0
     1048576        262144     float     sum      -1    27.76   37.78   66.11      0    27.49   38.15   66.76      0
    16777216       4194304     float     sum      -1   121.33  138.28  242.00      0   120.47  139.26  243.71      0
# Avg bus bandwidth    : 154.05
)";
  const std::vector<BusbwPoint> p = parse_busbw_curve(recent, "m.txt");
  REQUIRE(p.size() == 2);  // the 0-byte row (below one element per rank) left out
  CHECK(p[0].bytes == 1048576);
  CHECK(p[0].busbw == Approx(66.11e9));
  CHECK(p[1].bytes == 16777216);
  CHECK(p[1].busbw == Approx(242.00e9));
  // Older nccl-tests: no root column, errors as numbers.
  const std::string old =
      R"(#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
          32             8   float     sum    10.14    0.00    0.00  0e+00    10.21    0.00    0.00  0e+00
   134217728      33554432   float     sum   1724.4   77.83  145.94  0e+00   1703.6   78.78  147.72  0e+00
)";
  const std::vector<BusbwPoint> q = parse_busbw_curve(old, "m.txt");
  REQUIRE(q.size() == 2);
  CHECK(q[1].bytes == 134217728);
  CHECK(q[1].busbw == Approx(145.94e9));
  // Under srun -l every line starts with its task's number; NCCL's log lines (commas and all) are not rows.
  const std::string tagged = R"(0: node1:93:93 [0] NCCL INFO Channel 00/32 : 0 1 2 3, via NVLS
0:      8388608       2097152     float     sum      -1    337.8   24.83   46.56      0    295.6   28.38   53.21      0
)";
  const std::vector<BusbwPoint> s = parse_busbw_curve(tagged, "m.txt");
  REQUIRE(s.size() == 1);
  CHECK(s[0].busbw == Approx(46.56e9));
  const std::string log_first = "node1:93:93 [0] NCCL INFO comm 0x1, rank 0, nranks 16\n" + recent;
  CHECK(parse_busbw_curve(log_first, "m.txt").size() == 2);
}

TEST_CASE("a CSV curve: the bytes and busbw_GBps columns, wherever they are") {
  const std::vector<BusbwPoint> p =
      parse_busbw_curve("bytes,time_us,algbw_GBps,busbw_GBps\n1024,20.0,0.05,0.10\n\n2048,21.0,0.10,0.19\n", "c.csv");
  REQUIRE(p.size() == 2);
  CHECK(p[1].bytes == 2048);
  CHECK(p[1].busbw == Approx(0.19e9));
  CHECK(parse_busbw_curve("busbw_GBps,bytes\n5,8\n", "c.csv")[0].bytes == 8);
}

TEST_CASE("a measured curve that cannot be read is refused with its file and line") {
  CHECK(error_of("bytes,busbw\n8,1\n") ==
        "m.txt:1: error: a CSV curve needs the columns bytes and busbw_GBps in its header (or give nccl-tests' own "
        "output)");
  CHECK(error_of("bytes,busbw_GBps\n8,fast\n") ==
        "m.txt:2: error: 'fast' is not a bus bandwidth in GB/s (column busbw_GBps: a number of at least 0)");
  CHECK(error_of("bytes,busbw_GBps\n8\n") == "m.txt:2: error: 1 columns where the header has 2");
  CHECK(error_of("# size time\n 1024 float sum 3.0\n") ==
        "m.txt:2: error: a line of nccl-tests output with 4 fields: its rows end with time, algbw, busbw and #wrong "
        "out of place, then in place (8 at least)");
  CHECK(error_of("   1024   256  float  sum  -1  9.1  0.11  n/a  0  8.8  0.12  0.12  0\n") ==
        "m.txt:1: error: 'n/a' is not a bus bandwidth in GB/s (out-of-place busbw: a number of at least 0)");
  CHECK(error_of("NCCL INFO nothing measured\n") ==
        "m.txt: error: no measured point: give nccl-tests' output (rows that start with the size in bytes) or a CSV "
        "with the columns bytes and busbw_GBps");
}
