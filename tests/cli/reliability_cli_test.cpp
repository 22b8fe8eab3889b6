// Issue #51's probes, as a user meets them: a crash on a valid pipeline, a tune whose engine run fails, inputs that
// expand before anything could refuse them, damaged resume journals, NaN options, a model file of 1e30 parameters,
// a key swept twice and one setting under two names. Each case failed before its fix (docs/reliability.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

namespace dtsim::test {
namespace {

// One line on stderr (and nothing else) and exit 2: how bad input is refused.
void check_refused(const ProcessResult& r, const std::string& says) {
  INFO(r.out << r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find(says) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

double iteration_time(const ProcessResult& r) {
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out)["iteration_time_s"]["mean"].get<double>();
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines written back, the last without its line break when `torn`.
void write_lines(const std::string& path, const std::vector<std::string>& lines, bool torn) {
  std::ofstream o(path, std::ios::trunc);
  for (size_t i = 0; i < lines.size(); ++i) o << lines[i] << (torn && i + 1 == lines.size() ? "" : "\n");
}

nlohmann::json comparable_tune(const std::string& dir) {
  nlohmann::json j = nlohmann::json::parse(slurp(dir + "/tune.json"));
  j.erase("closed_form_seconds");
  j.erase("engine_seconds");
  return j;
}

}  // namespace

TEST_CASE("4,096 micro-batches on 8 stages run on SimGrid as on the analytical engine", "[reliability]") {
  // The crash: a send actor woken for a posted op released the rank's mutex (a simcall: other actors run)
  // before taking the op, so another send actor could take it first, and front() of the empty queue read a stray op:
  // a segfault, a bus error or "the plan deadlocked" from run to run. Each schedule, on CPUs and on GPUs.
  const std::string base =
      "run scenarios/hybrid_pipeline_cpu.yaml --no-trace --json --set cluster.devices_per_node=8 "
      "--set model.transformer.layers=8 --set strategy.pipeline.stages=8 --set strategy.global_batch=4096 "
      "--set run.iterations=1 --set run.warmup=0";
  for (const char* device : {"cpu_socket", "a100_80gb"}) {
    for (const char* schedule : {"gpipe", "1f1b"}) {
      const std::string args =
          fmt::format("{} --set cluster.device={} --set strategy.pipeline.schedule={}", base, device, schedule);
      INFO(args);
      const double simgrid = iteration_time(
          run_dtsim(args + " --engine simgrid --out " + temp_dir("deep-pipeline-sg"), "deep-pipeline-sg"));
      const double analytical = iteration_time(
          run_dtsim(args + " --engine analytical --out " + temp_dir("deep-pipeline-an"), "deep-pipeline-an"));
      CHECK(simgrid == Approx(analytical).epsilon(1e-6));
    }
  }
}

TEST_CASE("dtsim tune reports an engine run that fails in its row and finishes the search", "[reliability][tune]") {
  // Under `ulimit -v` of 1.8 GB, 421 MB are left for data: the SimGrid runs of the best two layouts, 20 iterations of
  // 77,700 ops over 64 ranks, would hold about 550 MB and are refused; the search (275 MB) and the analytical runs
  // (281 MB: 12 KB a device over the base) go on. Before, one failed engine run ended the whole search (exit 1, no
  // tune.json).
  const std::string out = temp_dir("tune-failed-run");
  const auto r = run_shell(fmt::format("ulimit -v 1800000 && '{}/bin/dtsim' tune scenarios/gpt3_175b_megatron.yaml "
                                       "--set run.iterations=20 --top 2 --screen 6 --out '{}'",
                                       DTSIM_BINARY_DIR, out),
                           "tune-failed-run");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  for (const char* layout : {"#1 t4 p16 d1 mb1 interleaved v3 rc:selective sp tp-pp",
                             "#2 t8 p8 d1 mb2 interleaved v4 rc:selective sp tp-pp"}) {
    CHECK(r.out.find(fmt::format("{}: the SimGrid run failed: ", layout)) != std::string::npos);
  }
  CHECK(r.out.find("the run would hold about 550 MB in memory") != std::string::npos);
  const nlohmann::json tune = nlohmann::json::parse(slurp(out + "/tune.json"));
  REQUIRE(tune["ranked"].size() == 6);
  for (size_t i = 0; i < 6; ++i) {
    const auto& row = tune["ranked"][i];
    CHECK(row["analytical_error"].is_null());
    CHECK(row["analytical_s"].get<double>() > 0);
    CHECK(row["simgrid_s"].is_null());  // no SimGrid time: its run failed (the best two) or there was none
    CHECK(row["simgrid_error"].is_null() == (i >= 2));  // the best two went to SimGrid and failed there
  }
  CHECK(slurp(out + "/results.csv").find(",\"") != std::string::npos);  // the message, quoted (it holds commas)
  // A failed run is not kept: the same search without the limit runs those two again and keeps every run.
  const auto again = run_dtsim(
      fmt::format("tune scenarios/gpt3_175b_megatron.yaml --set run.iterations=20 --top 2 --screen 6 --out '{}'", out),
      "tune-failed-run-again");
  INFO(again.out << again.err);
  REQUIRE(again.code == 0);
  CHECK(again.out.find("reused 6 engine runs kept in " + out + " (2 run now)") != std::string::npos);
  CHECK(nlohmann::json::parse(slurp(out + "/tune.json"))["ranked"][0]["simgrid_s"].get<double>() > 0);
}

TEST_CASE("inputs that expand are refused before they allocate, naming the number that does not fit", "[reliability]") {
  // A sweep of 10,000 x 10,000 points ended in std::bad_alloc after 21 s.
  check_refused(run_dtsim("sweep scenarios/quickstart.yaml --param cluster.nodes=1..10000 --param run.seed=1..10000 "
                          "--out " +
                              temp_dir("sweep-grid"),
                          "sweep-grid"),
                "--param: the sweep has 100000000 points (10000 x 10000 values), which would hold about 4.15 TB in "
                "memory (41.5 KB a point");
  // A Chakra rank file that gunzips to 200 MB of zeros (200 million empty nodes) ended in std::bad_alloc after 33 s.
  const std::string traces = temp_dir("chakra-zeros");
  REQUIRE(run_shell("(head -c 200000000 /dev/zero | gzip -1 > '" + traces + "/z.0.et.gz')", "chakra-zeros-make").code ==
          0);
  check_refused(run_dtsim("import-chakra '" + traces + "' --out " + temp_dir("chakra-zeros-out"), "chakra-zeros"),
                "rank 0: the trace holds 199999999 nodes in 200 MB (");
}

TEST_CASE("a tune on more devices than its probes can place is refused before the first", "[reliability][tune]") {
  // 2^24 devices ended in std::bad_alloc after 10 s under a 4 GB `ulimit -v` (each probe places every rank).
  check_refused(run_shell(fmt::format("ulimit -v 4000000 && '{}/bin/dtsim' tune scenarios/gpt3_175b_megatron.yaml "
                                      "--devices 16777216 --set strategy.global_batch=1048576 --top 0 --screen 1 "
                                      "--out '{}'",
                                      DTSIM_BINARY_DIR, temp_dir("tune-2-24")),
                          "tune-2-24"),
                "error: tune: a search on 16777216 devices would hold about 154 GB (9154 B a device: every rank of a "
                "layout placed and grouped, and the analytical runs), more than the 1.55 GB the 4.1 GB address space "
                "of `ulimit -v` leaves for data; search fewer devices");
}

TEST_CASE("a YAML file too big to parse in the memory there is is refused before it is read", "[reliability]") {
  // A layer table of 250,000 rows (7.4 MB) holds about 540 MB parsed; `ulimit -v` of 1.5 GB leaves 268 MB for data.
  const std::string dir = temp_dir("big-model-file");
  {
    std::ofstream model(dir + "/big.yaml");
    model << "name: big\ncounts: flops\ncolumns: [name, params, fwd_flops]\nlayers:\n";
    for (int i = 0; i < 250000; ++i) model << "  - [layer" << i << ", 1000, 2000]\n";
    std::ofstream(dir + "/s.yaml") << "name: b\nmodel: {file: big.yaml}\n"
                                      "cluster: {nodes: 1, devices_per_node: 1, device: a100_80gb}\n";
  }
  check_refused(run_shell(fmt::format("ulimit -v 1500000 && '{}/bin/dtsim' check '{}/s.yaml'", DTSIM_BINARY_DIR, dir),
                          "big-model-file"),
                "big.yaml: error: the model file is 7.39 MB: read, it would hold about 539 MB (73 B a byte of YAML), "
                "more than the 268 MB the 1.54 GB address space of `ulimit -v` leaves for data");
}

TEST_CASE("profiles, failure traces and data files too big to read are refused before they are read", "[reliability]") {
  // Each file is sparse: its size is what the check reads, so a refusal shows that nothing was read (its zeros would
  // be refused as a bad first line). `ulimit -v` of 1.5 GB leaves 268 MB for data, 2 GB 524 MB (the convergence
  // runs: the quickstart's own estimate is 286 MB).
  const std::string dir = temp_dir("big-inputs");
  const auto sparse = [&dir](const std::string& name, std::uintmax_t bytes) {
    std::ofstream(dir + "/" + name).put('\0');
    std::filesystem::resize_file(dir + "/" + name, bytes);
    return dir + "/" + name;
  };
  const auto check = [](int limit_kb, const std::string& scenario, const std::string& sets, const std::string& tag) {
    return run_shell(
        fmt::format("ulimit -v {} && '{}/bin/dtsim' check {} {}", limit_kb, DTSIM_BINARY_DIR, scenario, sets), tag);
  };
  const std::string limit = "more than the 268 MB the 1.54 GB address space of `ulimit -v` leaves for data";
  const std::string profile = sparse("p.txt", 100000000);
  check_refused(check(1500000, "scenarios/heterogeneous_dynamic_batch.yaml",
                      "--set jobs.2.stragglers.speed_profile=" + profile, "big-profile"),
                profile +
                    ": error: the profile is 100 MB: read, it would hold about 310 MB (3.1 B a byte of profile "
                    "text), " +
                    limit);
  check_refused(check(1500000, "scenarios/heterogeneous_dynamic_batch.yaml", "--set cluster.nic_profile=" + profile,
                      "big-nic-profile"),
                profile + ": error: the profile is 100 MB");
  std::ofstream(dir + "/f.yaml") << "name: f\nmodel: {name: resnet50, batch_per_worker: 32}\n"
                                    "cluster: {nodes: 2, device: a100_80gb}\nfaults: {trace: trace.txt}\n";
  sparse("trace.txt", 300000000);
  check_refused(check(1500000, dir + "/f.yaml", "", "big-failure-trace"),
                "trace.txt: error: the failure trace is 300 MB: read, it would hold about 330 MB (1.1 B a byte of "
                "failure trace), " +
                    limit);
  const std::string more = "more than the 524 MB the 2.05 GB address space of `ulimit -v` leaves for data";
  const std::string csv = sparse("d.csv", 60000000);
  check_refused(
      check(2000000, "scenarios/quickstart.yaml",
            "--set run.convergence.enabled=true --set run.convergence.dataset=csv --set run.convergence.file=" + csv,
            "big-csv"),
      csv +
          ": error: the convergence CSV is 60 MB: read, it would hold about 648 MB (10.8 B a byte of "
          "CSV), " +
          more);
  const std::string images = sparse("images.idx", 40000000), labels = sparse("labels.idx", 10000);
  check_refused(check(2000000, "scenarios/quickstart.yaml",
                      "--set run.convergence.enabled=true --set run.convergence.dataset=mnist --set "
                      "run.convergence.file=" +
                          images + " --set run.convergence.labels=" + labels,
                      "big-idx"),
                images +
                    ": error: the IDX images file is 40 MB: read, it would hold about 580 MB (14.5 B a byte of "
                    "IDX), " +
                    more);
}

TEST_CASE("a data file whose width and labels make a proxy too big for memory is refused once read", "[reliability]") {
  // Two samples of 20,000 features (80 KB) with a label of 99,999: a softmax of 100,000 classes, 2e9 parameters, six
  // copies on each of 8 workers. Before, the Learner allocated until std::bad_alloc.
  const std::string dir = temp_dir("wide-csv");
  {
    std::ofstream csv(dir + "/wide.csv");
    for (const char* label : {"0", "99999"}) {
      csv << label;
      for (int f = 0; f < 20000; ++f) csv << ",1";
      csv << "\n";
    }
  }
  check_refused(run_dtsim("check scenarios/quickstart.yaml --set run.convergence.enabled=true --set "
                          "run.convergence.dataset=csv --set run.convergence.file=" +
                              dir + "/wide.csv",
                          "wide-csv"),
                "error: run.convergence.file: the proxy on its 20000 features and 100000 classes would hold about "
                "768 GB (6 copies of 2e+09 parameters for each of 8 workers), more than the ");
}

TEST_CASE("numeric options refuse NaN and infinities in one line", "[reliability]") {
  for (const char* value : {"nan", "inf", "-inf", "NaN"}) {
    INFO(value);
    // --max-memory-fraction nan ran a search with the scenario's fraction.
    check_refused(
        run_dtsim(fmt::format("tune scenarios/gpt3_175b_megatron.yaml --max-memory-fraction {} --out {}", value,
                              temp_dir("tune-nan")),
                  "tune-nan"),
        fmt::format("--max-memory-fraction: Value {} is not a finite number (--help lists the options)", value));
    check_refused(run_dtsim(fmt::format("sweep scenarios/quickstart.yaml --param cluster.nodes=1,2 "
                                        "--efficiency-threshold {} --out {}",
                                        value, temp_dir("sweep-nan")),
                            "sweep-nan"),
                  fmt::format("--efficiency-threshold: Value {} is not a finite number", value));
  }
}

TEST_CASE("damaged resume journals are reported in one line and their points run again", "[reliability][tune]") {
  const std::string search = "tune scenarios/gpt3_175b_megatron.yaml --top 2 --screen 6";
  const std::string whole = temp_dir("tune-journal-whole"), out = temp_dir("tune-journal-damaged");
  REQUIRE(run_dtsim(search + " --out '" + whole + "'", "tune-journal-whole").code == 0);
  REQUIRE(run_dtsim(search + " --out '" + out + "'", "tune-journal-first").code == 0);
  // Of its 8 lines: an iteration time of -1e308, metrics of the wrong type, a garbage line and the last one torn.
  std::vector<std::string> lines = lines_of(out + "/points.jsonl");
  REQUIRE(lines.size() == 8);
  nlohmann::json a = nlohmann::json::parse(lines[1]), b = nlohmann::json::parse(lines[2]);
  a["metrics"]["iteration_time_s"]["mean"] = -1e308;
  b["metrics"]["iteration_time_s"] = "fast";
  lines[1] = a.dump();
  lines[2] = b.dump();
  lines[3] = "garbage";
  lines[7] = lines[7].substr(0, 50);
  write_lines(out + "/points.jsonl", lines, true);
  std::filesystem::remove(out + "/tune.json");
  const auto resumed = run_dtsim(search + " --out '" + out + "'", "tune-journal-resumed");
  INFO(resumed.out << resumed.err);
  REQUIRE(resumed.code == 0);
  CHECK(resumed.err == "dtsim tune: " + out +
                           "/points.jsonl: 4 of its 8 lines cannot be trusted and are left out (the first, line 2: "
                           "iteration_time_s.mean is -1e+308, not a positive number); a point without a line to "
                           "trust is run again\n");
  CHECK(resumed.out.find("reused 4 engine runs kept in " + out + " (4 run now)") != std::string::npos);
  CHECK(comparable_tune(out) == comparable_tune(whole));

  // A sweep's journal likewise: a line with a fraction of the wrong type.
  const std::string sweep =
      "sweep scenarios/quickstart.yaml --engine analytical --param cluster.nodes=1,2,4 --no-plots";
  const std::string sweep_whole = temp_dir("sweep-journal-whole"), sweep_out = temp_dir("sweep-journal-damaged");
  REQUIRE(run_dtsim(sweep + " --out '" + sweep_whole + "'", "sweep-journal-whole").code == 0);
  REQUIRE(run_dtsim(sweep + " --out '" + sweep_out + "'", "sweep-journal-first").code == 0);
  std::vector<std::string> points = lines_of(sweep_out + "/points.jsonl");
  REQUIRE(points.size() == 3);
  nlohmann::json c = nlohmann::json::parse(points[0]);
  c["metrics"]["compute_fraction"] = "most";
  points[0] = c.dump();
  write_lines(sweep_out + "/points.jsonl", points, false);
  const auto swept = run_dtsim(sweep + " --out '" + sweep_out + "'", "sweep-journal-resumed");
  INFO(swept.out << swept.err);
  REQUIRE(swept.code == 0);
  CHECK(swept.err.find("dtsim sweep: " + sweep_out +
                       "/points.jsonl: 1 of its 3 lines cannot be trusted and are left out (the first, line 1: "
                       "compute_fraction is \"most\", not a number)") != std::string::npos);
  CHECK(slurp(sweep_out + "/results.csv") == slurp(sweep_whole + "/results.csv"));
}

TEST_CASE("a key swept twice is refused, one setting under two names takes the last", "[reliability]") {
  check_refused(run_dtsim("sweep scenarios/quickstart.yaml --param cluster.nodes=1,2 --param cluster.nodes=4 --out " +
                              temp_dir("sweep-twice"),
                          "sweep-twice"),
                "--param cluster.nodes=4: error: cluster.nodes is swept by two --param options (--param "
                "cluster.nodes=1,2); give all its values in one");
  // hybrid_pipeline_cpu.yaml gives `pipeline: {stages: 2, ...}`; tests/cli/data/grid/hybrid.yaml `pipeline: 2`.
  const auto stages = [](const std::string& args, const std::string& tag) {
    const auto r = run_dtsim(args + " --engine analytical --no-trace --json --out " + temp_dir(tag), tag);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out)["memory"]["per_stage"].size();
  };
  const std::string cpu =
      "run scenarios/hybrid_pipeline_cpu.yaml --set cluster.devices_per_node=4 "
      "--set model.transformer.layers=8";
  CHECK(stages(cpu + " --set strategy.pipeline=4", "twin-short") == 4);
  CHECK(stages(cpu + " --set strategy.pipeline=4 --set strategy.pipeline.stages=2", "twin-both") == 2);
  CHECK(stages("run tests/cli/data/grid/hybrid.yaml --set strategy.pipeline.stages=1", "twin-long") == 1);
  // A mistake in the setting points at the name that gave it last (it pointed at the file's `pipeline: 2`).
  check_refused(run_dtsim("check tests/cli/data/grid/hybrid.yaml --set strategy.pipeline.stages=4 "
                          "--set model.transformer.layers=6",
                          "twin-error"),
                "--set strategy.pipeline.stages=4: error: strategy.pipeline.stages: the model's 6 layers do not split "
                "evenly over 4 stages");
}

}  // namespace dtsim::test
