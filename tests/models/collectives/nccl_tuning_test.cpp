// NCCL's cost model (models/collectives/nccl/) worked by hand from NCCL 2.30.7's tables for DGX A100, DGX H100 and
// DGX B200 nodes and a PCIe node; the choice held to the least time; more bandwidth never slower; a cluster's node as
// NCCL sees it.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/base/error.hpp"
#include "models/collectives/nccl/nccl_cluster.hpp"
#include "models/collectives/nccl/nccl_tuning.hpp"
#include "models/zoo/device.hpp"

namespace dtsim::test {

using nccl::Algo;
using nccl::Proto;

namespace {

// DGX A100: 12 NVLink 3 links per GPU through NVSwitch (NCCL counts 20 GB/s each), PCIe Gen4 (24 GB/s), 8 HDR
// NICs (200 Gb/s: 25 GB/s), AMD CPUs.
nccl::NodeTopology dgx_a100() { return {80, 12, 20.0, 24.0, 8, 25.0, nccl::Cpu::Amd, {}}; }
// DGX H100: 18 NVLink 4 links (20.6 GB/s each), PCIe Gen5 (48 GB/s), 8 NDR NICs (400 Gb/s: 50 GB/s), Intel CPUs.
nccl::NodeTopology dgx_h100() { return {90, 18, 20.6, 48.0, 8, 50.0, nccl::Cpu::Intel, {}}; }

// DGX B200: 18 NVLink 5 links (40.1 GB/s each), PCIe Gen5 (48 GB/s), 8 NDR NICs (400 Gb/s: 50 GB/s), Intel CPUs.
nccl::NodeTopology dgx_b200() { return {100, 18, 40.1, 48.0, 8, 50.0, nccl::Cpu::Intel, {}}; }

constexpr double GiB = 1024.0 * 1024 * 1024;

// NCCL's ring NVLink per-hop latency for a protocol (graph.h's hwLat), us.
double hw_latency_of(Proto p) { return nccl::kHwLatency[0][static_cast<size_t>(Algo::Ring)][static_cast<size_t>(p)]; }

}  // namespace

TEST_CASE("nccl: DGX A100, one node: 12 ring channels of 20 GB/s, ring Simple AllReduce by hand") {
  const nccl::Tuning t(dgx_a100(), {8, 1});
  // P = T = 12 x 20 = 240: the first Ampere speed within it is 40, floor(240 / 40) = 6 channels, duplicated (40 >=
  // 25) into 12 of 20.
  CHECK(t.graphs().ring.channels == 12);
  CHECK(t.graphs().ring.bw_intra == Approx(20.0));
  CHECK(t.graphs().nvls.channels == 0);  // no NVLS before Hopper
  // Bus bandwidth 12 x 20 = 240, algorithm bandwidth 240 x 8 / 14.
  CHECK(t.bandwidth(CollectiveKind::AllReduce, Algo::Ring, Proto::Simple) == Approx(240.0 * 8 / 14));
  // Base 8.4 us + 14 steps x NVLink's ring Simple 3.4 us.
  CHECK(t.latency(CollectiveKind::AllReduce, Algo::Ring, Proto::Simple) == Approx(8.4 + 14 * 3.4));
  const double bytes = GiB;
  CHECK(t.time(CollectiveKind::AllReduce, Algo::Ring, Proto::Simple, bytes) ==
        Approx((56.0 + bytes / (1000 * 240.0 * 8 / 14)) * 1e-6));
  // LL: half the bus bandwidth under Ampere's single-node LL ceiling 87.7: min(87.7, 120) x 8 / 14.
  CHECK(t.bandwidth(CollectiveKind::AllReduce, Algo::Ring, Proto::LL) == Approx(87.7 * 8 / 14));
  // Large buffers run ring Simple; the smallest ring LL.
  CHECK(t.choose(CollectiveKind::AllReduce, GiB).proto == Proto::Simple);
  CHECK(t.choose(CollectiveKind::AllReduce, 1024).proto == Proto::LL);
}

TEST_CASE("nccl: DGX H100, two nodes: 8 ring channels of 48 GB/s and NVLS Tree AllReduce by hand") {
  const nccl::Tuning t(dgx_h100(), {16, 2});
  // N = min(PCIe 48, NIC 50) = 48, Hopper's first inter speed within it: 48; 8 NICs x 1 channel, and NVLink allows
  // floor(370.8 x 8 / (48 x 7)) = 8; Hopper keeps 8 channels of 48 < 50 undivided.
  CHECK(t.graphs().ring.channels == 8);
  CHECK(t.graphs().ring.bw_inter == Approx(48.0));
  CHECK(t.graphs().nvls.channels == 8);
  // NVLS Tree: min(48 x 0.85 x 7/8 x 2, 48 x 2 (two nodes), Hopper's 2-node cap 57.7) = 57.7 per channel, x 8, as
  // algorithm bandwidth x 16 / 30.
  CHECK(t.bandwidth(CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple) == Approx(8 * 57.7 * 16 / 30));
  // No base latency; NVLink's 25 us + 2 x log2(2) x the network's 20.9 us.
  CHECK(t.latency(CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple) == Approx(25 + 2 * 20.9));
  const nccl::Choice big = t.choose(CollectiveKind::AllReduce, 2 * GiB);
  CHECK(big.algo == Algo::NvlsTree);
  // NCCL's estimate, plus the pipeline's fill (nccl_pipeline.hpp): 2 network stages of a 128 KiB chunk over
  // 16 NVLS channels x 8 heads.
  const double nvls_tree_bw = 8 * 57.7 * 16 / 30 * 1e9;
  CHECK(big.fill_seconds == Approx(2 * 131072.0 * 128 / nvls_tree_bw));
  CHECK(big.seconds == Approx((66.8 + 2 * GiB / (1000 * 8 * 57.7 * 16 / 30)) * 1e-6 + big.fill_seconds));
  // Across nodes NVLS itself needs CollNet (SHARP): off. Ring AllGather across nodes: base 8.4 + 14 intra steps at
  // max(NVLink 3.4, 3 x Intel's 1 us overhead) + 1 step at the network's 14 us.
  CHECK(t.bandwidth(CollectiveKind::AllReduce, Algo::Nvls, Proto::Simple) == 0);
  CHECK(t.latency(CollectiveKind::AllGather, Algo::Ring, Proto::Simple) == Approx(8.4 + 14 * 3.4 + 14.0));
  // The ring AllReduce's plateau: latency x 1.4 across nodes once a rank's share of a channel reaches 64 B.
  const double lat = t.latency(CollectiveKind::AllReduce, Algo::Ring, Proto::Simple);
  const double bw = t.bandwidth(CollectiveKind::AllReduce, Algo::Ring, Proto::Simple);
  CHECK(t.time(CollectiveKind::AllReduce, Algo::Ring, Proto::Simple, GiB) ==
        Approx((lat * 1.4 + GiB / (1000 * bw)) * 1e-6));
}

TEST_CASE("nccl: DGX B200, two nodes: NVLS Tree timed with its NVLink stage at NVLink speed, picked by NCCL's") {
  const nccl::Tuning t(dgx_b200(), {16, 2});
  // Across nodes NCCL's NVLS graph has 8 channels at the NIC's speed: 48 (Blackwell's inter speeds 96, 86, 80, 48)
  // for bwIntra and bwInter alike; its one-node NVLS graph: the first Blackwell intra speed s with 8 s within
  // 18 x 40.1 x 8 / 7 = 825 GB/s: 90.
  REQUIRE(t.graphs().nvls.channels == 8);
  CHECK(t.graphs().nvls.bw_intra == Approx(48.0));
  // NCCL's estimate: min(48 x 0.74 x 7/8 x 2 = 62.16, 2 x 48, Blackwell's 2-node cap 96) = 62.16 a channel.
  CHECK(t.bandwidth(CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple) ==
        Approx(8 * (48 * 0.74 * 7 / 8 * 2) * 16 / 30));
  // As the kernel runs: min(90 x 0.74 x 7/8 x 2 = 116.6, 96, 96) = 96 a channel, the network's.
  CHECK(t.nvls_tree_kernel_bandwidth() == Approx(8 * 96.0 * 16 / 30));
  const nccl::Choice c = t.choose(CollectiveKind::AllReduce, GiB);
  REQUIRE(c.algo == Algo::NvlsTree);
  // NCCL's estimate (its tree correction stops at 2^23 x 64 B = 512 MiB) prices the pick; dtsim's time is the
  // kernel's bandwidth, no NCCL correction, plus the fill: 2 network stages of a 64 KiB chunk (Blackwell's 2-node
  // ceiling with 400 Gb/s NICs) over 32 NVLS channels x 8 heads.
  const double lat = 25 + 2 * 20.9;
  CHECK(c.nccl_seconds ==
        Approx((lat + GiB / (1000 * t.bandwidth(CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple))) * 1e-6));
  const double kernel = t.nvls_tree_kernel_bandwidth() * 1e9;
  CHECK(c.fill_seconds == Approx(2 * 65536.0 * 256 / kernel));
  CHECK(c.seconds == Approx(lat * 1e-6 + GiB / kernel + c.fill_seconds));
  CHECK(c.seconds < c.nccl_seconds);
  // On Hopper the 57.7 cap binds at either speed: the kernel's bandwidth is NCCL's.
  const nccl::Tuning h(dgx_h100(), {16, 2});
  CHECK(h.nvls_tree_kernel_bandwidth() ==
        Approx(h.bandwidth(CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple)));
  // No NVLS Tree in one node, nor before Hopper.
  CHECK(nccl::Tuning(dgx_b200(), {8, 1}).nvls_tree_kernel_bandwidth() == 0);
  CHECK(nccl::Tuning(dgx_a100(), {16, 2}).nvls_tree_kernel_bandwidth() == 0);
}

TEST_CASE("nccl: the tree's second pass raises bw_intra toward twice bw_inter, as far as NVLink carries it") {
  // 8 A100 behind 4 x 100 Gb/s NICs (AWS p4de): N = min(PCIe 24, NIC 12.5): speed 12, 4 channels. The tree climbs
  // Ampere's inter speeds 15, 18, 20, 24 (4 x 24 = 96 within 240 x 8 / 7) and stops at 24 = 2 x 12.
  const nccl::NodeTopology p4de{80, 12, 20.0, 24.0, 4, 12.5, nccl::Cpu::Intel, {}};
  const nccl::Tuning two(p4de, {16, 2});
  CHECK(two.graphs().ring.channels == 4);
  CHECK(two.graphs().ring.bw_intra == Approx(12.0));
  CHECK(two.graphs().tree.channels == 4);
  CHECK(two.graphs().tree.bw_inter == Approx(12.0));
  CHECK(two.graphs().tree.bw_intra == Approx(24.0));
  // On two nodes NCCL prices the tree by bw_intra: min(4 x 24 x 0.92, 4 x Ampere's 2-node tree cap 23.6) x 1/2.
  CHECK(two.bandwidth(CollectiveKind::AllReduce, Algo::Tree, Proto::Simple) == Approx(4 * 24 * 0.92 / 2));
  // So the tree wins the large sizes, its algorithm bandwidth 44 GB/s above the ring's 4 x 12 x 16 / 30 = 25.6 (on
  // two nodes a tree moves S across each node's NICs, a ring 2 (n - 1) / n x S).
  CHECK(two.choose(CollectiveKind::AllReduce, 2 * GiB).algo == Algo::Tree);
  // Beyond two nodes NCCL prices it by bw_inter: the raise changes nothing there.
  CHECK(nccl::Tuning(p4de, {32, 4}).bandwidth(CollectiveKind::AllReduce, Algo::Tree, Proto::Simple) ==
        Approx(4 * 12 * 0.92 / 2));
  // DGX A100 (N = 24, 8 channels): 28 and 30 fit (8 x 30 = 240 <= 274), 48 would not (384): the tree stops at 30.
  CHECK(nccl::Tuning(dgx_a100(), {16, 2}).graphs().tree.bw_intra == Approx(30.0));
  // DGX H100: 48 is Hopper's top inter speed, nothing above it to climb to.
  CHECK(nccl::Tuning(dgx_h100(), {16, 2}).graphs().tree.bw_intra == Approx(48.0));
  // One DGX A100: the ring's 12 channels of 20; 30 would need 360 > 274: no raise.
  CHECK(nccl::Tuning(dgx_a100(), {8, 1}).graphs().tree.bw_intra == Approx(20.0));
}

TEST_CASE("nccl: a PCIe node: one channel of 20 GB/s, no LL128") {
  const nccl::Tuning t(nccl::NodeTopology{80, 0, 0, 24.0, 1, 12.5, nccl::Cpu::Intel, {}}, {4, 1});
  CHECK_FALSE(t.graphs().nvlink);
  CHECK(t.graphs().ring.channels == 1);
  CHECK(t.graphs().ring.bw_intra == Approx(20.0));
  CHECK(t.bandwidth(CollectiveKind::AllReduce, Algo::Ring, Proto::LL128) == 0);
  // PCI's ring Simple latency 5.7 us per step.
  CHECK(t.latency(CollectiveKind::AllReduce, Algo::Ring, Proto::Simple) == Approx(8.4 + 6 * 5.7));
}

TEST_CASE("nccl: the choice is the least time of the pairs NCCL prices (NCCL's estimate, without the fill)") {
  for (const auto& [node, comm] : {std::pair{dgx_a100(), nccl::Communicator{8, 1}},
                                   {dgx_a100(), {32, 4}},
                                   {dgx_h100(), {8, 1}},
                                   {dgx_h100(), {16, 2}},
                                   {dgx_h100(), {64, 8}}}) {
    const nccl::Tuning t(node, comm);
    for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                                CollectiveKind::Broadcast}) {
      for (double bytes = 1024; bytes <= 8 * GiB; bytes *= 4) {
        const nccl::Choice c = t.choose(kind, bytes);
        REQUIRE(c.seconds > 0);
        for (int a = 0; a < nccl::kAlgos; ++a) {
          for (int p = 0; p < nccl::kProtos; ++p) {
            const double other = t.time(kind, static_cast<Algo>(a), static_cast<Proto>(p), bytes);
            if (other >= 0) CHECK(c.nccl_seconds <= other);
          }
        }
      }
    }
  }
}

TEST_CASE("nccl: the NVLS Tree pipeline's fill by hand: calcCollChunking's chunk, 2 log2(nodes) network stages") {
  const nccl::Tuning t(dgx_h100(), {16, 2});
  const double bw = t.bandwidth(CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple) * 1e9;
  // 16 CTAs (NVLS_NCHANNELS_SM90) x 8 heads = 128 pipes; NCCL's 128 KiB chunk from 64 MiB (4 x 128 x 128 KiB) up,
  // 64 KiB from 8 MiB, 32 KiB below.
  const nccl::NvlsTuning nt = nccl::nvls_tuning(dgx_h100(), {16, 2});
  CHECK(nt.channels == 16);
  CHECK(nt.chunk == 131072);
  CHECK(nt.tree_max_chunk == 131072);
  for (const auto& [bytes, chunk] :
       {std::pair{4.0 * 1048576, 32768.0}, {16.0 * 1048576, 65536.0}, {64.0 * 1048576, 131072.0}, {GiB, 131072.0}}) {
    CHECK(nccl::nvls_tree_chunk(nt, bytes, 128) == static_cast<int>(chunk));
    const nccl::Choice c = t.choose(CollectiveKind::AllReduce, bytes);
    REQUIRE(c.algo == Algo::NvlsTree);
    CHECK(c.fill_seconds == Approx(2 * chunk * 128 / bw));
    CHECK(c.seconds ==
          Approx(t.time(CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple, bytes) + c.fill_seconds));
    CHECK(c.latency_seconds == Approx(66.8e-6 + c.fill_seconds));
  }
  // Four nodes: 4 network stages, and NCCL's NVLS Tree ceiling of 64 KiB.
  CHECK(nccl::nvls_tuning(dgx_h100(), {32, 4}).tree_max_chunk == 65536);
  const nccl::Tuning four(dgx_h100(), {32, 4});
  const double bw4 = four.bandwidth(CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple);
  CHECK(nccl::pipeline_fill(dgx_h100(), {32, 4}, CollectiveKind::AllReduce, Algo::NvlsTree, Proto::Simple, GiB, bw4,
                            8) == Approx(4 * 65536.0 * 128 / (bw4 * 1e9)));
  // Rings fill nothing; nor does LL or LL128, nor a single node.
  CHECK(nccl::Tuning(dgx_a100(), {16, 2}).choose(CollectiveKind::AllReduce, GiB).fill_seconds == 0);
  CHECK(t.choose(CollectiveKind::AllReduce, 65536).fill_seconds == 0);
  CHECK(nccl::Tuning(dgx_h100(), {8, 1}).choose(CollectiveKind::AllReduce, GiB).fill_seconds == 0);
  // A stack's NVLS chunk sizes (aws-ofi-nccl's 512 KiB) make it longer: 256 KiB below 32 x 128 x 512 KiB (2 GiB),
  // 512 KiB from there.
  nccl::NodeTopology big_chunks = dgx_h100();
  big_chunks.stack.nvls_chunk = big_chunks.stack.nvls_tree_max_chunk = 524288;
  const nccl::Tuning big(big_chunks, {16, 2});
  CHECK(big.choose(CollectiveKind::AllReduce, GiB).fill_seconds == Approx(2 * 262144.0 * 128 / bw));
  CHECK(big.choose(CollectiveKind::AllReduce, 4 * GiB).fill_seconds == Approx(2 * 524288.0 * 128 / bw));
}

TEST_CASE("nccl: NVLS AllReduce in one node by hand: three stages of chunks over 16 CTAs x 8 heads") {
  const nccl::Tuning t(dgx_h100(), {8, 1});
  const nccl::NvlsTuning nt = nccl::nvls_tuning(dgx_h100(), {8, 1});
  REQUIRE(nt.channels == 16);
  REQUIRE(t.graphs().nvls.channels == 8);
  // calcCollChunking: 128 KiB from 64 x 128 x 128 KiB = 1 GiB, 64 KiB from 8 x 128 x 64 KiB = 64 MiB, 32 KiB from
  // 2 x 128 x 32 KiB = 8 MiB, 16 KiB below.
  const auto& fit = nccl::kNvlsOneNodeFit;
  const double bw = fit.link_efficiency * 18 * 20.6e9 * 8 / 9;
  for (const auto& [bytes, chunk] : {std::pair{4.0 * 1048576, 16384.0},
                                     {8.0 * 1048576, 32768.0},
                                     {63.0 * 1048576, 32768.0},
                                     {64.0 * 1048576, 65536.0},
                                     {512.0 * 1048576, 65536.0},
                                     {GiB, 131072.0},
                                     {8 * GiB, 131072.0}}) {
    CHECK(nccl::nvls_chunk(nt, bytes, 128) == static_cast<int>(chunk));
    const nccl::Choice c = t.choose(CollectiveKind::AllReduce, bytes);
    REQUIRE(c.algo == Algo::Nvls);
    const double per_chunk = chunk * 128 / bw + fit.chunk_seconds;
    CHECK(c.latency_seconds == Approx(fit.launch_seconds + 2 * per_chunk));
    CHECK(c.seconds == Approx(fit.launch_seconds + (bytes / (128 * chunk) + 2) * per_chunk));
    CHECK(c.nccl_seconds == Approx(t.time(CollectiveKind::AllReduce, Algo::Nvls, Proto::Simple, bytes)));
    CHECK(c.fill_seconds == 0);
  }
  // The constants are what bench/collectives/nvls_fit.py fitted (it writes them to nvls_fit.md).
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/bench/collectives/nvls_fit.md");
  std::stringstream md;
  md << in.rdbuf();
  std::smatch m;
  const std::string text = md.str();
  REQUIRE(std::regex_search(
      text, m, std::regex(R"(\| azure_nd_h100_v5_all_reduce_1n\.csv \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|)")));
  CHECK(fit.launch_seconds == Approx(std::stod(m[1]) * 1e-6));
  CHECK(fit.link_efficiency == Approx(std::stod(m[2])));
  CHECK(fit.chunk_seconds == Approx(std::stod(m[3]) * 1e-6));
  // The chunk's doubling at 1 GiB raises the bus bandwidth, as the Hopper curves of docs/VALIDATION.md show.
  const auto busbw = [&](double bytes) { return bytes / t.choose(CollectiveKind::AllReduce, bytes).seconds; };
  CHECK(busbw(GiB) > 1.04 * busbw(GiB - 1048576));
  // Past the fill, the bandwidth tends to B, the chunk's fixed cost aside.
  const double big = 64 * GiB;
  CHECK(busbw(big) == Approx(1 / (1 / bw + fit.chunk_seconds / (128 * 131072.0))).epsilon(0.001));
}

TEST_CASE("nccl: rings' and trees' NVLink steps as measured: k x NCCL's NVLink hop, in one node and across") {
  const nccl::Tuning a100(dgx_a100(), {8, 1});
  // Ring Simple at 1 GiB: 14 steps, each 3.4 us in NCCL's table, 4.44 times that as measured on A100.
  const nccl::Choice big = a100.choose(CollectiveKind::AllReduce, GiB);
  REQUIRE(big.algo == Algo::Ring);
  REQUIRE(big.proto == Proto::Simple);
  const double nccl_big = a100.time(CollectiveKind::AllReduce, Algo::Ring, Proto::Simple, GiB);
  CHECK(big.nccl_seconds == Approx(nccl_big));
  CHECK(big.seconds == Approx(nccl_big + 14 * 3.44 * 3.4e-6));
  CHECK(big.latency_seconds == Approx((8.4 + 14 * 4.44 * 3.4) * 1e-6));
  // Ring LL at 1 KiB: 14 steps of 0.6 us, 4.44 times; AllGather: 7 steps.
  const nccl::Choice small = a100.choose(CollectiveKind::AllReduce, 1024);
  REQUIRE(small.proto == Proto::LL);
  CHECK(small.seconds ==
        Approx(a100.time(CollectiveKind::AllReduce, Algo::Ring, Proto::LL, 1024) + 14 * 3.44 * 0.6e-6));
  const nccl::Choice gather = a100.choose(CollectiveKind::AllGather, 1024);
  REQUIRE(gather.algo == Algo::Ring);
  CHECK(gather.seconds - gather.nccl_seconds == Approx(7 * 3.44 * hw_latency_of(gather.proto) * 1e-6));
  // LL128 alike: 14 steps of 1.9 us, 4.44 times.
  int ll128 = 0;
  for (double bytes = 1024; bytes <= 8 * GiB; bytes *= 2) {
    const nccl::Choice c = a100.choose(CollectiveKind::AllReduce, bytes);
    if (c.proto != Proto::LL128) continue;
    CHECK(c.seconds == Approx(c.nccl_seconds + 14 * 3.44 * 1.9e-6));
    ++ll128;
  }
  CHECK(ll128 > 0);
  // Across nodes (2 DGX A100, AMD hosts): a ring's 30 steps less the 2 that cross nodes, each at the larger of k x
  // hop and NCCL's network post overhead (2 us on AMD; 6 for Simple) less NCCL's own larger of the two.
  const nccl::Tuning two(dgx_a100(), {16, 2});
  const nccl::Choice ring = two.choose(CollectiveKind::AllReduce, 16 * 1048576.0);
  REQUIRE(ring.algo == Algo::Ring);
  REQUIRE(ring.proto == Proto::LL128);
  CHECK(ring.seconds == Approx(ring.nccl_seconds + 28 * (4.44 * 1.9 - 2.0) * 1e-6));
  const nccl::Choice ring_ll = two.choose(CollectiveKind::AllGather, 65536);
  REQUIRE(ring_ll.algo == Algo::Ring);
  REQUIRE(ring_ll.proto == Proto::LL);
  CHECK(ring_ll.seconds == Approx(ring_ll.nccl_seconds + 14 * (4.44 * 0.6 - 2.0) * 1e-6));
  // A tree AllReduce: the chain up and down each node, 2 x 7 steps of the tree's hop (LL128: 1.25 us).
  const nccl::Choice tree = two.choose(CollectiveKind::AllReduce, 1048576);
  REQUIRE(tree.algo == Algo::Tree);
  REQUIRE(tree.proto == Proto::LL128);
  CHECK(tree.seconds == Approx(tree.nccl_seconds + 14 * 3.44 * 1.25e-6));
  // One GPU per node has no NVLink step; a PCIe node none measured.
  const nccl::Choice alone = nccl::Tuning(dgx_a100(), {2, 2}).choose(CollectiveKind::AllReduce, 1048576);
  CHECK(alone.seconds == Approx(alone.nccl_seconds + alone.fill_seconds));
  nccl::NodeTopology pcie = dgx_a100();
  pcie.nvlinks = 0;
  const nccl::Choice on_pcie = nccl::Tuning(pcie, {8, 1}).choose(CollectiveKind::AllReduce, 1048576);
  CHECK(on_pcie.seconds == Approx(on_pcie.nccl_seconds + on_pcie.fill_seconds));
  // Hopper: 2.52; two DGX H100 run a tree AllReduce of 1 MiB with LL128.
  const nccl::Tuning h100(dgx_h100(), {8, 1});
  const nccl::Choice h = h100.choose(CollectiveKind::AllReduce, 1024);
  REQUIRE(h.algo == Algo::Ring);
  REQUIRE(h.proto == Proto::LL);
  CHECK(h.seconds == Approx(h.nccl_seconds + 14 * 1.52 * 0.6e-6));
  const nccl::Choice h_tree = nccl::Tuning(dgx_h100(), {16, 2}).choose(CollectiveKind::AllReduce, 1048576);
  REQUIRE(h_tree.algo == Algo::Tree);
  REQUIRE(h_tree.proto == Proto::LL128);
  CHECK(h_tree.seconds == Approx(h_tree.nccl_seconds + 14 * 1.52 * 1.25e-6));
  // The factors are what bench/collectives/ring_step_fit.py fitted (it writes them to ring_step_fit.md).
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/bench/collectives/ring_step_fit.md");
  std::stringstream md;
  md << in.rdbuf();
  const std::string text = md.str();
  int rows = 0;
  for (const auto& [name, arch] : {std::pair{"ampere", nccl::Arch::Ampere}, {"hopper", nccl::Arch::Hopper}}) {
    std::smatch m;
    REQUIRE(std::regex_search(text, m, std::regex(std::string(R"(\| )") + name + R"( \| ([0-9.]+) \|)")));
    CHECK(nccl::nvlink_step_factor(arch) == Approx(std::stod(m[1])));
    ++rows;
  }
  CHECK(rows == 2);
  // What `dtsim collectives` says the time carries follows the same conditions as choose.
  CHECK(a100.measured_terms() == "rings' and trees' NVLink steps at 4.44 x NCCL's per-hop latency");
  CHECK(h100.measured_terms() ==
        "rings' and trees' NVLink steps at 2.52 x NCCL's per-hop latency, NVLS AllReduce by its kernel's chunks");
  CHECK(nccl::Tuning(dgx_h100(), {16, 2}).measured_terms() ==
        "rings' and trees' NVLink steps at 2.52 x NCCL's per-hop latency, the NVLS tree's pipeline fill");
  CHECK(nccl::Tuning(dgx_a100(), {16, 2}).measured_terms() ==
        "rings' and trees' NVLink steps at 4.44 x NCCL's per-hop latency");
  CHECK(nccl::Tuning(pcie, {16, 2}).measured_terms().empty());
  CHECK(nccl::nvlink_step_factor(nccl::Arch::Volta) == 1.0);
  CHECK(nccl::nvlink_step_factor(nccl::Arch::Blackwell) == 1.0);
}

TEST_CASE("nccl: a network stack's declared latency and protocols, as NCCL takes them") {
  nccl::NodeTopology efa = dgx_h100();
  efa.stack.declared_latency = 75;
  const nccl::Tuning t(efa, {16, 2});
  // Tree: base 6.8 + 2 x (7 NVLink hops at 0.6 + 1 network hop at 5.0 + 75) for LL; Simple adds the latency twice.
  CHECK(t.latency(CollectiveKind::AllReduce, Algo::Tree, Proto::LL) == Approx(6.8 + 2 * (7 * 0.6 + 5.0 + 75)));
  CHECK(t.latency(CollectiveKind::AllReduce, Algo::Tree, Proto::Simple) == Approx(8.4 + 2 * (7 * 4.0 + 14.0 + 2 * 75)));
  // NCCL_PROTO=Simple,LL128: LL is never priced.
  nccl::NodeTopology no_ll = dgx_h100();
  no_ll.stack.ll = false;
  const nccl::Tuning u(no_ll, {16, 2});
  CHECK(u.bandwidth(CollectiveKind::AllReduce, Algo::Tree, Proto::LL) == 0);
  CHECK(u.choose(CollectiveKind::AllReduce, 1024).proto != Proto::LL);
  CHECK(nccl::Tuning(dgx_h100(), {16, 2}).choose(CollectiveKind::AllReduce, 1024).proto == Proto::LL);
}

TEST_CASE("nccl: more NIC or NVLink bandwidth is never slower") {
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::AllToAll}) {
    for (double bytes = 4096; bytes <= 4 * GiB; bytes *= 2) {
      nccl::NodeTopology slow = dgx_h100();
      slow.nic_bw = 25.0;
      slow.nvlinks = 12;
      for (const nccl::Communicator comm : {nccl::Communicator{32, 4}, nccl::Communicator{8, 1}}) {
        CHECK(nccl::Tuning(dgx_h100(), comm).choose(kind, bytes).seconds <=
              nccl::Tuning(slow, comm).choose(kind, bytes).seconds);
      }
    }
  }
}

TEST_CASE("nccl: AllToAll by hand: NIC and NVLink shares side by side after one Simple step") {
  const nccl::Tuning t(dgx_h100(), {16, 2});
  const double s = GiB;
  const double across = s * 8 / 16 / (8 * 48e9 / 8);  // half of S leaves the node, each GPU a NIC's min(50, 48)
  const double inside = s * 7 / 16 / (18 * 20.6e9);
  CHECK(t.alltoall_time(s) == Approx((8.4 + 14.0) * 1e-6 + std::max(across, inside)));
  CHECK(t.choose(CollectiveKind::AllToAll, s).seconds == Approx(t.alltoall_time(s)));
}

TEST_CASE("nccl: a cluster's node as NCCL sees it") {
  ClusterSpec c;
  c.device = load_device("a100_80gb");
  c.intra.rate = 300e9;
  c.nics = 8;
  c.nic.rate = 25e9;
  c.host_cpu = HostCpu::Amd;
  const nccl::NodeTopology n = nccl::node_topology(c);
  CHECK(n.compute_capability == 80);
  CHECK(n.nvlinks == 12);  // 300 GB/s in links of 25
  CHECK(n.nvlink_bw == Approx(20.0));
  CHECK(n.gpu_pcie_bw == Approx(24.0));
  CHECK(n.nic_bw == Approx(25.0));
  CHECK(n.cpu == nccl::Cpu::Amd);
  c.intra_kind = IntraLinkKind::Pcie;
  CHECK(nccl::node_topology(c).nvlinks == 0);
  // A named NVLink generation decides one link's rate, whatever the device: NVLink 3 and 4 links carry 25 GB/s per
  // direction, NVLink 5 links 50; NCCL still counts each at the device's own figure.
  c.intra_kind = IntraLinkKind::NvLink3;
  CHECK(nccl::node_topology(c).nvlinks == 12);
  c.intra_kind = IntraLinkKind::NvLink5;
  c.intra.rate = 900e9;
  CHECK(nccl::node_topology(c).nvlinks == 18);  // B200's 18 links
  CHECK(nccl::node_topology(c).nvlink_bw == Approx(20.0));
  c.intra_kind = IntraLinkKind::NvLink;
  CHECK(nccl::node_topology(c).nvlinks == 36);  // the A100's generation: links of 25 GB/s
  c.intra_kind = IntraLinkKind::NvLink4;
  c.intra.rate = 450e9;
  CHECK(nccl::node_topology(c).nvlinks == 18);
  // A named PCIe generation is the GPUs' link NCCL sees: no NVLink, x16 at that generation (NCCL's Gen3 12, Gen4
  // 24, Gen5 48 GB/s); pcie takes the device's.
  c.intra_kind = IntraLinkKind::Pcie3;
  CHECK(nccl::node_topology(c).nvlinks == 0);
  CHECK(nccl::node_topology(c).gpu_pcie_bw == Approx(12.0));
  c.intra_kind = IntraLinkKind::Pcie5;
  CHECK(nccl::node_topology(c).gpu_pcie_bw == Approx(48.0));
  c.device = load_device("h100_sxm");
  c.intra_kind = IntraLinkKind::Pcie;
  CHECK(nccl::node_topology(c).gpu_pcie_bw == Approx(48.0));
  c.intra_kind = IntraLinkKind::Pcie4;
  CHECK(nccl::node_topology(c).gpu_pcie_bw == Approx(24.0));
  c.intra_kind = IntraLinkKind::NvLink4;  // an NVLink kind keeps the device's PCIe
  CHECK(nccl::node_topology(c).gpu_pcie_bw == Approx(48.0));
  // The NIC kind's stack (core/cluster/link_kinds.cpp): NCCL's own transports set nothing; aws-ofi-nccl declares
  // 75 us, exports NVLS chunks of 512 KiB and shows the rails behind a GPU as one device; GPUDirect-TCPXO's profile
  // turns LL off.
  c.nics = 32;
  c.devices_per_node = 8;
  c.nic.rate = 12.5e9;
  c.nic_kind = NicKind::IbNdr;
  CHECK(nccl::node_topology(c).stack.declared_latency == 0);
  CHECK(nccl::node_topology(c).nics == 32);
  c.nic_kind = NicKind::Efa100;
  const nccl::NodeTopology efa = nccl::node_topology(c);
  CHECK(efa.stack.declared_latency == 75);
  CHECK(efa.stack.nvls_chunk == 524288);
  CHECK(efa.nics == 8);
  CHECK(efa.nic_bw == Approx(50.0));
  c.nic_kind = NicKind::Tcpxo200;
  CHECK_FALSE(nccl::node_topology(c).stack.ll);
  CHECK(nccl::node_topology(c).stack.nvls_tree_max_chunk == 131072);
  c.device = load_device("cpu_socket");
  CHECK_THROWS_AS(nccl::node_topology(c), InputError);
  CHECK_THROWS_AS(nccl::search_graphs(dgx_h100(), {12, 8}), InputError);
}

}  // namespace dtsim::test
