// The numeric compressors against what each must do: top-k of everything is the identity, the
// casts and int8 round within their precision, error feedback keeps what was not sent, sign takes
// a majority vote, PowerSGD reconstructs a rank-r matrix exactly.
#include <catch2/catch.hpp>

#include "learn/codec.hpp"

using namespace dtsim;
using namespace dtsim::learn;

namespace {

CompressionSpec spec(const std::string& method, double ratio = 0.01, bool ef = true) {
  CompressionSpec s;
  s.method = parse_compression_method(method);
  s.ratio = ratio;
  s.error_feedback = ef;
  return s;
}

}  // namespace

TEST_CASE("top-k of every element is the identity, and its mean is the plain mean bit for bit") {
  const std::vector<Eigen::VectorXd> g{Eigen::VectorXd::Random(50), Eigen::VectorXd::Random(50),
                                       Eigen::VectorXd::Random(50)};
  auto topk = make_codec(spec("topk", 1.0), 50, 1, 3, 1);
  auto none = make_codec(spec("none"), 50, 1, 3, 1);
  for (long round = 0; round < 3; ++round) {
    const Eigen::VectorXd a = topk->all_reduce(g, round), b = none->all_reduce(g, round);
    CHECK((a.array() == b.array()).all());
    CHECK((b.array() == mean_of(g).array()).all());
  }
}

TEST_CASE("top-k keeps the k largest and error feedback sends the rest later") {
  Eigen::VectorXd g(4);
  g << 1.0, -5.0, 3.0, 0.5;
  auto c = make_codec(spec("topk", 0.25), 4, 1, 1, 1);
  Eigen::VectorXd d = c->encode(0, g, 0);
  CHECK(d == Eigen::Vector4d(0, -5.0, 0, 0));
  // Residual (1, 0, 3, 0.5) plus the same gradient: 3 + 3 = 6 is now the largest.
  d = c->encode(0, g, 1);
  CHECK(d == Eigen::Vector4d(0, 0, 6.0, 0));
  auto plain = make_codec(spec("topk", 0.25, false), 4, 1, 1, 1);
  plain->encode(0, g, 0);
  CHECK(plain->encode(0, g, 1) == Eigen::Vector4d(0, -5.0, 0, 0));
}

TEST_CASE("casts and int8 round within their precision") {
  const Eigen::VectorXd g = Eigen::VectorXd::Random(100);
  CHECK((make_codec(spec("fp16"), 100, 1, 1, 1)->encode(0, g, 0) - g).cwiseAbs().maxCoeff() <= std::ldexp(1.0, -11));
  CHECK((make_codec(spec("bf16"), 100, 1, 1, 1)->encode(0, g, 0) - g).cwiseAbs().maxCoeff() <= std::ldexp(1.0, -8));
  const double step = g.cwiseAbs().maxCoeff() / 127.0;
  CHECK((make_codec(spec("int8", 0.01, false), 100, 1, 1, 1)->encode(0, g, 0) - g).cwiseAbs().maxCoeff() <=
        0.5 * step * (1 + 1e-12));
}

TEST_CASE("QSGD is unbiased: its mean over many rounds approaches the input") {
  Eigen::VectorXd g(3);
  g << 0.3, -0.2, 0.1;
  CompressionSpec s = spec("qsgd", 0.01, false);
  s.levels = 1;
  auto c = make_codec(s, 3, 1, 1, 1);
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(3);
  const int rounds = 20000;
  for (long r = 0; r < rounds; ++r) sum += c->encode(0, g, r);
  CHECK(((sum / rounds) - g).cwiseAbs().maxCoeff() < 0.01);
}

TEST_CASE("sign compression takes a majority vote scaled by the mean l1 scale") {
  auto c = make_codec(spec("sign", 0.01, false), 2, 1, 3, 1);
  std::vector<Eigen::VectorXd> g(3, Eigen::VectorXd::Zero(2));
  g[0] << 1, 1;
  g[1] << 2, -2;
  g[2] << -3, -3;
  // Scales 1, 2, 3 (mean |g|); votes (+1 +1 -1) and (+1 -1 -1).
  CHECK(c->all_reduce(g, 0) == Eigen::Vector2d(2.0, -2.0));
}

TEST_CASE("PowerSGD reconstructs a matrix of rank r exactly and leaves vectors alone") {
  CompressionSpec s = spec("powersgd");
  s.rank = 2;
  const Eigen::MatrixXd u = Eigen::MatrixXd::Random(8, 2), v = Eigen::MatrixXd::Random(6, 2);
  const Eigen::MatrixXd m = u * v.transpose();
  const Eigen::VectorXd flat = Eigen::Map<const Eigen::VectorXd>(m.data(), m.size());
  auto c = make_codec(s, 8, 6, 2, 1);
  const Eigen::VectorXd out = c->all_reduce({flat, flat}, 0);
  CHECK((out - flat).cwiseAbs().maxCoeff() < 1e-10);
  const Eigen::VectorXd bias = Eigen::VectorXd::Random(8);
  CHECK(make_codec(s, 8, 1, 2, 1)->all_reduce({bias, bias}, 0) == bias);
}
