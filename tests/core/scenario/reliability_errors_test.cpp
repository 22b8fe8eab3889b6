// Inputs that `dtsim check` once accepted and a run then could not handle (issue #20, "Found"): each
// is now refused in one exact located line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/calibration/profile_reader.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/scenario_error.hpp"

using dtsim::test::error_of;

namespace {

const char* const kGood = dtsim::test::kGoodScenario;

std::string load_error(const std::string& path) {
  try {
    dtsim::load_scenario(path);
  } catch (const dtsim::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("negative latencies are refused at load with the meaningful range") {
  for (const char* key : {"cluster.nic.latency", "cluster.intra_node.latency", "cluster.topology.switch_latency",
                          "cluster.servers.nic_latency"}) {
    INFO(key);
    CHECK(error_of(kGood, {std::string(key) + "=-1us"}) ==
          std::string("--set ") + key + "=-1us: error: " + key +
              ": '-1us' is outside what is physically meaningful: from 0 to 1e9 s (31 years)");
  }
  CHECK(error_of(std::string(kGood) + "  nic: {latency: -5us}\n") ==
        "x.yaml:8:18: error: cluster.nic.latency: '-5us' is outside what is physically meaningful: from 0 to 1e9 s "
        "(31 years)");
}

TEST_CASE("absurd sizes, rates and factors are refused with their bound") {
  CHECK(error_of(kGood, {"strategy.allreduce.bucket_size=1e30MB"}) ==
        "--set strategy.allreduce.bucket_size=1e30MB: error: strategy.allreduce.bucket_size: '1e30MB' is outside what "
        "is physically meaningful: from 0 to 1 PB");
  CHECK(error_of(kGood, {"cluster.nic.rate=1e20Gbps"}) ==
        "--set cluster.nic.rate=1e20Gbps: error: cluster.nic.rate: '1e20Gbps' is outside what is physically "
        "meaningful: 0, or from 1 B/s to 100 TB/s");
  CHECK(error_of(kGood, {"model.synthetic.params=1e30"}) ==
        "--set model.synthetic.params=1e30: error: model.synthetic.params: must be from 0 to 1e+15 (got 1e30)");
  CHECK(error_of(kGood, {"stragglers.slow_factor=1e30"}) ==
        "--set stragglers.slow_factor=1e30: error: stragglers.slow_factor: must be from 1 to 1000 (got 1e30)");
  // The bounds themselves are accepted.
  CHECK(error_of(kGood, {"strategy.allreduce.bucket_size=1000TB", "cluster.nic.latency=0s"}) == "no error");
}

TEST_CASE("a key or a section given twice is refused with both lines") {
  CHECK(error_of("name: a\ncluster:\n  nodes: 2\nmodel: {name: resnet50}\ncluster:\n  device: v100\n") ==
        "x.yaml:5:1: error: 'cluster' is given twice in one mapping: here and at line 2 (give it once, with all its "
        "keys)");
  CHECK(error_of(std::string(kGood) + "  nodes: 4\n") ==
        "x.yaml:8:3: error: 'cluster.nodes' is given twice in one mapping: here and at line 5 (give it once)");
  // In a jobs list each job is its own mapping: the same key in two jobs is fine.
  CHECK(error_of("cluster: {nodes: 2, device: a100_40gb}\njobs:\n  - {name: a, model: {name: resnet50}, placement: "
                 "{nodes: 1}}\n  - {name: b, model: {name: resnet50}, placement: {first_node: 1, nodes: 1}}\n") ==
        "no error");
}

TEST_CASE("text that is not UTF-8 is refused where it stands") {
  CHECK(error_of("name: caf\xe9\nmodel: {name: resnet50}\n") ==
        "x.yaml:1:10: error: the scenario is not UTF-8 text (byte 0xE9): save it as UTF-8");
  CHECK(error_of(kGood, {"name=a\xff"}) ==
        "--set name=a\\xFF: error: is not UTF-8 text: give keys and values in UTF-8");
  CHECK(error_of(std::string(kGood) + "  nic: {latency: 5us}  # caf\xc3\xa9\n") == "no error");  // é in UTF-8
}

TEST_CASE("a directory or a missing path given as the scenario says so") {
  const auto dir = std::filesystem::temp_directory_path() / "dtsim_scenario_dir_test";
  std::filesystem::create_directories(dir);
  CHECK(load_error(dir.string()) == dir.string() +
                                        ": error: this is a directory, not a scenario file (give a .yaml file, e.g. "
                                        "scenarios/quickstart.yaml)");
  CHECK(load_error((dir / "none.yaml").string()) == (dir / "none.yaml").string() + ": error: no such scenario file");
}

TEST_CASE("raw bytes never reach an error line: control bytes and bytes that are not UTF-8 are escaped") {
  const dtsim::InputError e(dtsim::SourceLocation{"data.csv", 2, 1}, "'\x01\x8d\xeb\tA\xc3\xa9\x7f' is not a number");
  CHECK(std::string(e.what()) == "data.csv:2:1: error: '\\x01\\x8D\\xEB\tA\xc3\xa9\\x7F' is not a number");
  CHECK(dtsim::first_invalid_utf8("abc\xc3\xa9") == std::nullopt);
  CHECK(dtsim::first_invalid_utf8("ab\xc0\xaf") == 2u);                  // an overlong '/'
  CHECK(dtsim::first_invalid_utf8("\xed\xa0\x80") == 0u);                // a surrogate
  CHECK(dtsim::first_invalid_utf8("\xf4\x90\x80\x80") == 0u);            // above U+10FFFF
  CHECK(dtsim::first_invalid_utf8("x\xe2\x82") == 1u);                   // cut short
  CHECK(dtsim::first_invalid_utf8("\xf0\x9f\x98\x80") == std::nullopt);  // an emoji
}

TEST_CASE("a key that is not a name is refused at its line, not ended in an internal error") {
  CHECK(error_of("? {a: 1}\n: 2\n") ==
        "x.yaml:1:3: error: a key is a name such as 'model' or 'cluster' (got a mapping)");
  CHECK(error_of(std::string(kGood) + "[1, 2]: 3\n") ==
        "x.yaml:8:1: error: a key is a name such as 'model' or 'cluster' (got a list)");
  CHECK(error_of("cluster:\n  ? [a]\n  : 1\n") ==
        "x.yaml:2:5: error: a key is a name such as 'cluster.<name>' (got a list)");
}

TEST_CASE("a calibration profile of an unexpected shape is refused at its line (found by fuzz_calibration_profile)") {
  // measurements.link_rounds a scalar where a mapping of curves goes: yaml-cpp's BadSubscript used
  // to escape as an internal error.
  std::ifstream in(std::string(DTSIM_SOURCE_DIR) + "/tests/calibrate/data/profile.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "  link_rounds:\n    same_host: [[1024, 3.024e-6]";
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "  link_rounds: broken\n    #[[1024, 3.024e-6]");
  const auto path = std::filesystem::temp_directory_path() / "dtsim_profile_shape.yaml";
  std::ofstream(path) << text;
  try {
    dtsim::load_calibration_profile(path.string());
    FAIL("loaded");
  } catch (const dtsim::InputError& e) {
    CHECK(std::string(e.what()).find("calibration profile: unexpected YAML here: operator[] call on a scalar") !=
          std::string::npos);
  }
}
