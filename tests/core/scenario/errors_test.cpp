// Bad scenarios: each mistake gives one exact error line pointing at file:line:col.
#include <catch2/catch.hpp>

#include "core/base/error.hpp"
#include "core/scenario/loader.hpp"
#include "tests/support/scenario_error.hpp"

using dtsim::test::error_of;

const char* const kGood = dtsim::test::kGoodScenario;

TEST_CASE("a good scenario loads with its defaults") {
  const auto s = dtsim::load_scenario_text(kGood, "x.yaml");
  CHECK(s.workers() == 8);
  CHECK(s.job().workload.name == "resnet50");
  CHECK(s.cluster.nic.rate == Approx(12.5e9));
  CHECK(s.job().strategy.bucket_size == 25e6);
  CHECK(s.where.at("cluster.nodes").line == 5);
  CHECK(s.where.at("cluster.nodes").col == 10);
}

TEST_CASE("unknown keys are refused with a suggestion") {
  CHECK(error_of("model:\n  name: resnet50\ncluster:\n  nodez: 2\n  device: v100\n") ==
        "x.yaml:4:3: error: unknown key 'cluster.nodez' (did you mean 'nodes'?)");
  CHECK(error_of("modle:\n  name: resnet50\n") == "x.yaml:1:1: error: unknown key 'modle' (did you mean 'model'?)");
  CHECK(error_of(std::string(kGood) + "colour: blue\n") == "x.yaml:8:1: error: unknown key 'colour'");
}

TEST_CASE("bad units name the key and what would be valid") {
  CHECK(error_of(std::string(kGood) + "  nic:\n    rate: 100 Gbit\n") ==
        "x.yaml:9:11: error: cluster.nic.rate: '100 Gbit' is not a rate (use e.g. 100Gbps or 12.5GB/s; units bps, "
        "Kbps, Mbps, Gbps, Tbps, B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s)");
  CHECK(error_of(std::string(kGood) + "  nic:\n    latency: 5 parsecs\n") ==
        "x.yaml:9:14: error: cluster.nic.latency: '5 parsecs' is not a time (use e.g. 5us or 1.5ms; units ns, us, ms, "
        "s, min, h)");
}

TEST_CASE("a bus bandwidth curve names the point that is wrong") {
  const std::string at = std::string(kGood) + "  intra_node:\n    collective_busbw: ";
  CHECK(error_of(at + "16MB:100GB/s,8MB:200GB/s\n") ==
        "x.yaml:9:23: error: cluster.intra_node.collective_busbw: '8MB:200GB/s': sizes must ascend");
  CHECK(error_of(at + "16MB-100GB/s\n") ==
        "x.yaml:9:23: error: cluster.intra_node.collective_busbw: '16MB-100GB/s' is not a list of size:rate points "
        "(e.g. 16MB:109GB/s,64MB:167GB/s)");
  CHECK(error_of(at + "16MB:0GB/s\n") ==
        "x.yaml:9:23: error: cluster.intra_node.collective_busbw: '16MB:0GB/s': sizes and rates must be positive");
  const auto s = dtsim::load_scenario_text(at + "16MiB:109.22GB/s,64MiB:166.63GB/s\n", "x.yaml");
  REQUIRE(s.cluster.intra_busbw.size() == 2);
  CHECK(s.cluster.intra_busbw[1].first == 64.0 * 1048576);
  CHECK(s.cluster.intra_busbw[1].second == Approx(166.63e9));
}

TEST_CASE("negative and zero counts") {
  CHECK(error_of("model:\n  name: resnet50\ncluster:\n  nodes: -2\n  device: v100\n") ==
        "x.yaml:4:10: error: cluster.nodes: '-2' is not a count (use a whole number such as 8)");
  CHECK(error_of("model:\n  name: resnet50\ncluster:\n  nodes: 0\n  device: v100\n") ==
        "x.yaml:4:10: error: cluster.nodes: must be at least 1 (got 0)");
}

TEST_CASE("missing fields") {
  CHECK(error_of("model:\n  name: resnet50\ncluster:\n  nodes: 2\n") ==
        "x.yaml: error: missing key 'cluster.device' (A device from the zoo (`dtsim devices`); cluster.preset may give "
        "it. Without one, an H100, H200 or B200 brings its DGX node's links.)");
  CHECK(error_of("cluster:\n  device: v100\n") ==
        "x.yaml: error: missing key 'model.name' (a zoo model, transformer or synthetic), 'model.file' or "
        "'model.hf_config'");
}

TEST_CASE("more ranks than devices") {
  CHECK(error_of(std::string(kGood) + "strategy:\n  workers: 16\n") ==
        "x.yaml:9:12: error: ranks (16) exceed devices in the cluster (8)");
}

TEST_CASE("a model that does not exist") {
  CHECK(error_of("model:\n  name: resnet5\ncluster:\n  device: v100\n") ==
        "x.yaml:2:9: error: model.name: unknown model 'resnet5' (did you mean 'resnet50'? valid: alexnet, bert_large, "
        "gpt2_xl, gpt3_175b, inception_v3, llama2_70b, llama2_7b, llama3_405b, llama3_70b, llama3_8b, megatron_175b, "
        "megatron_1t, megatron_22b, megatron_530b, mixtral_8x7b, resnet101, resnet50, vgg16)");
}

TEST_CASE("unknown devices / choices and algorithms") {
  CHECK(error_of("model:\n  name: resnet50\ncluster:\n  device: a100\n") ==
        "x.yaml:4:11: error: cluster.device: unknown device 'a100' (valid: a100_40gb, a100_80gb, b200, cpu_socket, "
        "h100_sxm, "
        "h100_sxm_hbm2e, h200, mi300x, p100, v100) (did you mean 'a100_40gb'?)");
  CHECK(error_of(std::string(kGood) + "strategy:\n  kind: allreduse\n") ==
        "x.yaml:9:9: error: strategy.kind: 'allreduse' is not valid (valid: allreduce, parameter_server, hybrid) (did "
        "you mean 'allreduce'?)");
}

TEST_CASE("invalid YAML and values of the wrong shape") {
  CHECK(error_of("model: [1, 2\n").rfind("x.yaml:", 0) == 0);
  CHECK(error_of("model:\n  name:\n    - a\n") == "x.yaml:2:3: error: model.name: expected a single value, not a list");
  CHECK(error_of("model: resnet50\n") ==
        "x.yaml:1:1: error: model: is a section; expected keys such as batch_per_worker, dtype, file, fp8, "
        "grad_dtype, hf_config, name, optimizer, synthetic, transformer");
}

TEST_CASE("overrides from --set get the same validation") {
  const auto s = dtsim::load_scenario_text(kGood, "x.yaml", {"cluster.nodes=4", "strategy.allreduce.bucket_size=50MB"});
  CHECK(s.workers() == 16);
  CHECK(s.job().strategy.bucket_size == 50e6);
  CHECK(error_of(kGood, {"cluster.nodez=4"}) ==
        "--set cluster.nodez=4: error: unknown key 'cluster.nodez' (did you mean 'nodes'?)");
  CHECK(error_of(kGood, {"cluster.nic.rate=fast"})
            .rfind("--set cluster.nic.rate=fast: error: cluster.nic.rate: 'fast' is not a rate", 0) == 0);
  CHECK(error_of(kGood, {"cluster.nodes"}) ==
        "--set cluster.nodes: error: expected key.path=value, e.g. --set "
        "cluster.nodes=4");
}

TEST_CASE("contention is a fraction of the compute rate, from the device zoo unless given") {
  const auto zoo = dtsim::load_scenario_text(kGood, "x.yaml");
  CHECK(zoo.cluster.compute_kept_at(0) == Approx(0.78));  // A100: 1 - 24/108
  const auto off = dtsim::load_scenario_text(std::string(kGood) + "  contention: {compute: 1}\n", "x.yaml");
  CHECK(off.cluster.compute_kept_at(1) == 1.0);
  CHECK(error_of(std::string(kGood) + "  contention: {compute: 1.5}\n") ==
        "x.yaml:8:25: error: cluster.contention.compute: must be in (0, 1], or 0 for the device zoo's figure (got "
        "1.5)");
}

TEST_CASE("unset, the collective algorithm is NCCL's choice on GPUs and a ring on CPUs, a given one wins") {
  CHECK(dtsim::load_scenario_text(kGood, "x.yaml").job().strategy.algorithm == "nccl");
  CHECK(dtsim::load_scenario_text(kGood, "x.yaml", {"cluster.device=cpu_socket"}).job().strategy.algorithm == "ring");
  CHECK(dtsim::load_scenario_text(kGood, "x.yaml", {"strategy.allreduce.algorithm=double_binary_tree"})
            .job()
            .strategy.algorithm == "double_binary_tree");
  CHECK(dtsim::load_scenario_text(kGood, "x.yaml", {"strategy.allreduce.algorithm=ring"}).job().strategy.algorithm ==
        "ring");
}

TEST_CASE("nccl as the collective algorithm needs GPUs") {
  const std::string cpus = std::string(kGood) + "strategy:\n  allreduce:\n    algorithm: nccl\n";
  CHECK(error_of(cpus, {"cluster.device=cpu_socket"}) ==
        "x.yaml:10:16: error: strategy.allreduce.algorithm: nccl models NCCL on GPUs, and device 'cpu_socket' is not "
        "one (use ring, double_binary_tree, halving_doubling, hierarchical or direct)");
  CHECK(dtsim::load_scenario_text(cpus, "x.yaml").job().strategy.algorithm == "nccl");
}

TEST_CASE("lists of whole numbers refuse values past 1e9 instead of overflowing an int") {
  const std::string at = std::string(kGood) + "  ";
  CHECK(error_of(at + "nic_profile_nodes: 0,1e12\n") ==
        "x.yaml:8:22: error: cluster.nic_profile_nodes: '0,1e12' is not a list of indices (use whole numbers up to "
        "1000000000, e.g. 0,5,7)");
  CHECK(error_of(at + "topology:\n    dims: 2x1e10\n") ==
        "x.yaml:9:11: error: cluster.topology.dims: '2x1e10' is not a list of dimensions (use whole numbers up to "
        "1000000000, e.g. 4x4x2)");
  CHECK(error_of(at + "device_mix: a100_40gb:1e12\n") ==
        "x.yaml:8:15: error: cluster.device_mix: 'a100_40gb:1e12' is not a device mix (use device:nodes pairs, e.g. "
        "a100_40gb:2,v100_16gb:2)");
  CHECK(dtsim::load_scenario_text(at + "nic_profile_nodes: 0,1\n", "x.yaml").cluster.nic_profile_nodes ==
        std::vector<int>{0, 1});
}
