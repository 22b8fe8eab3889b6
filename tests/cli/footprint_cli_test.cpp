// Runs that would exhaust memory are refused before they start (sim/footprint.hpp), with one line
// naming the key that drives them and exit code 2; what fits still runs. The machine's memory is
// set with `ulimit -v` so that the answer does not depend on the machine the tests run on.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/run_process.hpp"

using dtsim::test::run_shell;

namespace {

dtsim::test::ProcessResult dtsim_under(const std::string& limit_kb, const std::string& args, const std::string& tag) {
  return run_shell("ulimit -v " + limit_kb + " && '" + std::string(DTSIM_BINARY_DIR) + "/bin/dtsim' " + args, tag);
}

int lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("a run that would not fit in memory is refused by check and by run, naming its key") {
  // 2 GB of address space: quickstart on 4096 nodes plans 5.8 M ops, more than one iteration fits.
  for (const char* command : {"check", "run --no-trace"}) {
    INFO(command);
    const auto r = dtsim_under("2000000", std::string(command) + " scenarios/quickstart.yaml --set cluster.nodes=4096",
                               std::string("fp-nodes-") + command[0]);
    CHECK(r.code == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.rfind("--set cluster.nodes=4096: error: cluster.nodes: the run would hold at least ", 0) == 0);
    CHECK(r.err.find("lower cluster.nodes") != std::string::npos);
  }
  // A billion iterations: the records are what would not fit; fewer iterations would.
  const auto it = dtsim_under("2000000", "check scenarios/quickstart.yaml --set run.iterations=1e9", "fp-iter");
  CHECK(it.code == 2);
  CHECK(lines(it.err) == 1);
  CHECK(it.err.find("error: run.iterations: the run would hold at least 448 TB") != std::string::npos);
  CHECK(it.err.find("lower run.iterations") != std::string::npos);
}

TEST_CASE("check prints the run's memory estimate, and what fits runs") {
  const auto r = dtsim_under("4000000", "check scenarios/quickstart.yaml", "fp-ok");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("2824 ops per iteration; a run holds about ") != std::string::npos);
}

TEST_CASE("a cluster beyond 2^24 devices is refused before anything is sized by it") {
  for (const char* set : {"cluster.nodes=1000000000", "cluster.devices_per_node=1000000000"}) {
    INFO(set);
    const auto r = dtsim_under("2000000", std::string("check scenarios/parameter_server.yaml --set ") + set, "fp-cap");
    CHECK(r.code == 2);
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find("devices; at most 16777216 (2^24)") != std::string::npos);
  }
}

TEST_CASE("a sweep point that would not fit is refused like a run, naming the point and the key") {
  const std::string out = dtsim::test::temp_dir("fp-sweep");
  const auto r = dtsim_under(
      "2000000", "sweep scenarios/quickstart.yaml --param cluster.nodes=2,4096 --no-plots --out '" + out + "'",
      "fp-sweep");
  CHECK(r.code != 0);
  CHECK(r.err.find("sweep point 1: --set cluster.nodes=4096: error: cluster.nodes: the run would hold at least ") !=
        std::string::npos);
}

TEST_CASE("a sweep point on the analytical fast path that would not fit is refused, naming the key") {
  // 1,048,576 nodes of 4 devices: every rank's metrics in the results (about 12 KB each) would not fit
  // in 4 GB of address space (the point used to end in std::bad_alloc).
  const std::string out = dtsim::test::temp_dir("fp-sweep-fast");
  const auto r = dtsim_under("4000000",
                             "sweep scenarios/quickstart.yaml --engine analytical --param cluster.nodes=2,1048576 "
                             "--no-plots --out '" +
                                 out + "'",
                             "fp-sweep-fast");
  CHECK(r.code == 2);
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK(r.err.find("--set cluster.nodes=1048576: error: cluster.nodes: the run would hold about ") !=
        std::string::npos);
  CHECK(r.err.find("(the metrics of 4194304 devices)") != std::string::npos);
}
