// End-to-end tests of the dtsim command line: exit codes, error lines, files written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/run_process.hpp"

using dtsim::test::run_dtsim;

TEST_CASE("run writes metrics.json with the documented fields") {
  const std::string out = dtsim::test::temp_dir("quickstart");
  const auto r = run_dtsim("run scenarios/quickstart.yaml --out '" + out + "'", "run");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("iteration time mean") != std::string::npos);
  const auto m = nlohmann::json::parse(dtsim::test::slurp(out + "/metrics.json"));
  CHECK(m["schema_version"] == 2);
  CHECK(m["engine"] == "simgrid");
  CHECK(m["fidelity"] == "flow");
  for (const char* k : {"mean", "p50", "p95", "p99"}) CHECK(m["iteration_time_s"][k].get<double>() > 0);
  CHECK(m["throughput_samples_per_s"].get<double>() > 0);
  const double comm = m["comm_fraction"].get<double>();
  CHECK((comm > 0 && comm < 1));
  const double sum =
      m["compute_fraction"].get<double>() + m["exposed_comm_fraction"].get<double>() + m["wait_fraction"].get<double>();
  CHECK(sum == Approx(1.0).epsilon(1e-9));
  CHECK(m["per_rank"].size() == 8);
  // Throughput is the samples of one iteration over its mean time: 8 workers x 64 samples.
  CHECK(m["throughput_samples_per_s"].get<double>() == Approx(8 * 64 / m["iteration_time_s"]["mean"].get<double>()));
  const auto trace = nlohmann::json::parse(dtsim::test::slurp(out + "/trace.json"));
  CHECK(trace["traceEvents"].size() > 100);
}

TEST_CASE("bad scenarios exit with 2 and one error line") {
  const auto r = run_dtsim("check tests/cli/data/bad_unit.yaml", "bad-unit");
  CHECK(r.code == 2);
  CHECK(r.err ==
        "tests/cli/data/bad_unit.yaml:12:11: error: cluster.nic.rate: '100 Gbit' is not a rate (use e.g. 100Gbps or "
        "12.5GB/s; units bps, Kbps, Mbps, Gbps, Tbps, B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s)\n");
  const auto u = run_dtsim("run tests/cli/data/unknown_key.yaml", "unknown-key");
  CHECK(u.code == 2);
  CHECK(u.err == "tests/cli/data/unknown_key.yaml:5:3: error: unknown key 'cluster.nodez' (did you mean 'nodes'?)\n");
  const auto m = run_dtsim("check scenarios/quickstart.yaml --set cluster.nodes=-1", "bad-set");
  CHECK(m.code == 2);
  CHECK(m.err == "--set cluster.nodes=-1: error: cluster.nodes: '-1' is not a count (use a whole number such as 8)\n");
  const auto profile =
      run_dtsim("check scenarios/quickstart.yaml --set stragglers.speed_profile=../tests/cli/data/bad_profile.txt",
                "bad-profile");
  CHECK(profile.code == 2);
  CHECK(profile.err ==
        "scenarios/../tests/cli/data/bad_profile.txt:3:1: error: '2s  fast' is not a profile point (use "
        "`time factor`, e.g. `10s 0.5`, with factor a number > 0 and times increasing, or `period 60s`)\n");
  const auto missing = run_dtsim("check no/such.yaml", "missing-file");
  CHECK(missing.code == 2);
  CHECK(missing.err == "no/such.yaml: error: no such scenario file\n");
}

TEST_CASE("usage errors exit with 2 / --help and --version with 0") {
  CHECK(run_dtsim("", "no-args").code == 2);
  const auto unknown = run_dtsim("frobnicate", "bad-cmd");  // named, with the commands, on one line
  CHECK(unknown.code == 2);
  CHECK(unknown.err.rfind("dtsim: unknown command 'frobnicate'; the commands: run, ", 0) == 0);
  for (const char* command : {"sweep", "compare", "tune", "checkpoint", "keys"}) {
    CHECK(unknown.err.find(std::string(" ") + command) != std::string::npos);
  }
  CHECK(unknown.err.find('\n') == unknown.err.size() - 1);
  const auto help = run_dtsim("--help", "help");
  CHECK(help.code == 0);
  CHECK(help.out.find("Examples:") != std::string::npos);
  const auto version = run_dtsim("--version", "version");
  CHECK(version.code == 0);
  CHECK(version.out.rfind("dtsim ", 0) == 0);
}

TEST_CASE("each subcommand's --help shows examples of that subcommand, on files that exist") {
  for (const std::string cmd :
       {"run", "check", "sweep", "merge", "compare", "models", "devices", "checkpoint", "tune", "calibrate", "validate",
        "keys", "export-chakra", "import-chakra", "collectives", "kernels"}) {
    const auto help = run_dtsim(cmd + " --help", "help-" + cmd);
    INFO(cmd);
    CHECK(help.code == 0);
    const auto at = help.out.find("Examples:");
    REQUIRE(at != std::string::npos);
    std::istringstream lines(help.out.substr(at));
    std::string line;
    std::getline(lines, line);
    int examples = 0;
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      // Every example runs this subcommand, and every scenario or bench file it names is in the tree.
      CHECK(line.find("dtsim " + cmd) != std::string::npos);
      ++examples;
      std::istringstream words(line);
      for (std::string w; words >> w;) {
        if (w.rfind("scenarios/", 0) == 0 || w.rfind("bench/", 0) == 0)
          CHECK(std::filesystem::exists(std::string(DTSIM_SOURCE_DIR) + "/" + w));
      }
    }
    CHECK(examples >= 1);
  }
}

TEST_CASE("the two engines agree where there is no contention") {
  // Quickstart: one job, its bucket AllReduces one after another on the comm stream; nothing competes.
  double mean[2] = {0, 0};
  int i = 0;
  for (const char* engine : {"simgrid", "analytical"}) {
    const std::string out = dtsim::test::temp_dir(std::string("engine-") + engine);
    const auto r = run_dtsim(std::string("run scenarios/quickstart.yaml --engine ") + engine + " --out '" + out + "'",
                             std::string("engine-") + engine);
    REQUIRE(r.code == 0);
    const auto m = nlohmann::json::parse(dtsim::test::slurp(out + "/metrics.json"));
    CHECK(m["engine"] == engine);
    mean[i++] = m["iteration_time_s"]["mean"].get<double>();
  }
  CHECK(mean[0] == Approx(mean[1]).epsilon(0.02));
}

TEST_CASE("a Llama 3 8B config.json on DGX H100s: imported as a model file, and run with tokens/s per GPU and MFU") {
  const std::string out = dtsim::test::temp_dir("hf-import");
  const auto imported =
      run_dtsim("models import scenarios/hf/Meta-Llama-3-8B/config.json --out '" + out + "/llama.yaml'", "hf-import");
  INFO(imported.out);
  REQUIRE(imported.code == 0);
  CHECK(imported.out.find("Meta-Llama-3-8B (8030 M parameters") != std::string::npos);
  const std::string file = dtsim::test::slurp(out + "/llama.yaml");
  CHECK(file.find("  kv_heads: 8\n") != std::string::npos);
  CHECK(file.find("  gated_mlp: true\n") != std::string::npos);
  // The model file runs as the config does.
  const auto by_config =
      run_dtsim("run scenarios/llama3_8b_hf_dgx_h100.yaml --json --no-trace --out '" + out + "/a'", "hf-run-config");
  std::string scenario = dtsim::test::slurp(std::string(DTSIM_SOURCE_DIR) + "/scenarios/llama3_8b_hf_dgx_h100.yaml");
  const std::string config = "\n  hf_config: hf/Meta-Llama-3-8B/config.json";
  REQUIRE(scenario.find(config) != std::string::npos);
  scenario.replace(scenario.find(config), config.size(), "\n  file: llama.yaml");
  std::ofstream(out + "/s.yaml") << scenario;
  const auto by_file = run_dtsim("run '" + out + "/s.yaml' --json --no-trace --out '" + out + "/b'", "hf-run-file");
  REQUIRE(by_config.code == 0);
  const auto a = nlohmann::json::parse(dtsim::test::slurp(out + "/a/metrics.json"));
  INFO(by_file.out);
  REQUIRE(by_file.code == 0);
  const auto b = nlohmann::json::parse(dtsim::test::slurp(out + "/b/metrics.json"));
  CHECK(a["iteration_time_s"] == b["iteration_time_s"]);
  CHECK(a["tokens_per_s_per_device"].get<double>() == Approx(a["throughput_samples_per_s"].get<double>() * 8192 / 32));
  CHECK(a["mfu"].get<double>() > 0);
  const auto summary = run_dtsim("run scenarios/llama3_8b_hf_dgx_h100.yaml --no-trace --out '" + out + "/c'", "hf-sum");
  CHECK(summary.out.find(" per device)") != std::string::npos);
  CHECK(summary.out.find("MFU ") != std::string::npos);
  CHECK(summary.out.find("32 devices' 31.7 PFLOPS bf16 peak") != std::string::npos);  // 32 H100 SXM at 989 TFLOP/s
  CHECK(summary.out.find("NVLink 450 GB/s") != std::string::npos);                    // the preset's NVLink 4
}

TEST_CASE("models / devices and keys list the zoo and the scenario language") {
  const auto models = run_dtsim("models list", "models");
  CHECK(models.code == 0);
  CHECK(models.out.find("resnet50") != std::string::npos);
  CHECK(models.out.find("25557032") != std::string::npos);
  const auto show = run_dtsim("models show alexnet", "show");
  CHECK(show.code == 0);
  CHECK(show.out.find("61100840") != std::string::npos);
  CHECK(run_dtsim("models show alexnett", "show-bad").code == 2);
  const auto shape = run_dtsim("models show llama3_70b", "show-shape");
  CHECK(shape.code == 0);
  CHECK(shape.out.find("70553706496") != std::string::npos);
  CHECK(shape.out.find("shape (model.transformer.*): layers 80, hidden 8192, heads 64, seq_len 8192") !=
        std::string::npos);
  CHECK(show.out.find("shape (") == std::string::npos);  // alexnet is given by its rows
  const auto devices = run_dtsim("devices", "devices");
  CHECK(devices.code == 0);
  CHECK(devices.out.find("312 TFLOPS") != std::string::npos);
  CHECK(devices.out.find("0.86/0.72/0.88") != std::string::npos);  // A100's published kernel fractions
  CHECK(run_dtsim("keys", "keys").out.find("cluster.nic.rate") != std::string::npos);
}

TEST_CASE("docs/scenarios.md is the loader's key table") {
  const auto keys = run_dtsim("keys --markdown", "keys-md");
  REQUIRE(keys.code == 0);
  CHECK(keys.out == dtsim::test::slurp(std::string(DTSIM_SOURCE_DIR) + "/docs/scenarios.md"));
}

namespace dtsim::test {

TEST_CASE("dtsim collectives prints NCCL's predicted nccl-tests table, a bad collective exits 2") {
  const auto r = run_dtsim(
      "collectives --device a100_80gb --nodes 2 --set cluster.nic.count=8 --set "
      "cluster.nic.rate=200Gbps --ops allreduce --min-bytes 1MiB --max-bytes 1GiB",
      "coll");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("ring 8 channels x 24.0/24.0 GB/s") != std::string::npos);
  CHECK(r.out.find("1073741824") != std::string::npos);
  const auto bad = run_dtsim("collectives --ops allreduse", "coll-bad");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("allreduce") != std::string::npos);
}

TEST_CASE("dtsim collectives --measured lays a nccl-tests run beside the model at its sizes, --plot draws both") {
  const std::string dir = temp_dir("coll-measured");
  const std::string measured = dir + "/all_reduce_perf.txt";
  std::ofstream(measured) << "#       size         count      type   redop    root     time   algbw   busbw #wrong"
                             "     time   algbw   busbw #wrong\n"
                             "     1048576        262144     float     sum      -1    40.00   26.21   45.88      0"
                             "    40.00   26.21   45.88      0\n"
                             "   268435456      67108864     float     sum      -1  2500.00  107.37  187.90      0"
                             "  2500.00  107.37  187.90      0\n";
  const std::string cluster = "collectives --preset dgx_a100 --nodes 1 --ops allreduce";
  const auto r = run_dtsim(cluster + " --measured '" + measured + "' --plot '" + dir + "/curve.svg'", "coll-measured");
  REQUIRE(r.code == 0);
  // At the measured sizes only, the model's busbw as the plain table gives it, the error against the measured one.
  const auto plain = run_dtsim(cluster + " --min-bytes 1MiB --max-bytes 256MiB", "coll-measured-plain");
  REQUIRE(plain.code == 0);
  std::map<double, double> model;
  for (std::istringstream in(plain.out); !in.eof();) {
    std::string line;
    std::getline(in, line);
    std::istringstream f(line);
    std::string kind;
    double bytes = 0, time = 0, algbw = 0, busbw = 0;
    if (f >> kind >> bytes >> time >> algbw >> busbw && kind == "allreduce") model[bytes] = busbw;
  }
  int rows = 0;
  for (std::istringstream in(r.out); !in.eof();) {
    std::string line;
    std::getline(in, line);
    std::istringstream f(line);
    std::string kind, algo, proto, percent;
    double bytes = 0, time = 0, algbw = 0, busbw = 0, meas = 0, error = 0;
    if (!(f >> kind >> bytes >> time >> algbw >> busbw >> algo >> proto >> meas >> error >> percent)) continue;
    INFO(line);
    REQUIRE(model.count(bytes) == 1);
    CHECK(busbw == Approx(model[bytes]).margin(0.01));
    CHECK(meas == (bytes == 1048576 ? 45.88 : 187.90));
    CHECK(error == Approx(100 * (busbw - meas) / meas).margin(0.1));
    ++rows;
  }
  CHECK(rows == 2);
  CHECK(r.out.find("# against " + measured + ": mean / largest |error| from 1 MiB") != std::string::npos);
  const std::string svg = slurp(dir + "/curve.svg");
  CHECK(svg.find("allreduce: NCCL's model (dtsim)") != std::string::npos);
  CHECK(svg.find("allreduce: all_reduce_perf.txt") != std::string::npos);
  CHECK(svg.find(">1 MiB<") != std::string::npos);  // sizes on the x axis in binary units
  CHECK(svg.find(">256 MiB<") != std::string::npos);
  // One collective per measured curve; an .svg or a .png.
  const auto two = run_dtsim("collectives --preset dgx_a100 --ops allreduce,allgather --measured '" + measured + "'",
                             "coll-measured-two");
  CHECK(two.code == 2);
  CHECK(two.err.find("a measured curve is of one collective") != std::string::npos);
  const auto pdf = run_dtsim(cluster + " --plot '" + dir + "/curve.pdf'", "coll-measured-pdf");
  CHECK(pdf.code == 2);
  CHECK(pdf.err.find("name an .svg or a .png file") != std::string::npos);
  CHECK(pdf.out.empty());  // refused before the table
  const auto missing = run_dtsim(cluster + " --measured '" + dir + "/none.txt'", "coll-measured-missing");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("none.txt: error: cannot read the measured curve") != std::string::npos);
}

TEST_CASE(
    "dtsim collectives --preset describes a system without a scenario, and a bad preset exits 2 naming the valid") {
  const auto r = run_dtsim("collectives --preset dgx_h100 --nodes 2 --ops allreduce --max-bytes 1MiB", "coll-preset");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("on 2 node(s) x 8 h100_sxm") != std::string::npos);
  CHECK(r.out.find("18 NVLinks per GPU") != std::string::npos);    // nvlink4: 450 GB/s in links of 25
  CHECK(r.out.find("8 NIC(s) x 50.0 GB/s") != std::string::npos);  // ib_ndr: 400 Gb/s
  CHECK(r.out.find("Intel CPU") != std::string::npos);
  // --device and --set win over the preset.
  const auto a100 = run_dtsim(
      "collectives --preset dgx_h100 --device a100_80gb --set cluster.nic.count=4 --nodes 2 "
      "--ops allreduce --max-bytes 1MiB",
      "coll-preset-device");
  REQUIRE(a100.code == 0);
  CHECK(a100.out.find("x 8 a100_80gb") != std::string::npos);
  CHECK(a100.out.find("4 NIC(s) x 50.0 GB/s") != std::string::npos);
  const auto bad = run_dtsim("collectives --preset dgx_h101 --nodes 2", "coll-preset-bad");
  CHECK(bad.code == 2);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  CHECK(bad.err.find("cluster.preset") != std::string::npos);
  CHECK(bad.err.find("dgx_h100") != std::string::npos);
  CHECK(bad.err.find("dgx_a100") != std::string::npos);
  CHECK(bad.err.find("azure_nd_h100_v5") != std::string::npos);
}

}  // namespace dtsim::test
