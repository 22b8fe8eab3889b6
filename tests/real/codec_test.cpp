// The real compressors (real/codec.hpp) without MPI: several workers' codecs exchanged in memory
// (wires summed with reduce_into, or gathered slot by slot), against closed forms: IEEE half and
// bfloat16 rounding, top-k at 100 % equal to the dense sum, error feedback sending what was held
// back, sign's majority vote, PowerSGD at full rank reproducing the sum, the wire sizes the
// compressors' payload_bytes give, and each codec's expectation for the backends' checks held to
// what its decompress gave.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "real/codec.hpp"

using namespace dtsim;
using namespace dtsim::real;

namespace {

CompressionSpec spec_of(const std::string& method, double ratio = 0.01, int rank = 4, bool error_feedback = true) {
  CompressionSpec s;
  s.method = parse_compression_method(method);
  s.ratio = ratio;
  s.rank = rank;
  s.error_feedback = error_feedback;
  return s;
}

// Runs one exchange of `grads` (one per worker) and returns worker 0's decompressed result (all
// workers' must agree).
std::vector<float> exchange(std::vector<std::unique_ptr<Codec>>& codecs, const std::vector<std::vector<float>>& grads,
                            int iteration) {
  const auto workers = codecs.size();
  for (size_t w = 0; w < workers; ++w) codecs[w]->compress(grads[w], iteration);
  auto combine = [&](int i) {
    std::vector<float> all = codecs[0]->wire(i);
    if (codecs[0]->exchange() == Exchange::AllGather) {
      const auto slot = static_cast<size_t>(codecs[0]->slot());
      for (size_t w = 1; w < workers; ++w) {
        std::copy_n(codecs[w]->wire(i).begin() + static_cast<std::ptrdiff_t>(w * slot), slot,
                    all.begin() + static_cast<std::ptrdiff_t>(w * slot));
      }
    } else {
      for (size_t w = 1; w < workers; ++w) {
        reduce_into(codecs[0]->reduction(), all.data(), codecs[w]->wire(i).data(),
                    static_cast<std::int64_t>(all.size()));
      }
    }
    for (auto& c : codecs) c->wire(i) = all;
  };
  combine(0);
  if (codecs[0]->exchange() == Exchange::LowRank) {
    for (auto& c : codecs) c->between();
    combine(1);
  }
  std::vector<std::vector<float>> outs(workers, std::vector<float>(grads[0].size()));
  for (size_t w = 0; w < workers; ++w) codecs[w]->decompress(outs[w]);
  for (size_t w = 1; w < workers; ++w) CHECK(outs[w] == outs[0]);
  return outs[0];
}

std::vector<std::unique_ptr<Codec>> codecs(const CompressionSpec& spec, std::int64_t n, int workers) {
  std::vector<std::unique_ptr<Codec>> out;
  for (int w = 0; w < workers; ++w) out.push_back(make_codec(spec, n, workers, w, 42));
  return out;
}

}  // namespace

TEST_CASE("half and bfloat16 conversions round to nearest even as IEEE 754 says") {
  CHECK(to_half(1.0f) == 0x3c00);
  CHECK(to_half(65504.0f) == 0x7bff);  // the largest half
  CHECK(to_half(65520.0f) == 0x7c00);  // halfway to the next binade rounds to infinity
  CHECK(to_half(1.0f / 3) == 0x3555);
  CHECK(from_half(0x3555) == 0.333251953125f);
  CHECK(to_half(2049.0f) == to_half(2048.0f));  // a tie goes to the even mantissa
  CHECK(to_half(2051.0f) == to_half(2052.0f));
  CHECK(to_half(std::ldexp(1.0f, -24)) == 0x0001);  // the smallest subnormal
  CHECK(from_half(0x0001) == std::ldexp(1.0f, -24));
  CHECK(to_half(-2.0f) == 0xc000);
  CHECK(to_bfloat16(1.0f / 3) == 0x3eab);
  CHECK(from_bfloat16(0x3eab) == 0.333984375f);
  CHECK(to_bfloat16(257.0f) == to_bfloat16(256.0f));  // 257 is a tie between 256 and 258
}

TEST_CASE("a half-precision sum rounds after each addition") {
  std::vector<float> a(1), b(1);
  // Two halves per float slot: 2048 + 1 = 2049 rounds to 2048; 0.5 + 0.25 is exact.
  const auto c = make_codec(spec_of("fp16"), 2, 2, 0, 1);
  c->compress(std::vector<float>{2048, 0.5f}, 0);
  a = c->wire(0);
  c->compress(std::vector<float>{1, 0.25f}, 0);
  b = c->wire(0);
  reduce_into(Reduction::Half, a.data(), b.data(), 1);
  c->wire(0) = a;
  std::vector<float> out(2);
  c->decompress(out);
  CHECK(out == std::vector<float>{2048, 0.75f});
}

TEST_CASE("top-k at 100 % is the dense sum, and below it error feedback sends what was held back") {
  const std::vector<std::vector<float>> grads = {{1, -5, 3, 0.5f}, {2, 2, -1, 0}, {-4, 0, 0, 1}};
  auto all = codecs(spec_of("topk", 1.0), 4, 3);
  CHECK(exchange(all, grads, 0) == std::vector<float>{-1, -3, 2, 1.5f});

  auto one = codecs(spec_of("topk", 0.25), 4, 1);
  CHECK(exchange(one, {grads[0]}, 0) == std::vector<float>{0, -5, 0, 0});
  CHECK(exchange(one, {{0, 0, 0, 0}}, 1) == std::vector<float>{0, 0, 3, 0});  // the residual's largest
  CHECK(exchange(one, {{0, 0, 0, 0}}, 2) == std::vector<float>{1, 0, 0, 0});
  auto no_feedback = codecs(spec_of("topk", 0.25, 4, false), 4, 1);
  exchange(no_feedback, {grads[0]}, 0);
  CHECK(exchange(no_feedback, {{0, 0, 0, 0}}, 1) == std::vector<float>{0, 0, 0, 0});
}

TEST_CASE("random-k sends k distinct elements and the sum of what every worker sent") {
  std::vector<std::vector<float>> grads(2, std::vector<float>(100));
  for (int e = 0; e < 100; ++e) grads[0][e] = grads[1][e] = static_cast<float>(e + 1);
  auto c = codecs(spec_of("randomk", 0.1, 4, false), 100, 2);
  const auto out = exchange(c, grads, 3);
  int nonzero = 0;
  double total = 0;
  for (int e = 0; e < 100; ++e) {
    if (out[e] != 0) ++nonzero;
    total += out[e];
    // An element is sent by one worker (e + 1) or both (2 (e + 1)).
    CHECK((out[e] == 0 || out[e] == e + 1 || out[e] == 2 * (e + 1)));
  }
  CHECK(nonzero >= 10);
  CHECK(nonzero <= 20);
  CHECK(c[0]->k() == 10);
}

TEST_CASE("sign compression takes the majority vote times the summed scales") {
  const std::vector<std::vector<float>> grads = {{1, -1, 2, -2}, {3, -3, -3, 3}, {-1, -1, 1, 1}};
  auto c = codecs(spec_of("sign", 0.01, 4, false), 4, 3);
  // Scales (mean |x|): 1.5, 3, 1; votes: +1 (2 of 3), -3, +1, +1.
  CHECK(exchange(c, grads, 0) == std::vector<float>{5.5f, -5.5f, 5.5f, 5.5f});
}

TEST_CASE("PowerSGD at full rank reproduces the sum, and its wires are the payload") {
  const std::int64_t n = 9;  // 3 x 3
  std::vector<std::vector<float>> grads = {{1, 2, 3, 4, 5, 6, 7, 8, 10}, {0, 1, 0, 1, 0, 1, 0, 1, 0}};
  auto c = codecs(spec_of("powersgd", 0.01, 3, false), n, 2);
  const auto out = exchange(c, grads, 0);
  for (int e = 0; e < n; ++e) CHECK(out[e] == Approx(grads[0][e] + grads[1][e]).margin(1e-4));
  const CompressionSpec spec = spec_of("powersgd", 0.01, 4);
  const Tensor t{1e4, 4};
  const auto big = make_codec(spec, 10000, 2, 0, 1);
  CHECK(4.0 * static_cast<double>(big->wire(0).size() + big->wire(1).size()) ==
        find_compressor("powersgd").payload_bytes(t, spec));
}

TEST_CASE("wires are the compressors' payload bytes in whole floats") {
  for (const char* method : {"fp16", "bf16", "topk", "randomk", "sign"}) {
    const CompressionSpec spec = spec_of(method, 0.01);
    const Tensor t{1000, 4};
    const auto c = make_codec(spec, 1000, 4, 0, 1);
    const double payload = find_compressor(method).payload_bytes(t, spec);
    const double per_rank = 4.0 * static_cast<double>(c->slot() > 0 ? c->slot() : std::ssize(c->wire(0)));
    INFO(method);
    CHECK(per_rank >= payload);
    CHECK(per_rank < payload + 4);
  }
}

TEST_CASE("a pushed payload decodes alone, and the pusher keeps what it did not send") {
  const auto worker = make_codec(spec_of("topk", 0.25), 4, 1, 0, 1);
  worker->compress(std::vector<float>{1, -5, 3, 0.5f}, 0);
  worker->keep_residual();
  const auto server = make_codec(spec_of("topk", 0.25), 4, 1, 0, 1);
  server->wire(0) = worker->wire(0);
  std::vector<float> out(4);
  server->decode(out);
  CHECK(out == std::vector<float>{0, -5, 0, 0});
  worker->compress(std::vector<float>{0, 0, 0, 0}, 1);  // the residual's largest goes next
  server->wire(0) = worker->wire(0);
  server->decode(out);
  CHECK(out == std::vector<float>{0, 0, 3, 0});
  CHECK(!server->lossless());
  CHECK(make_codec(spec_of("topk", 1.0), 4, 1, 0, 1)->lossless());
  CHECK(make_codec(spec_of("fp16"), 4, 1, 0, 1)->lossless());
  const auto sign = make_codec(spec_of("sign", 0.01, 4, false), 3, 1, 0, 1);
  sign->compress(std::vector<float>{2, -4, 0}, 0);
  std::vector<float> signs(3);
  sign->decode(signs);
  CHECK(signs == std::vector<float>{2, -2, 2});  // mean |x| = 2; 0 counts as positive
}

TEST_CASE("int8 and QSGD pushes decode to within one quantisation step") {
  const std::vector<float> x = {1, -5, 3, 0.5f, 0, -2.25f};
  const auto int8 = make_codec(spec_of("int8", 0.01, 4, false), 6, 1, 0, 1);
  int8->compress(x, 0);
  std::vector<float> out(6);
  int8->decode(out);
  const float scale = 5.0f / 127;
  for (size_t e = 0; e < x.size(); ++e) CHECK(std::fabs(out[e] - x[e]) <= 0.5f * scale * 1.0001f);
  CHECK(out == int8->own());
  CompressionSpec qsgd = spec_of("qsgd", 0.01, 4, false);
  qsgd.levels = 3;
  const auto q = make_codec(qsgd, 6, 1, 0, 7);
  double norm = 0;
  for (float v : x) norm += v * v;
  norm = std::sqrt(norm);
  std::vector<double> mean(6, 0.0);
  const int draws = 4000;
  for (int k = 0; k < draws; ++k) {
    q->compress(x, k);
    q->decode(out);
    for (size_t e = 0; e < x.size(); ++e) {
      CHECK(std::fabs(out[e] - x[e]) <= norm / 3 * 1.0001);  // a neighbouring level
      mean[e] += out[e] / draws;
    }
  }
  for (size_t e = 0; e < x.size(); ++e) CHECK(mean[e] == Approx(x[e]).margin(0.05 * norm));  // unbiased
}

TEST_CASE("what a codec expects of an exchange is what its decompress gave, for every AllReduce method") {
  // Lossy settings (top-k and random-k at a quarter, PowerSGD below full rank, with error feedback)
  // and three iterations, so that the residuals count.
  const int workers = 3;
  const std::int64_t n = 30;
  std::vector<std::vector<float>> grads(workers, std::vector<float>(static_cast<size_t>(n)));
  for (int w = 0; w < workers; ++w) {
    for (std::int64_t e = 0; e < n; ++e) {  // eighths, whose sums the casts' half precision holds exactly
      grads[w][static_cast<size_t>(e)] = std::round(8 * std::sin(0.7f * static_cast<float>(e * (w + 2)))) / 8;
    }
  }
  for (const MethodTraits& m : compression_methods()) {
    if (m.method == CompressionMethod::None || !m.cpu.allreduce) continue;
    INFO(m.name);
    auto all = codecs(spec_of(std::string(m.name), 0.25, 2, true), n, workers);
    std::vector<float> out;
    for (int it = 0; it < 3; ++it) out = exchange(all, grads, it);
    // The group's sum in memory: every worker's vector first recorded, then summed into worker 0's.
    std::vector<std::vector<float>> given;
    for (int w = 1; w < workers; ++w) {
      all[static_cast<size_t>(w)]->expected([&](std::span<float> v) { given.emplace_back(v.begin(), v.end()); });
    }
    const Codec::Expected want = all[0]->expected([&](std::span<float> v) {
      for (const auto& g : given) {
        for (size_t e = 0; e < v.size(); ++e) v[e] += g[e];
      }
    });
    REQUIRE(want.values.size() == out.size());
    for (size_t e = 0; e < out.size(); ++e) CHECK(std::fabs(out[e] - want.values[e]) <= want.tolerance);
  }
}
