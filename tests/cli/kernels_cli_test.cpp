// `dtsim kernels` end to end: one rank's kernels with their class, shape, waves and bound, costed as the engines
// cost them (on one GPU with nothing to communicate they fill the step exactly), the pipeline stage's own rows,
// --top, and a rank without a program of its own refused with exit 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_process.hpp"

using dtsim::test::run_dtsim;

namespace {

// Seconds of a time as format_time prints it ("35.3 ms").
double seconds(const std::string& number, const std::string& unit) {
  const double v = std::stod(number);
  if (unit == "ns") return v * 1e-9;
  if (unit == "us") return v * 1e-6;
  if (unit == "ms") return v * 1e-3;
  return v;
}

struct Row {
  std::string name;
  std::string line;
  double total = 0;
};

// The table's rows: from the header to the blank line before "by kind"; each row's total is its second-last time.
std::vector<Row> rows(const std::string& out) {
  std::vector<Row> found;
  std::istringstream lines(out);
  std::string line;
  bool in = false;
  const std::regex time(R"(([0-9.]+) (ns|us|ms|s)\b)");
  while (std::getline(lines, line)) {
    if (line.rfind("kernel ", 0) == 0) {
      in = true;
      continue;
    }
    if (!in) continue;
    if (line.empty()) break;
    std::vector<double> times;
    for (std::sregex_iterator m(line.begin(), line.end(), time), end; m != end; ++m)
      times.push_back(seconds((*m)[1], (*m)[2]));
    REQUIRE(times.size() >= 2);
    found.push_back({line.substr(0, line.find("  ")), line, times[times.size() - 1]});
  }
  return found;
}

const Row& row(const std::vector<Row>& all, const std::string& name) {
  const auto at = std::find_if(all.begin(), all.end(), [&](const Row& r) { return r.name == name; });
  REQUIRE(at != all.end());
  return *at;
}

}  // namespace

TEST_CASE("dtsim kernels lists one rank's kernels, which on one GPU with nothing to communicate fill the step") {
  const auto r = run_dtsim("kernels scenarios/hybrid_gpt_1gpu.yaml", "kernels-1gpu");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("rank 0 (pipeline stage 0) on h200") != std::string::npos);
  // The engine's step is the rows' costs one after the other: nothing waits, nothing overlaps.
  std::smatch busy;
  REQUIRE(
      std::regex_search(r.out, busy, std::regex(R"(compute stream busy ([0-9.]+) (\w+) of the ([0-9.]+) (\w+) step)")));
  CHECK(seconds(busy[1], busy[2]) == Approx(seconds(busy[3], busy[4])).epsilon(0.005));
  const std::vector<Row> all = rows(r.out);
  double sum = 0;
  for (const Row& x : all) sum += x.total;
  CHECK(sum == Approx(seconds(busy[1], busy[2])).epsilon(0.01));
  // qkv: 24 blocks x 4 micro-batches; T = 2 x 2048 tokens by 3 x 2048 outputs over 2048; tiles of 256 x 128 over
  // the H200's 132 SMs: 16 x 48 / 132 = 5.82 waves, compute-bound.
  const Row& qkv = row(all, "fwd L* qkv");
  CHECK(qkv.line.find(" 96  4096x6144x2048 ") != std::string::npos);
  CHECK(qkv.line.find(" 5.82  compute ") != std::string::npos);
  // The fused attention kernel: 2048 queries by 2048 keys of 128 dimensions, 16 heads x 2 sequences, causal.
  CHECK(row(all, "fwd L* attention").line.find("2048x2048x128 b32 causal") != std::string::npos);
  CHECK(row(all, "fwd L* ln1").line.find(" memory ") != std::string::npos);

  // --top 3: the three rows that take the most time, largest first.
  const auto top = run_dtsim("kernels scenarios/hybrid_gpt_1gpu.yaml --top 3", "kernels-top");
  REQUIRE(top.code == 0);
  const std::vector<Row> three = rows(top.out);
  REQUIRE(three.size() == 3);
  std::vector<double> totals;
  for (const Row& x : all) totals.push_back(x.total);
  std::sort(totals.rbegin(), totals.rend());
  for (size_t i = 0; i < 3; ++i) CHECK(three[i].total == Approx(totals[i]));
}

TEST_CASE("dtsim kernels shows a pipeline stage's own rows, and refuses a rank without a program with exit 2") {
  const auto bad = run_dtsim("kernels scenarios/gpt3_175b_megatron.yaml --rank 1", "kernels-bad-rank");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  // 8 nodes of 8, tensor 8 x pipeline 8: the eight stages' first ranks have programs of their own.
  std::smatch listed;
  REQUIRE(std::regex_search(
      bad.err, listed,
      std::regex(R"(--rank 1: of the plan's 64 ranks, these have a program of their own: ([0-9, ]+)\n$)")));
  CHECK(listed[1] == "0, 8, 16, 24, 32, 40, 48, 56");
  const auto first = run_dtsim("kernels scenarios/gpt3_175b_megatron.yaml", "kernels-stage0");
  const auto last = run_dtsim("kernels scenarios/gpt3_175b_megatron.yaml --rank 56", "kernels-stage7");
  REQUIRE(first.code == 0);
  REQUIRE(last.code == 0);
  CHECK(last.out.find("rank 56 (pipeline stage 7)") != std::string::npos);
  // The embedding is the first stage's, the output layer the last's; every stage runs its blocks' tensor-parallel
  // collectives over the 8 ranks of its node.
  CHECK(first.out.find("\nembedding ") != std::string::npos);
  CHECK(first.out.find("head output layer") == std::string::npos);
  CHECK(last.out.find("head output layer") != std::string::npos);
  CHECK(last.out.find("\nembedding ") == std::string::npos);
  for (const auto* out : {&first.out, &last.out}) CHECK(out->find("fwd L* allgather (8 ranks)") != std::string::npos);
}

TEST_CASE("dtsim kernels runs every scenario of scenarios/, its rows within the step's compute stream") {
  // Compression's codec kernels, parameter servers, two jobs, stragglers, torus and fat-tree clusters: each prints its
  // table, and the compute stream's rows never add up to more than the step.
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DTSIM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().stem().string();
    INFO(name);
    const auto r = run_dtsim("kernels scenarios/" + name + ".yaml", "kernels-all-" + name);
    REQUIRE(r.code == 0);
    std::smatch busy;
    REQUIRE(std::regex_search(r.out, busy,
                              std::regex(R"(compute stream busy ([0-9.]+) (\w+) of the ([0-9.]+) (\w+) step)")));
    CHECK(seconds(busy[1], busy[2]) <= seconds(busy[3], busy[4]) * 1.005);
  }
}

TEST_CASE("dtsim kernels under a calibration profile: its curves cost the kernels, which say so") {
  const auto r = run_dtsim(
      "kernels scenarios/quickstart.yaml --set cluster.calibration=tests/calibrate/data/profile.yaml", "kernels-prof");
  REQUIRE(r.code == 0);
  int convs = 0;
  for (const Row& x : rows(r.out)) {
    if (x.line.find(" conv ") == std::string::npos) continue;
    ++convs;
    CHECK(x.line.find(" profile ") != std::string::npos);
  }
  CHECK(convs > 50);
}
