// Compressed AllReduce jobs under mpirun: the decompressed gradients checked against references
// summed independently, the model of a lossless compression (fp16 of small integers, top-k at
// 100 %) equal to the uncompressed one, the wire bytes the Plan's, and the methods it cannot
// carry out refused with exit 2; the same on the cuda backend where a GPU is present (skipped,
// with the reason, where none is).
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/support/mpirun.hpp"

using dtsim::test::run_real;

namespace {

const std::string kTiny = "tests/real/data/tiny_allreduce.yaml";

void require_exact(const dtsim::test::RealRun& r, const std::string& method) {
  INFO(r.process.out << r.process.err);
  REQUIRE(r.process.code == 0);
  CHECK(r.metrics["checks"]["exact"] == true);
  int compressed = 0;
  for (const auto& c : r.metrics["checks"]["collectives"]) {
    CHECK(c["mismatched_elements"] == 0);
    if (c["kind"] == "compressed " + method) ++compressed;
  }
  CHECK(compressed > 0);
  CHECK(r.metrics["checks"]["models"][0]["workers_agree"] == true);
  // What the ranks sent over the whole run (warm-up included) is the Plan's wire bytes per
  // iteration times the iterations, up to rounding each rank's payload to whole floats (with the
  // schedules; MPI's own collectives count what each rank put in, not what went on the wire, and
  // the cuda backend the buffers it hands NCCL, which picks its own algorithm).
  if (r.metrics["real"]["collectives"] != "schedule" || r.metrics["engine"] == "cuda") return;
  const double iterations = r.metrics["iterations"].get<double>() + r.metrics["warmup"].get<double>();
  const double planned = r.metrics["bytes_on_wire_per_iteration"].get<double>() * iterations;
  const double sent = r.metrics["real"]["bytes_sent"].get<double>();
  CHECK(sent >= planned);
  CHECK(sent <= planned * 1.01);
}

// What the ranks sent over the whole run (warm-up included) is exactly the Plan's wire bytes per
// iteration times the iterations (pushes: one payload per push).
void check_push_bytes(const dtsim::test::RealRun& r) {
  const double iterations = r.metrics["iterations"].get<double>() + r.metrics["warmup"].get<double>();
  CHECK(r.metrics["real"]["bytes_sent"].get<double>() ==
        r.metrics["bytes_on_wire_per_iteration"].get<double>() * iterations);
}

// Lossless pushes (fp16 of small integers, top-k at 100 %) aggregate exactly and give the model
// whose hash is `dense_hash`.
void check_lossless_pushes(const std::string& ps, const std::string& prefix, const nlohmann::json& dense_hash) {
  for (const char* method : {"fp16", "topk --set compression.ratio=1"}) {
    const auto r = run_real(4, ps + " --set compression.method=" + method, prefix + method);
    INFO(method << r.process.out << r.process.err);
    REQUIRE(r.process.code == 0);
    CHECK(r.metrics["checks"]["collectives"][0]["kind"] == "aggregate");
    CHECK(r.metrics["checks"]["collectives"][0]["mismatched_elements"] == 0);
    CHECK(r.metrics["checks"]["models"][0]["hash"] == dense_hash);
    check_push_bytes(r);
  }
}

}  // namespace

TEST_CASE("lossless compressions end with the uncompressed model, bit for bit") {
  const auto plain = run_real(2, kTiny, "plain");
  REQUIRE(plain.process.code == 0);
  const auto hash = plain.metrics["checks"]["models"][0]["hash"];
  const auto fp16 = run_real(2, kTiny + " --set compression.method=fp16", "fp16");
  require_exact(fp16, "fp16");
  CHECK(fp16.metrics["checks"]["models"][0]["hash"] == hash);
  const auto topk = run_real(2, kTiny + " --set compression.method=topk --set compression.ratio=1", "topk-all");
  require_exact(topk, "topk");
  CHECK(topk.metrics["checks"]["models"][0]["hash"] == hash);
  // At 5 % the model differs, and the wire carries far less.
  const auto sparse = run_real(2, kTiny + " --set compression.method=topk --set compression.ratio=0.05", "topk-5");
  require_exact(sparse, "topk");
  CHECK(sparse.metrics["checks"]["models"][0]["hash"] != hash);
  CHECK(sparse.metrics["real"]["bytes_sent"].get<double>() < 0.2 * plain.metrics["real"]["bytes_sent"].get<double>());
}

TEST_CASE("four ranks exchange sparse, sign and low-rank gradients with checked results") {
  const std::string four = kTiny + " --set cluster.nodes=4";
  require_exact(run_real(4, four + " --set compression.method=randomk --set compression.ratio=0.1", "randomk4"),
                "randomk");
  require_exact(run_real(4, four + " --set compression.method=sign", "sign4"), "sign");
  require_exact(run_real(4, four + " --set compression.method=powersgd --mpi-collectives", "powersgd4"), "powersgd");
  require_exact(run_real(4, four + " --set compression.method=bf16 --set strategy.allreduce.algorithm=halving_doubling",
                         "bf16-4"),
                "bf16");
}

TEST_CASE("compressions dtsim-real cannot carry out are refused with exit 2") {
  const auto r = run_real(2, kTiny + " --set compression.method=int8", "int8");
  CHECK(r.process.code == 2);
  CHECK(r.process.err.find("compression.method: dtsim-real does not carry out int8") != std::string::npos);
  // The cuda backend refuses what it has no kernels for (qsgd pushes), before it looks for a device.
  const auto qsgd =
      run_real(4, "tests/real/data/tiny_ps.yaml --set compression.method=qsgd --backend cuda", "cuda-qsgd");
  CHECK(qsgd.process.code == 2);
  CHECK(qsgd.process.err.find("compression.method: dtsim-real --backend cuda does not carry out qsgd") !=
        std::string::npos);
}

TEST_CASE("the cuda backend compresses AllReduce jobs on a GPU, checked like the cpu backend, or skips and says why") {
  const auto plain = run_real(2, kTiny + " --backend cuda", "cuda-plain");
  if (plain.process.code == 3) {
    CHECK(plain.process.err.find("dtsim-real: error:") != std::string::npos);
    WARN("cuda compression skipped: " << plain.process.err.substr(0, plain.process.err.find('\n')));
    SUCCEED();
    return;
  }
  INFO(plain.process.out << plain.process.err);
  REQUIRE(plain.process.code == 0);
  const auto hash = plain.metrics["checks"]["models"][0]["hash"];
  // Lossless on these small integers: the uncompressed model, bit for bit.
  for (const char* method : {"fp16", "bf16", "topk --set compression.ratio=1", "randomk --set compression.ratio=1"}) {
    const auto r = run_real(2, kTiny + " --backend cuda --set compression.method=" + std::string(method),
                            std::string("cuda-") + method);
    const std::string name = std::string(method).substr(0, std::string(method).find(' '));
    require_exact(r, name);
    CHECK(r.metrics["engine"] == "cuda");
    CHECK(r.metrics["checks"]["models"][0]["hash"] == hash);
  }
  // Lossy ones against the cpu codec on copies of the device's inputs; far fewer bytes sent.
  const auto topk =
      run_real(2, kTiny + " --backend cuda --set compression.method=topk --set compression.ratio=0.05", "cuda-topk-5");
  require_exact(topk, "topk");
  CHECK(topk.metrics["checks"]["models"][0]["hash"] != hash);
  CHECK(topk.metrics["real"]["bytes_sent"].get<double>() < 0.2 * plain.metrics["real"]["bytes_sent"].get<double>());
  require_exact(run_real(2, kTiny + " --backend cuda --set compression.method=randomk --set compression.ratio=0.1",
                         "cuda-randomk"),
                "randomk");
  require_exact(run_real(2, kTiny + " --backend cuda --set compression.method=sign", "cuda-sign"), "sign");
  require_exact(run_real(2, kTiny + " --backend cuda --set compression.method=powersgd", "cuda-powersgd"), "powersgd");
}

TEST_CASE("the cuda backend compresses parameter-server pushes on a GPU, or skips and says why") {
  const std::string ps = "tests/real/data/tiny_ps.yaml --backend cuda";
  const auto dense = run_real(4, ps, "cuda-ps-dense");
  if (dense.process.code == 3) {
    WARN("cuda compressed pushes skipped: " << dense.process.err.substr(0, dense.process.err.find('\n')));
    SUCCEED();
    return;
  }
  INFO(dense.process.out << dense.process.err);
  REQUIRE(dense.process.code == 0);
  check_lossless_pushes(ps, "cuda-ps-", dense.metrics["checks"]["models"][0]["hash"]);
  for (const char* method : {"int8", "sign"}) {
    const auto r = run_real(4, ps + " --set compression.method=" + method, std::string("cuda-ps-") + method);
    INFO(method << r.process.out << r.process.err);
    REQUIRE(r.process.code == 0);
    CHECK(r.metrics["checks"]["collectives"][0]["kind"] == "aggregate of lossy pushes (not checked)");
    CHECK(r.metrics["checks"]["collectives"][0]["checked_elements"] == 0);
    check_push_bytes(r);
  }
}

TEST_CASE("the cuda compression kernels match the cpu codecs on a GPU, or skip and say why") {
  const std::string probe = std::string(DTSIM_BINARY_DIR) + "/bin/real_cuda_codec_probe";
  if (!std::filesystem::exists(probe)) {
    WARN("cuda compression kernels skipped: dtsim was built without CUDA (no " << probe << ")");
    SUCCEED();
    return;
  }
  const std::string dir = dtsim::test::temp_dir("cuda-codec");
  const int status = std::system(("'" + probe + "' >'" + dir + "/out' 2>&1").c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const std::string out = dtsim::test::slurp(dir + "/out");
  if (code == 3) {
    WARN("cuda compression kernels skipped: " << out.substr(0, out.find('\n')));
    SUCCEED();
    return;
  }
  INFO(out);
  CHECK(code == 0);
  CHECK(out.find(" 0 failed") != std::string::npos);
}

TEST_CASE("parameter-server pushes are compressed for real: lossless ones give the dense model") {
  const std::string ps = "tests/real/data/tiny_ps.yaml";
  const auto dense = run_real(4, ps, "ps-dense");
  REQUIRE(dense.process.code == 0);
  check_lossless_pushes(ps, "ps-", dense.metrics["checks"]["models"][0]["hash"]);
  // ASP with fp16 pushes: every push applied once, exactly.
  const auto asp = run_real(6, ps + " --set compression.method=fp16 --set sync.policy=asp", "ps-asp-fp16");
  INFO(asp.process.out << asp.process.err);
  REQUIRE(asp.process.code == 0);
  for (const auto& c : asp.metrics["checks"]["collectives"]) {
    CHECK(c["kind"] == "async updates");
    CHECK(c["mismatched_elements"] == 0);
  }
  // int8 and QSGD pushes carry the Plan's bytes.
  for (const char* method : {"int8", "qsgd"}) {
    const auto r = run_real(4, ps + " --set compression.method=" + method, std::string("ps-") + method);
    INFO(method << r.process.out << r.process.err);
    REQUIRE(r.process.code == 0);
    check_push_bytes(r);
  }
  // A lossy push cannot be checked against the exact sum: it runs, and says so.
  const auto sign = run_real(4, ps + " --set compression.method=sign", "ps-sign");
  REQUIRE(sign.process.code == 0);
  CHECK(sign.metrics["checks"]["collectives"][0]["kind"] == "aggregate of lossy pushes (not checked)");
  CHECK(sign.metrics["checks"]["collectives"][0]["checked_elements"] == 0);
}
