// End-to-end runs of dtsim-real under mpirun on tiny scenarios: exact collectives and
// aggregation, the parameter server's model equal to the AllReduce model, refusals with exit 2,
// metrics and trace in the simulator's format, and the cuda backend (skipped without a GPU).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "tests/support/mpirun.hpp"

using dtsim::test::run_dtsim;
using dtsim::test::run_mpi;
using dtsim::test::run_real;

namespace {

const std::string kTiny = "tests/real/data/tiny_allreduce.yaml";
const std::string kTinyPs = "tests/real/data/tiny_ps.yaml";

void require_exact(const dtsim::test::RealRun& r, int collectives_at_least) {
  INFO(r.process.out << r.process.err);
  REQUIRE(r.process.code == 0);
  const auto& checks = r.metrics["checks"];
  CHECK(checks["exact"] == true);
  int checked = 0;
  for (const auto& c : checks["collectives"]) {
    CHECK(c["mismatched_elements"] == 0);
    CHECK(c["checksum"].get<double>() == c["expected_checksum"].get<double>());
    checked += c["ranks"].get<int>() * c["iterations"].get<int>();
  }
  CHECK(checked >= collectives_at_least);
  for (const auto& m : checks["models"]) {
    if (m["agreement_required"] == true) CHECK(m["workers_agree"] == true);
  }
}

std::set<std::string> keys(const nlohmann::json& j) {
  std::set<std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out.insert(it.key());
  return out;
}

}  // namespace

TEST_CASE("two ranks run a ring AllReduce job with exact sums") {
  const auto r = run_real(2, kTiny + " --compute-scale 1", "ring2");
  require_exact(r, 2 * 4);
  CHECK(r.metrics["engine"] == "cpu");
  CHECK(r.metrics["fidelity"] == "real");
  CHECK(r.metrics["real"]["compute_scale"] == 1.0);
  CHECK(r.metrics["real"]["collectives"] == "schedule");
  CHECK(r.metrics["iteration_time_s"]["mean"].get<double>() > 0);
  CHECK(r.metrics["checks"]["collectives"][0]["algorithm"] == "ring");
}

TEST_CASE("four ranks run the AllReduce job with every algorithm and with MPI's own collectives") {
  const std::string four = kTiny + " --set cluster.nodes=2 --set cluster.devices_per_node=2";
  for (const char* algorithm : {"ring", "double_binary_tree", "halving_doubling", "hierarchical", "direct"}) {
    const auto r = run_real(4, four + " --set strategy.allreduce.algorithm=" + algorithm, algorithm);
    require_exact(r, 4 * 4);
    CHECK(r.metrics["checks"]["collectives"][0]["algorithm"] == algorithm);
  }
  const auto mpi = run_real(4, four + " --mpi-collectives", "mpi4");
  require_exact(mpi, 4 * 4);
  CHECK(mpi.metrics["real"]["collectives"] == "mpi");
}

TEST_CASE("every collective kind of every algorithm is exact over MPI on 2 3 and 4 ranks") {
  for (int np : {2, 3, 4}) {
    const auto r = run_mpi(np, "real_collectives_probe", "", "probe" + std::to_string(np));
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find(" 0 failed") != std::string::npos);
  }
}

TEST_CASE("a parameter server aggregates exactly and under BSP ends with the AllReduce model") {
  const auto ps = run_real(4, kTinyPs, "ps");
  INFO(ps.process.out << ps.process.err);
  REQUIRE(ps.process.code == 0);
  const auto& aggregate = ps.metrics["checks"]["collectives"][0];
  CHECK(aggregate["kind"] == "aggregate");
  CHECK(aggregate["ranks"] == 2);
  CHECK(aggregate["mismatched_elements"] == 0);
  CHECK(ps.metrics["servers"] == 2);
  const auto ar = run_real(2, kTiny, "ps-vs-ar");
  REQUIRE(ar.process.code == 0);
  CHECK(ps.metrics["checks"]["models"][0]["hash"] == ar.metrics["checks"]["models"][0]["hash"]);
  // One shard, one server: the same model again.
  const auto one = run_real(3, kTinyPs + " --set strategy.parameter_server.shards=1", "ps1");
  REQUIRE(one.process.code == 0);
  CHECK(one.metrics["checks"]["models"][0]["hash"] == ar.metrics["checks"]["models"][0]["hash"]);
}

TEST_CASE("the wrong world size is refused with exit 2 and a hint that works") {
  const auto r = run_real(4, kTiny, "wrong-size");
  CHECK(r.process.code == 2);
  CHECK(r.process.err.find("needs 2 ranks (2 workers + 0 servers) but mpirun started 4; use mpirun -np 2") !=
        std::string::npos);
  CHECK(r.process.err.find("--set cluster.nodes=4") != std::string::npos);
  CHECK(r.metrics.is_null());
  const auto fixed = run_real(4, kTiny + " --set cluster.nodes=4", "hint-works");
  require_exact(fixed, 4 * 4);
  const auto bad = run_real(2, "tests/cli/data/unknown_key.yaml", "bad-scenario");
  CHECK(bad.process.code == 2);
  CHECK(bad.process.err.find("unknown key 'cluster.nodez'") != std::string::npos);
}

TEST_CASE("speed and NIC profiles, device mixes and dynamic batches are refused with exit 2") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"cluster.device_mix", "cluster.device_mix=a100_40gb:1,v100:1"},
      {"cluster.nic_profile", "cluster.transport=rdma --set cluster.nic_profile=period=1s,duty=0.5,factor=0.5"},
      {"stragglers.speed_profile", "stragglers.speed_profile=period=1s,duty=0.5,factor=0.5"},
      {"strategy.dynamic_batch", "strategy.dynamic_batch=true"}};
  for (const auto& [key, sets] : cases) {
    const auto r = run_real(2, kTiny + " --set " + sets, "refused-" + key);
    INFO(sets << ": " << r.process.err);
    CHECK(r.process.code == 2);
    CHECK(r.process.err.find("error: " + key + ": dtsim-real ") != std::string::npos);
    CHECK(r.metrics.is_null());
  }
}

TEST_CASE("metrics and trace carry the simulator's fields") {
  const auto real = run_real(2, kTiny, "format");
  REQUIRE(real.process.code == 0);
  const std::string sim_out = dtsim::test::temp_dir("format-sim");
  const auto sim = run_dtsim("run " + kTiny + " --engine analytical --out '" + sim_out + "'", "format-sim");
  REQUIRE(sim.code == 0);
  const auto sim_metrics = nlohmann::json::parse(dtsim::test::slurp(sim_out + "/metrics.json"));
  std::set<std::string> extra = keys(real.metrics);
  for (const auto& k : keys(sim_metrics)) CHECK(extra.erase(k) == 1);
  CHECK(extra == std::set<std::string>{"checks", "real"});
  CHECK(keys(real.metrics["per_rank"][0]) == keys(sim_metrics["per_rank"][0]));
  CHECK(keys(real.metrics["iteration_time_s"]) == keys(sim_metrics["iteration_time_s"]));
  CHECK(real.metrics["jobs"].size() == sim_metrics["jobs"].size());
  const auto trace = nlohmann::json::parse(dtsim::test::slurp(real.out + "/trace.json"));
  const auto sim_trace = nlohmann::json::parse(dtsim::test::slurp(sim_out + "/trace.json"));
  CHECK(trace["traceEvents"].size() > 20);
  CHECK(keys(trace) == keys(sim_trace));
  // Every simulated op appears once per iteration in the real trace too (the compute lanes' gaps, waiting and exposed
  // communication, follow each run's own timing).
  auto ops = [](const nlohmann::json& t) {
    std::multiset<std::string> out;
    for (const auto& e : t["traceEvents"]) {
      if (e["ph"] == "X" && e["cat"] != "wait" && e["cat"] != "exposed") out.insert(e["name"].get<std::string>());
    }
    return out;
  };
  CHECK(ops(trace) == ops(sim_trace));
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") CHECK(keys(e) == std::set<std::string>{"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"});
  }
}

TEST_CASE("the cuda backend runs on a GPU or exits with code 3 and says why") {
  const auto r = run_real(2, kTiny + " --backend cuda", "cuda");
  if (r.process.code == 3) {
    CHECK(r.process.err.find("dtsim-real: error:") != std::string::npos);
    WARN("cuda backend skipped: " << r.process.err.substr(0, r.process.err.find('\n')));
    SUCCEED();
    return;
  }
  require_exact(r, 2 * 4);
  CHECK(r.metrics["engine"] == "cuda");
}

namespace {

const std::string kHybrid = "scenarios/hybrid_pipeline_cpu.yaml";

// The merged check of one op label, or null.
nlohmann::json check_of(const dtsim::test::RealRun& r, const std::string& op) {
  for (const auto& c : r.metrics["checks"]["collectives"]) {
    if (c["op"] == op) return c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a 2-stage pipeline runs for real: every activation and gradient arrives intact") {
  const auto r = run_real(2, kHybrid, "pipeline");
  require_exact(r, 8 * 12);
  // Stage 1 receives each micro-batch's activation, stage 0 its gradient: 12 iterations (warm-up included).
  for (int mb = 0; mb < 4; ++mb) {
    for (const char* what : {"recv act", "recv grad"}) {
      const auto c = check_of(r, fmt::format("{} mb{}", what, mb));
      INFO(what << " mb" << mb);
      REQUIRE(!c.is_null());
      CHECK(c["kind"] == "pipeline message");
      CHECK(c["ranks"] == 1);
      CHECK(c["iterations"] == 12);
      CHECK(c["checked_elements"].get<std::int64_t>() == 12 * c["elements"].get<std::int64_t>());
    }
  }
  // The timeline is a pipeline's: a bubble, and exposed communication put down to the pipeline.
  CHECK(r.metrics["bubble_fraction"].get<double>() > 0);
  CHECK(r.metrics["exposed_comm_by_kind_s"]["pipeline"].get<double>() > 0);
  CHECK(r.metrics["checks"]["models"][0]["replica_groups"] == 2);
  // Memory: 1F1B's stage s keeps p - s micro-batches' activations at its peak (2 and 1 here), as
  // the memory model says; the run's buffers peak within a few % of the model's prediction (sgd and
  // fp32: no optimizer state, which the real run does not keep).
  const auto& memory = r.metrics["real"]["memory"];
  REQUIRE(memory.size() == 2);
  for (const auto& m : memory) {
    const int stage = m["stage"];
    const double per_micro_batch = m["predicted"]["activations_bytes"].get<double>() / (2 - stage);
    CHECK(m["measured_at_peak"]["activations_bytes"].get<double>() == Approx((2 - stage) * per_micro_batch));
    CHECK(m["measured_peak_bytes"].get<double>() == Approx(m["predicted_peak_bytes"].get<double>()).epsilon(0.05));
  }
  // GPipe keeps all 4 micro-batches on both stages.
  const auto gpipe = run_real(2, kHybrid + " --set strategy.pipeline.schedule=gpipe", "gpipe");
  require_exact(gpipe, 8 * 12);
  for (const auto& m : gpipe.metrics["real"]["memory"]) {
    CHECK(m["measured_at_peak"]["activations_bytes"].get<double>() ==
          Approx(m["predicted"]["activations_bytes"].get<double>()));
  }
}

TEST_CASE("tensor, sequence, context and expert parallelism and ZeRO 1 to 3 run for real with exact checks") {
  const std::string one_stage = kHybrid + " --set strategy.pipeline.stages=1";
  struct Case {
    int np;
    std::string sets, tag, op;  // op: a check that must be there
  };
  const std::vector<Case> cases = {
      {2, " --set strategy.tensor=2 --set strategy.sequence_parallel=true", "tp2sp", "fwd L0 reduce_scatter mb0"},
      {2, " --set strategy.context=2", "cp2", "fwd L0 kv all-gather mb0"},
      {2, " --set strategy.expert=2 --set model.transformer.experts=4", "ep2", "fwd L0 dispatch mb0"},
      {2, " --set strategy.zero=1", "zero1", "data params all-gather"},
      {2, " --set strategy.zero=3", "zero3", "zero3 gather L0 fwd mb0"},
      {2,
       " --set strategy.pipeline.stages=2 --set strategy.pipeline.schedule=interleaved --set "
       "strategy.pipeline.virtual_stages=2",
       "interleaved", "recv act mb3"},
      {4, " --set strategy.tensor=2 --set strategy.pipeline.stages=2 --set cluster.devices_per_node=4", "tp2pp2",
       "recv act mb0"},
      {4,
       " --set strategy.tensor=2 --set strategy.pipeline.stages=2 --set cluster.devices_per_node=4 --set "
       "strategy.rank_order=pp-dp-tp-cp-ep",
       "tp2pp2-order", "recv grad mb1"},
  };
  for (const Case& c : cases) {
    INFO(c.tag);
    const auto r = run_real(c.np, one_stage + c.sets, c.tag);
    require_exact(r, 4);
    if (!c.op.empty()) {
      const auto check = check_of(r, c.op);
      INFO(r.metrics["checks"].dump());
      REQUIRE(!check.is_null());
      CHECK(check["mismatched_elements"] == 0);
      CHECK(check["checked_elements"].get<std::int64_t>() > 0);
    }
  }
}

TEST_CASE("tensor-parallel collectives carry GEMM partial products that sum to the unsplit product") {
  const auto r = run_real(2, kHybrid + " --set strategy.pipeline.stages=1 --set strategy.tensor=2", "tp2");
  require_exact(r, 4);
  int gemm = 0;
  for (const auto& c : r.metrics["checks"]["collectives"]) {
    if (c["kind"].get<std::string>().find("tensor-parallel GEMM") == std::string::npos) continue;
    ++gemm;
    CHECK(c["ranks"].get<int>() % 2 == 0);  // each op on both ranks
    CHECK(c["checksum"].get<double>() == c["expected_checksum"].get<double>());
  }
  CHECK(gemm >= 8);  // two per layer forward and two backward, 4 layers
}

TEST_CASE("a hybrid plan passes the cuda backend's scenario checks and, without a GPU, stops in one line") {
  // The cuda backend runs hybrid plans (real/cuda/cuda_hybrid.cpp; docs/real.md has its GPU runs); here
  // there is no GPU, or no CUDA build: exit code 3 and the reason, not a refusal of the scenario (2).
  const auto r = run_real(2, kHybrid + " --backend cuda", "hybrid-cuda");
  CHECK(r.process.code == 3);
  CHECK(r.process.err.find("strategy.kind") == std::string::npos);
}

TEST_CASE("a hybrid scenario larger than the world runs as a small transformer of its layout, and says so") {
  // Mixtral on 32 GPUs (tensor 2, expert 8, ZeRO-1) on 2 ranks: expert parallelism kept (2 ranks).
  const auto r = run_real(2, "scenarios/mixtral_moe.yaml", "mixtral2");
  require_exact(r, 4);
  CHECK_THAT(r.process.out, Catch::Contains("needs 32 ranks but mpirun started 2; running it shrunk to 2 ranks as a "
                                            "small transformer of the same layout"));
  const auto& sets = r.metrics["real"]["scenario_overrides"];
  CHECK(std::find(sets.begin(), sets.end(), "strategy.expert=2") != sets.end());
  CHECK(std::find(sets.begin(), sets.end(), "model.transformer.hidden=256") != sets.end());
  CHECK(!check_of(r, "fwd L0 dispatch mb0").is_null());
  // --no-shrink refuses as before.
  const auto refused = run_real(2, "scenarios/mixtral_moe.yaml --no-shrink", "mixtral2-refused");
  CHECK(refused.process.code == 2);
  CHECK_THAT(refused.process.err, Catch::Contains("scenario needs 32 ranks"));
}
