// The compression methods' table held to the code: every method's name round-trips and parses
// from a scenario, every method has a compressor that is it and compiles to the exchange its
// traits name, and the calibration kernels are the methods'.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/base/error.hpp"
#include "core/calibration/calibration.hpp"
#include "core/scenario/loader.hpp"
#include "models/compression/compressor.hpp"
#include "tests/support/tiny_job.hpp"

using namespace dtsim;

namespace {

const char* const kJob = test::kTinyJob;

// The collectives of a compressed tensor's exchange, in order.
std::vector<CollectiveKind> collectives_of(const Compressor& c) {
  std::vector<CollectiveKind> out;
  for (const CodecStep& step : c.steps(Tensor{1e6, 4}, CompressionSpec{}, 4)) {
    if (step.collective) out.push_back(step.kind);
  }
  return out;
}

}  // namespace

TEST_CASE("the methods' table lists every method once, in the enum's order") {
  const auto methods = compression_methods();
  REQUIRE(methods.size() == 9);
  std::set<std::string_view> names;
  for (size_t i = 0; i < methods.size(); ++i) {
    INFO(methods[i].name);
    CHECK(static_cast<size_t>(methods[i].method) == i);
    CHECK(&method_traits(methods[i].method) == &methods[i]);
    CHECK(names.insert(methods[i].name).second);
  }
  CHECK(compressor_names() ==
        std::vector<std::string_view>{"none", "fp16", "bf16", "int8", "qsgd", "topk", "randomk", "sign", "powersgd"});
}

TEST_CASE("every method's name round-trips and an unknown name is refused naming the valid ones") {
  for (const MethodTraits& m : compression_methods()) {
    INFO(m.name);
    CHECK(parse_compression_method(m.name) == m.method);
    CHECK(method_name(parse_compression_method(m.name)) == m.name);
  }
  try {
    parse_compression_method("tpok");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.message() ==
          "unknown compression method 'tpok' (valid: none, fp16, bf16, int8, qsgd, topk, randomk, sign, powersgd) "
          "(did you mean 'topk'?)");
  }
}

TEST_CASE("the scenario loader parses every method's name into its method") {
  for (const MethodTraits& m : compression_methods()) {
    INFO(m.name);
    const Scenario s = load_scenario_text(kJob, "x.yaml", {"compression.method=" + std::string(m.name)});
    CHECK(s.job().compression.method == m.method);
  }
  CHECK(load_scenario_text(kJob, "x.yaml", {}).job().compression.method == CompressionMethod::None);
}

TEST_CASE("every method has a compressor that is it, exchanging as its traits say") {
  for (const MethodTraits& m : compression_methods()) {
    INFO(m.name);
    const Compressor& c = find_compressor(m.method);
    CHECK(c.method() == m.method);
    CHECK(c.name() == m.name);
    CHECK(c.exchange() == m.exchange);
    CHECK(c.calibration_kernel() == m.calibration_kernel);
    CHECK(&find_compressor(m.name) == &c);
    if (m.method == CompressionMethod::None) continue;  // sends the dense gradient, without steps
    using K = std::vector<CollectiveKind>;
    switch (m.exchange) {
      case Exchange::AllReduce: CHECK(collectives_of(c) == K{CollectiveKind::AllReduce}); break;
      case Exchange::AllGather: CHECK(collectives_of(c) == K{CollectiveKind::AllGather}); break;
      case Exchange::LowRank:
        CHECK(collectives_of(c) == K{CollectiveKind::AllReduce, CollectiveKind::AllReduce});
        break;
    }
  }
  CHECK_FALSE(find_compressor(CompressionMethod::None).compresses(Tensor{1e6, 4}, CompressionSpec{}));
}

TEST_CASE("the calibration kernels are the methods' own, PowerSGD aside") {
  std::vector<std::string_view> kernels;
  for (const MethodTraits& m : compression_methods()) {
    INFO(m.name);
    const bool measured = m.method != CompressionMethod::None && m.method != CompressionMethod::PowerSgd;
    CHECK(m.calibration_kernel == (measured ? m.name : std::string_view{}));
    if (measured) kernels.push_back(m.calibration_kernel);
  }
  CHECK(compression_kernels() == kernels);
  CHECK(kernels.size() == 7);
}

TEST_CASE("the real backends' support is where the scenario allows it") {
  for (const MethodTraits& m : compression_methods()) {
    INFO(m.name);
    // A backend that carries a method out on the cuda side carries it out on the cpu side too.
    if (m.cuda.allreduce) CHECK(m.cpu.allreduce);
    if (m.cuda.parameter_server) CHECK(m.cpu.parameter_server);
    // Packed integers cannot be summed by a float collective; PowerSGD's factors need AllReduces.
    if (m.method == CompressionMethod::Int8 || m.method == CompressionMethod::Qsgd) CHECK_FALSE(m.cpu.allreduce);
    if (m.exchange == Exchange::LowRank) CHECK_FALSE(m.cpu.parameter_server);
  }
  CHECK(method_traits(CompressionMethod::None).cpu.in(true));
  CHECK(method_traits(CompressionMethod::None).cuda.in(false));
}
