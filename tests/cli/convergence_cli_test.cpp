// `dtsim run` with run.convergence: the convergence section and curve file, the time-to-target
// line, the same timeline (trace) with and without the Learner, a user's CSV and IDX files, and one
// clear error line for a malformed one.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

using dtsim::test::run_dtsim;
using dtsim::test::slurp;

namespace {

const std::string kRun = "run scenarios/quickstart.yaml --engine analytical --set run.iterations=60 ";
const std::string kOn = "--set run.convergence.enabled=true ";

}  // namespace

TEST_CASE("a convergence run writes its curve and the time to the target") {
  const std::string out = dtsim::test::temp_dir("conv-on");
  const auto r = run_dtsim(kRun + kOn + "--out '" + out + "'", "conv-on");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("time to target") != std::string::npos);
  const auto m = nlohmann::json::parse(slurp(out + "/metrics.json"));
  const auto& c = m["convergence"];
  CHECK(c == m["jobs"][0]["convergence"]);
  CHECK(c["proxy"] == "softmax");
  CHECK(c["policy"] == "allreduce bsp");
  CHECK(c["updates"] == 61);      // warm-up iterations train too
  CHECK(c["curve"].size() == 8);  // update 0, every 10 updates, and the end
  CHECK(c["target_loss"] == 0.6);
  CHECK((c["time_to_target_s"].is_null() || c["time_to_target_s"].get<double>() > 0));
  const std::string csv = slurp(out + "/convergence.csv");
  CHECK(csv.rfind("job,updates,time_s,loss,accuracy\nquickstart,0,0,", 0) == 0);
  // The last point is the end of the run.
  CHECK(c["curve"].back()["time_s"].get<double>() == Approx(m["simulated_time_s"].get<double>()));
}

TEST_CASE("the Learner leaves the timeline as it is") {
  const std::string on = dtsim::test::temp_dir("conv-trace-on"), off = dtsim::test::temp_dir("conv-trace-off");
  REQUIRE(run_dtsim(kRun + kOn + "--set compression.method=topk --out '" + on + "'", "trace-on").code == 0);
  REQUIRE(run_dtsim(kRun + "--set compression.method=topk --out '" + off + "'", "trace-off").code == 0);
  CHECK(slurp(on + "/trace.json") == slurp(off + "/trace.json"));
  auto a = nlohmann::json::parse(slurp(on + "/metrics.json")), b = nlohmann::json::parse(slurp(off + "/metrics.json"));
  CHECK(a["iteration_time_s"] == b["iteration_time_s"]);
  CHECK(a["simulated_time_s"] == b["simulated_time_s"]);
  CHECK(b.count("convergence") == 0);
}

TEST_CASE("the proxy trains on a user's CSV and MNIST IDX files") {
  const std::string out = dtsim::test::temp_dir("conv-files");
  auto final_accuracy = [&](const std::string& sets, const std::string& tag) {
    const auto r = run_dtsim(kRun + kOn + sets + " --set run.convergence.lr=0.5 --out '" + out + "'", tag);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(slurp(out + "/metrics.json"))["convergence"]["final_accuracy"].get<double>();
  };
  CHECK(final_accuracy("--set run.convergence.dataset=csv --set run.convergence.file=tests/cli/data/conv_good.csv",
                       "csv") > 0.8);
  CHECK(final_accuracy("--set run.convergence.dataset=mnist --set run.convergence.file=tests/cli/data/conv_images.idx "
                       "--set run.convergence.labels=tests/cli/data/conv_labels.idx --set run.convergence.holdout=0.5",
                       "idx") == 1.0);
}

TEST_CASE("a malformed data file gives one error line and exit code 2") {
  auto error = [](const std::string& sets, const std::string& tag) {
    const auto r = run_dtsim(kRun + kOn + sets, tag);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    return r.err;
  };
  const std::string csv = "--set run.convergence.dataset=csv --set run.convergence.file=tests/cli/data/";
  CHECK(error(csv + "conv_bad.csv", "bad-csv") ==
        "tests/cli/data/conv_bad.csv:3:3: error: 'abc' is not a number (each line: an integer label, then numeric "
        "features)\n");
  CHECK(
      error(csv + "conv_ragged.csv", "ragged-csv") ==
      "tests/cli/data/conv_ragged.csv:2:1: error: 2 fields, but the first data line has 3 (label, then 2 features)\n");
  // A label sizes the proxy's output layer: a billion classes is refused, not allocated.
  CHECK(error(csv + "conv_huge_label.csv", "huge-label") ==
        "tests/cli/data/conv_huge_label.csv:3:1: error: label '1e9' is too large: labels go from 0 to 99999 (the "
        "proxy model has one output per class)\n");
  // Bytes of a binary file are escaped, never echoed raw.
  CHECK(error(csv + "conv_binary.csv", "binary-csv") ==
        "tests/cli/data/conv_binary.csv:3:3: error: '\\x01\\x8D\\xEB' is not a number (each line: an integer label, "
        "then numeric features)\n");
  CHECK(error(csv + "missing.csv", "missing-csv") ==
        "--set run.convergence.file=tests/cli/data/missing.csv: error: run.convergence.file: no such file "
        "'tests/cli/data/missing.csv'\n");
  const std::string idx =
      "--set run.convergence.dataset=mnist --set run.convergence.labels=tests/cli/data/conv_labels.idx "
      "--set run.convergence.file=tests/cli/data/";
  CHECK(error(idx + "conv_labels.idx", "idx-magic") ==
        "tests/cli/data/conv_labels.idx: error: not an IDX images file (its first 4 bytes must be 0x00000803: unsigned "
        "bytes, 3 dimensions)\n");
  CHECK(error(idx + "conv_truncated.idx", "idx-short") ==
        "tests/cli/data/conv_truncated.idx: error: IDX images file holds 21 data bytes, its header says 24\n");
}

TEST_CASE("a convergence-aware sweep reports the time to the target of every point") {
  const std::string out = dtsim::test::temp_dir("conv-sweep");
  const auto r = run_dtsim(
      "sweep scenarios/compression_vs_bandwidth.yaml --engine analytical --param "
      "cluster.nic.rate=1Gbps,100Gbps --out '" +
          out + "'",
      "conv-sweep");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("to target") != std::string::npos);
  const std::string csv = slurp(out + "/results.csv");
  CHECK(csv.substr(0, csv.find('\n')).find(",efficiency,time_to_target_s,updates_to_target") != std::string::npos);
  const auto j = nlohmann::json::parse(slurp(out + "/results.json"));
  REQUIRE(j["points"].size() == 2);
  const auto& slow = j["points"][0]["metrics"];
  const auto& fast = j["points"][1]["metrics"];
  // Every job trains; under BSP the updates to the target do not depend on the network, the time does.
  for (int job = 0; job < 3; ++job) {
    const auto& a = slow["jobs"][job]["convergence"];
    const auto& b = fast["jobs"][job]["convergence"];
    CHECK(a["updates_to_target"] == b["updates_to_target"]);
    CHECK(a["time_to_target_s"].get<double>() > b["time_to_target_s"].get<double>());
  }
}

TEST_CASE("backup workers report the gradients they kept and gossip its consensus distance (SimGrid)") {
  const std::string out = dtsim::test::temp_dir("conv-backup-gossip");
  const auto r =
      run_dtsim("run scenarios/stragglers_backup_workers.yaml --set run.iterations=20 " + kOn + "--out '" + out + "'",
                "conv-backup-gossip");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("gradients kept by the quorums") != std::string::npos);
  CHECK(r.out.find("consensus distance") != std::string::npos);
  const auto m = nlohmann::json::parse(slurp(out + "/metrics.json"));
  for (const auto& job : m["jobs"]) {
    const auto& c = job["convergence"];
    const std::string policy = c["policy"];
    if (policy == "allreduce backup(1)") {
      // 9 workers, the first 8 gradients of each of the 22 iterations (warm-up included) kept.
      CHECK(c["gradients"] == 9 * 22);
      CHECK(c["gradients_kept"] == 8 * 22);
    } else {
      CHECK(c.count("gradients_kept") == 0);
    }
    if (policy == "allreduce gossip") {
      const auto& d = c["consensus_distance"];
      CHECK(d["mean"].get<double>() > 0);
      CHECK(d["mean"].get<double>() <= d["max"].get<double>());
      CHECK(d["final"].get<double>() <= d["max"].get<double>());
    } else {
      CHECK(c.count("consensus_distance") == 0);
    }
  }
}
