// The methods' and policies' tables held to dtsim-real: check_supported refuses exactly what the
// tables do not give a backend, with the lists read off them (the lines as dtsim-real has always
// printed them), and the cpu codec carries out what the table gives its backend: an AllReduce
// exchange decodes to the workers' contributions, a push decodes alone; what the table refuses
// has neither (no AllReduce decoding, a push decode that throws).
#include <catch2/catch.hpp>

#include <string>

#include "core/base/error.hpp"
#include "core/scenario/loader.hpp"
#include "core/scenario/sync_policy.hpp"
#include "real/codec.hpp"
#include "real/launch.hpp"

using namespace dtsim;
using namespace dtsim::real;

namespace {

const char* const kJob = R"(name: t
model:
  name: synthetic
  synthetic: {params: 2e5, flops_per_sample: 2MFLOP, layers: 4}
cluster:
  nodes: 2
  devices_per_node: 1
  device: cpu_socket
)";

// The refusal of check_supported, or "" when the backend runs the scenario.
std::string refusal(const Scenario& s, Backend backend) {
  try {
    check_supported(s, backend);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> strategy_sets(bool allreduce) {
  if (allreduce) return {"strategy.kind=allreduce"};
  return {"strategy.kind=parameter_server", "cluster.servers.placement=colocated"};
}

// Small integers, so that every exact method sums them exactly.
std::vector<std::vector<float>> gradients(int workers, std::int64_t n) {
  std::vector<std::vector<float>> g(static_cast<size_t>(workers), std::vector<float>(static_cast<size_t>(n)));
  for (int w = 0; w < workers; ++w) {
    for (std::int64_t e = 0; e < n; ++e) g[w][e] = static_cast<float>((3 * e + 7 * w) % 11) - 5;
  }
  return g;
}

}  // namespace

TEST_CASE("dtsim-real refuses exactly the compression methods its table does not give a backend") {
  for (const MethodTraits& m : compression_methods()) {
    for (const bool allreduce : {true, false}) {
      std::vector<std::string> sets = strategy_sets(allreduce);
      sets.push_back("compression.method=" + std::string(m.name));
      if (!allreduce && m.exchange == Exchange::LowRank) continue;  // the scenario refuses it (core/scenario)
      const Scenario s = load_scenario_text(kJob, "x.yaml", sets);
      for (const Backend backend : {Backend::Cpu, Backend::Cuda}) {
        INFO(m.name << (allreduce ? " allreduce " : " parameter server ") << backend_name(backend));
        const bool cpu = m.cpu.in(allreduce), cuda = m.cuda.in(allreduce);
        CHECK(refusal(s, backend).empty() == (backend == Backend::Cpu ? cpu : cpu && cuda));
      }
    }
  }
}

TEST_CASE("dtsim-real's refusals of compression methods name the valid ones, read off the table") {
  const Scenario int8 = load_scenario_text(kJob, "x.yaml", {"compression.method=int8"});
  CHECK(refusal(int8, Backend::Cpu) ==
        "--set compression.method=int8: error: compression.method: dtsim-real does not carry out int8 in an "
        "AllReduce job (its packed integers need an integer-sum collective; valid here: fp16, bf16, topk, randomk, "
        "sign, powersgd; int8 and qsgd run in parameter-server jobs)");
  std::vector<std::string> ps = strategy_sets(false);
  ps.push_back("compression.method=qsgd");
  const Scenario qsgd = load_scenario_text(kJob, "x.yaml", ps);
  CHECK(refusal(qsgd, Backend::Cpu).empty());
  CHECK(refusal(qsgd, Backend::Cuda) ==
        "--set compression.method=qsgd: error: compression.method: dtsim-real --backend cuda does not carry out qsgd "
        "yet (valid with --backend cuda: fp16, bf16, topk, randomk, sign, int8; qsgd runs with --backend cpu)");
}

TEST_CASE("dtsim-real refuses exactly the sync policies its table does not give a backend, naming the valid ones") {
  for (const SyncPolicyTraits& p : sync_policies()) {
    const bool ps = p.kind == SyncKind::Asp || p.kind == SyncKind::Ssp;
    std::vector<std::string> sets = strategy_sets(!ps);
    sets.push_back("sync.policy=" + std::string(p.name));
    if (p.kind == SyncKind::Backup) sets.push_back("sync.backup_workers=1");
    const Scenario s = load_scenario_text(kJob, "x.yaml", sets);
    INFO(p.name);
    const std::string where = "--set sync.policy=" + std::string(p.name) + ": error: sync.policy: ";
    CHECK(refusal(s, Backend::Cpu) == (p.real_cpu ? ""
                                                  : where + "dtsim-real runs bsp, asp, ssp and local_sgd (backup "
                                                            "workers and gossip run in the simulator: dtsim run)"));
    const std::string cuda = where +
                             "dtsim-real --backend cuda runs bsp and local_sgd only (asp and ssp run with "
                             "--backend cpu)";
    CHECK(refusal(s, Backend::Cuda) == (p.real_cuda ? "" : p.real_cpu ? cuda : refusal(s, Backend::Cpu)));
  }
}

TEST_CASE("the cpu codec decodes an AllReduce exchange of the methods the table gives AllReduce jobs") {
  const int workers = 3;
  const std::int64_t n = 16;  // 4 x 4: PowerSGD at rank 4 is exact
  const auto grads = gradients(workers, n);
  for (const MethodTraits& m : compression_methods()) {
    if (m.method == CompressionMethod::None) continue;
    INFO(m.name);
    CompressionSpec spec;
    spec.method = m.method;
    spec.ratio = 1;  // top-k and random-k send everything
    spec.rank = 4;
    spec.error_feedback = false;
    std::vector<std::unique_ptr<Codec>> codecs;
    for (int w = 0; w < workers; ++w) codecs.push_back(make_codec(spec, n, workers, w, 42));
    for (int w = 0; w < workers; ++w) codecs[w]->compress(grads[w], 0);
    auto combine = [&](int i) {  // what the exchange's collective does with the wires
      std::vector<float> all = codecs[0]->wire(i);
      for (int w = 1; w < workers; ++w) {
        if (m.exchange == Exchange::AllGather) {
          const auto slot = static_cast<size_t>(codecs[0]->slot());
          std::copy_n(codecs[w]->wire(i).begin() + static_cast<std::ptrdiff_t>(w * slot), slot,
                      all.begin() + static_cast<std::ptrdiff_t>(w * slot));
        } else {
          reduce_into(codecs[0]->reduction(), all.data(), codecs[w]->wire(i).data(), std::ssize(all));
        }
      }
      for (auto& c : codecs) c->wire(i) = all;
    };
    combine(0);
    if (m.exchange == Exchange::LowRank) {
      for (auto& c : codecs) c->between();
      combine(1);
    }
    std::vector<float> out(static_cast<size_t>(n), 1e9f);
    if (!m.cpu.allreduce) {  // the exchange is not decoded at all
      CHECK_THROWS_AS(codecs[0]->decompress(out), RuntimeError);
      continue;
    }
    codecs[0]->decompress(out);
    std::vector<float> sum(static_cast<size_t>(n), 0.0f);
    for (int w = 0; w < workers; ++w) {
      for (std::int64_t e = 0; e < n; ++e) sum[e] += codecs[w]->own()[e];
    }
    bool decoded = true;
    for (std::int64_t e = 0; e < n; ++e) {
      switch (m.method) {
        case CompressionMethod::None:
        case CompressionMethod::Fp16:
        case CompressionMethod::Bf16:
        case CompressionMethod::Int8:
        case CompressionMethod::Qsgd:
        case CompressionMethod::TopK:
        case CompressionMethod::RandomK: decoded = decoded && out[e] == sum[e]; break;
        case CompressionMethod::Sign: decoded = decoded && std::fabs(out[e]) > 0 && std::fabs(out[e]) < 1e9f; break;
        case CompressionMethod::PowerSgd: decoded = decoded && std::fabs(out[e] - sum[e]) < 1e-3f; break;
      }
    }
    CHECK(decoded);
  }
}

TEST_CASE("the cpu codec decodes a push alone for the methods the table gives parameter-server jobs") {
  const std::int64_t n = 16;
  const auto grads = gradients(1, n);
  for (const MethodTraits& m : compression_methods()) {
    if (m.method == CompressionMethod::None) continue;
    INFO(m.name);
    CompressionSpec spec;
    spec.method = m.method;
    spec.error_feedback = false;
    const auto pusher = make_codec(spec, n, 1, 0, 42);
    pusher->compress(grads[0], 0);
    const auto server = make_codec(spec, n, 1, 0, 42);
    server->wire(0) = pusher->wire(0);
    std::vector<float> out(static_cast<size_t>(n));
    if (m.cpu.parameter_server) {
      server->decode(out);
      CHECK(out == pusher->own());
    } else {
      CHECK_THROWS_AS(server->decode(out), RuntimeError);
    }
  }
}

TEST_CASE("the cpu codec has nothing to carry out for none") {
  CHECK_THROWS_AS(make_codec(CompressionSpec{}, 4, 1, 0, 1), RuntimeError);
}

TEST_CASE("dtsim-real refuses tensor-parallel communication overlap where it applies, by its key") {
  const char* const hybrid = R"(name: h
model:
  name: transformer
  dtype: bf16
  transformer: {layers: 4, hidden: 256, heads: 4, seq_len: 128, vocab: 512}
cluster:
  nodes: 1
  devices_per_node: 4
  device: cpu_socket
strategy:
  kind: hybrid
  tensor: 4
  global_batch: 4
)";
  const auto with = [&](std::vector<std::string> sets) { return load_scenario_text(hybrid, "h.yaml", sets); };
  const std::string why =
      refusal(with({"strategy.sequence_parallel=true", "framework.tp_comm_overlap=true"}), Backend::Cpu);
  CHECK(why.find("framework.tp_comm_overlap: dtsim-real does not overlap tensor-parallel collectives") !=
        std::string::npos);
  // Where it does nothing (no sequence parallelism, as NeMo turns it off) the run goes ahead.
  CHECK(refusal(with({"framework.tp_comm_overlap=true"}), Backend::Cpu).empty());
}
