// The calibrate-then-validate round trip on the cpu backend with 2 ranks, as a user runs it:
// `mpirun -np 2 dtsim calibrate --quick`, then `dtsim validate` with that profile (which spawns
// dtsim-real under mpirun itself). Timings on a shared CI machine are noise, so the test holds the
// pipeline and the report's arithmetic, not an accuracy.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <yaml-cpp/yaml.h>

#include "calibrate/bench_util.hpp"
#include "calibrate/calibrate.hpp"
#include "core/calibration/calibration.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/mpirun.hpp"

using namespace dtsim;

TEST_CASE("calibrate --quick on 2 ranks, then validate a 2-rank ring job with the profile", "[roundtrip][mpi]") {
  const std::string dir = test::temp_dir("calib-roundtrip");
  const std::string profile = dir + "/profile.yaml";
  const auto cal = test::run_mpi(2, "dtsim", "calibrate --backend cpu --quick --out '" + profile + "'", "calibrate");
  INFO(cal.out << cal.err);
  REQUIRE(cal.code == 0);
  CHECK_THAT(cal.out, Catch::Contains("busbw (GB/s)"));
  const auto p = load_calibration_profile(profile, Backend::Cpu);
  CHECK(p->machine.ranks == 2);
  CHECK(p->machine.quick);
  REQUIRE(p->link(kSameHost));
  CHECK(p->link(kSameHost)->samples.size() >= 5);
  CHECK(p->compute.at("fp32").samples.size() >= 5);
  CHECK(!p->collectives.empty());
  // The host's last-level cache as the kernel lists it, and the SGD step and ring rounds with the data left in it
  // (bench_in_cache): measured from 96 KiB and 1 KiB up to a rank's share of it (32 MiB here: 4 and 6 sizes with
  // --quick), where the kernel lists the cache at all.
  CHECK(p->machine.llc_bytes == calib::last_level_cache_bytes());
  // Each is in the profile or refused by its check (a busy CI machine can make a curve that does not grow).
  if (p->machine.llc_bytes >= 4 << 20) {
    for (const auto& [group, curves] : {std::pair{"memory", &p->memory}, std::pair{"links", &p->links}}) {
      const std::string name = in_cache_curve(group == std::string("memory") ? "sgd_step" : kSameHost);
      const auto check = std::find_if(p->fit_checks.begin(), p->fit_checks.end(),
                                      [&](const FitCheck& c) { return c.group == group && c.name == name; });
      INFO(name);
      REQUIRE(check != p->fit_checks.end());
      if (check->verdict == FitVerdict::Refused) {
        CHECK_FALSE(curves->count(name));
      } else {
        CHECK(curves->at(name).samples.size() >= 3);
      }
    }
  }
  // The measured AllReduce curve, printed as a scenario key (busbw_key_test holds its form): it loads, a point per
  // size the AllReduces were measured at.
  const std::string key_line = "  cluster.intra_node.collective_busbw: ";
  const size_t at = cal.out.find(key_line);
  REQUIRE(at != std::string::npos);
  const std::string key = cal.out.substr(at + key_line.size(), cal.out.find('\n', at) - at - key_line.size());
  std::set<double> sizes;
  for (const CollectiveSample& c : p->collectives) {
    if (c.kind == "allreduce") sizes.insert(c.bytes);
  }
  const Scenario pasted =
      load_scenario_text("model: {name: resnet50}\ncluster: {device: cpu_socket, devices_per_node: 2}\n", "x.yaml",
                         {"cluster.intra_node.collective_busbw=" + key});
  CHECK(pasted.cluster.intra_busbw.size() == sizes.size());
  // Contention: five lists of 5 rounds (--quick), every time positive, the fit's rates from their
  // medians (what they are on this machine is noise; that they are measured and read back is not).
  REQUIRE(p->contention);
  const ContentionSample& c = *p->contention;
  CHECK(c.gemm_flops > 0);
  CHECK(c.collective_bytes == Approx(4 << 20).epsilon(1e-5));  // the profile keeps 6 digits
  for (const auto* v : {&c.gemm_alone, &c.collective_alone, &c.gemm_under_comm, &c.collective_under_gemm, &c.both}) {
    CHECK(v->size() == 5);
  }
  // fitted.contention, written for people, holds what the reader fits again from the rounds.
  const YAML::Node fitted = YAML::LoadFile(profile)["fitted"]["contention"];
  CHECK(fitted["compute_kept"].as<double>() == Approx(p->contention_rates().compute_kept).epsilon(1e-5));
  CHECK(fitted["both_serial_s"].as<double>() == Approx(both_at_once(c).serial).epsilon(1e-5));
  CHECK((p->contention_rates().compute_kept > 0 && p->contention_rates().compute_kept <= 1));
  CHECK((p->contention_rates().comm_kept > 0 && p->contention_rates().comm_kept <= 1));
  CHECK_THAT(cal.out, Catch::Contains("both started together"));
  // Every method's compress, measured through dtsim-real's codec: 64 KiB to 4 MiB with --quick,
  // where 64 times the gradient takes longer.
  for (std::string_view name : compression_kernels()) {
    const std::string kernel(name);
    INFO(kernel);
    REQUIRE(p->compression.count(kernel));
    const FittedCurve& curve = p->compression.at(kernel);
    CHECK(curve.samples.size() >= 3);
    CHECK(curve.fit.time(4 << 20) > curve.fit.time(64 << 10));
    // Its decoding as dtsim-real runs it (a worker's decompress, or a server's decode for the
    // methods pushed only): work that grows with the gradient. int8's and qsgd's were a call that
    // did nothing, fitted at 1e21 GB/s, until the server's decode was timed.
    const auto decode = p->compression.find(decompress_kernel(kernel));
    if (decode != p->compression.end()) CHECK(decode->second.fit.time(4 << 20) > decode->second.fit.time(64 << 10));
  }
  // Every fitted curve has its verdict, and none of those refused is in the profile: the last verdict
  // of a curve decides (a same_host link refused from ring rounds is fitted to the exchanges next).
  const std::map<std::string, const std::map<std::string, FittedCurve>*> groups{
      {"links", &p->links}, {"compute", &p->compute}, {"memory", &p->memory}, {"compression", &p->compression}};
  std::map<std::pair<std::string, std::string>, FitVerdict> last;
  for (const FitCheck& check : p->fit_checks) {
    REQUIRE(groups.count(check.group));
    last[{check.group, check.name}] = check.verdict;
  }
  size_t curves = 0, kept = 0;
  for (const auto& [group, curves_of] : groups) curves += curves_of->size();
  for (const auto& [curve, verdict] : last) {
    INFO(curve.first << " " << curve.second);
    CHECK(groups.at(curve.first)->count(curve.second) == (verdict == FitVerdict::Refused ? 0u : 1u));
    kept += verdict == FitVerdict::Refused ? 0 : 1;
  }
  CHECK(kept == curves);
  // The self-check: a small job of these 2 ranks run for real and simulated with the profile.
  REQUIRE(p->self_check);
  CHECK(p->self_check->measured_s > 0);
  CHECK(p->self_check->predicted_s > 0);
  CHECK_THAT(cal.out, Catch::Contains("self-check (ring AllReduce of a 4M-parameter synthetic model"));
  CHECK_THAT(cal.out, Catch::Contains("fit checks ("));

  const auto val =
      test::run_dtsim("validate tests/calibrate/data/tiny_validate.yaml --backend cpu --calibration '" + profile +
                          "' --mpirun '" + DTSIM_MPIEXEC + " --oversubscribe' --out '" + dir + "/validate'",
                      "validate");
  INFO(val.out << val.err);
  REQUIRE(val.code == 0);
  CHECK_THAT(val.out, Catch::Contains("mean absolute error"));
  const nlohmann::json j = nlohmann::json::parse(test::slurp(dir + "/validate/validation.json"));
  REQUIRE(j.at("metrics").size() == 5);
  const std::vector<std::string> names{"iteration time", "compute", "communication", "exposed communication",
                                       "throughput"};
  double sum = 0, most = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto& row = j.at("metrics")[i];
    CHECK(row.at("name") == names[i]);
    const double pr = row.at("predicted"), me = row.at("measured");
    CHECK(me > 0);
    CHECK(pr > 0);
    CHECK(row.at("error_pct").get<double>() == Approx(100 * (pr - me) / me));
    sum += std::abs(row.at("error_pct").get<double>());
    most = std::max(most, std::abs(row.at("error_pct").get<double>()));
  }
  CHECK(j.at("mean_abs_error_pct").get<double>() == Approx(sum / 5));
  CHECK(j.at("max_abs_error_pct").get<double>() == Approx(most));
  // The same Plan simulated without contention (analytical engine), against the same measurement.
  const auto& off = j.at("without_contention");
  const double measured = j.at("metrics")[0].at("measured");
  REQUIRE(off.at("iteration_time_s").get<double>() > 0);
  CHECK(off.at("error_pct").get<double>() ==
        Approx(100 * (off.at("iteration_time_s").get<double>() - measured) / measured));
  CHECK_THAT(val.out, Catch::Contains("without contention (cluster.contention.compute=1)"));
  std::vector<std::string> kinds;
  for (const auto& row : j.at("op_kinds")) kinds.push_back(row.at("name"));
  CHECK_THAT(kinds, Catch::VectorContains(std::string("allreduce")));
  CHECK_THAT(kinds, Catch::VectorContains(std::string("compute:forward")));
  // Both sides ran the same Plan: the real run's metrics and the simulated run's sit beside the report.
  const nlohmann::json real = nlohmann::json::parse(test::slurp(dir + "/validate/real/metrics.json"));
  const nlohmann::json sim = nlohmann::json::parse(test::slurp(dir + "/validate/sim/metrics.json"));
  CHECK(real.at("engine") == "cpu");
  CHECK(real.at("bytes_on_wire_per_iteration") == sim.at("bytes_on_wire_per_iteration"));
  CHECK(real.at("iterations") == sim.at("iterations"));
}

TEST_CASE("validate of a 2-stage pipeline reports its bubble, exposure by kind and peak memory beside the simulation",
          "[mpi][hybrid]") {
  const std::string dir = test::temp_dir("validate-hybrid");
  const auto val = test::run_dtsim(
      "validate scenarios/hybrid_pipeline_cpu.yaml --backend cpu --repeats 1 --calibration "
      "tests/calibrate/data/profile_measured.yaml --mpirun '" +
          std::string(DTSIM_MPIEXEC) + " --oversubscribe' --out '" + dir + "'",
      "validate-hybrid");
  INFO(val.out << val.err);
  REQUIRE(val.code == 0);
  const nlohmann::json j = nlohmann::json::parse(test::slurp(dir + "/validation.json"));
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : j.at("metrics")) rows[row.at("name")] = row;
  for (const char* name : {"iteration time", "pipeline bubble", "exposed communication: pipeline", "peak memory"}) {
    INFO(name);
    REQUIRE(rows.count(name));
    CHECK(rows[name].at("predicted").get<double>() > 0);
    CHECK(rows[name].at("measured").get<double>() > 0);
  }
  // Both sides hold the same memory model; the real side measured its buffers within a few %.
  CHECK(rows["peak memory"].at("error_pct").get<double>() == Approx(0).margin(5));
  // The simulated timeline sits beside the report, a pipeline's: one process per stage.
  const std::string trace = test::slurp(dir + "/sim/trace.json");
  CHECK_THAT(trace, Catch::Contains("pipeline stage 1"));
  CHECK_THAT(val.out, Catch::Contains("pipeline bubble"));
}
