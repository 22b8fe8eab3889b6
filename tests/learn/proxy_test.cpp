// The proxy models: the backward pass against central finite differences, and plain SGD
// lowering the held-out loss on the seeded synthetic task.
#include <catch2/catch.hpp>

#include "learn/dataset.hpp"
#include "learn/proxy.hpp"

using namespace dtsim;
using namespace dtsim::learn;

namespace {

// Max over coordinates of |analytic - numeric| / max(1, |numeric|).
double gradient_error(const Proxy& proxy, const Eigen::VectorXd& theta, const Dataset& d) {
  Eigen::VectorXd g;
  proxy.loss_and_gradient(theta, d.x, d.y, g);
  double worst = 0;
  const double h = 1e-6;
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    Eigen::VectorXd plus = theta, minus = theta, unused;
    plus[i] += h;
    minus[i] -= h;
    const double numeric =
        (proxy.loss_and_gradient(plus, d.x, d.y, unused) - proxy.loss_and_gradient(minus, d.x, d.y, unused)) / (2 * h);
    worst = std::max(worst, std::abs(g[i] - numeric) / std::max(1.0, std::abs(numeric)));
  }
  return worst;
}

}  // namespace

TEST_CASE("the proxies' gradients match central finite differences") {
  const Dataset d = synthetic_dataset(4, 5, 12, 1.0, 3);
  SECTION("softmax regression at a random point") {
    const Proxy p(ProxyModel::Softmax, 5, 0, 4);
    const Eigen::VectorXd theta = Eigen::VectorXd::Random(p.size());
    CHECK(gradient_error(p, theta, d) < 1e-7);
  }
  SECTION("two-layer MLP at its initial point") {
    const Proxy p(ProxyModel::Mlp, 5, 6, 4);
    CHECK(p.size() == 6 * 5 + 6 + 4 * 6 + 4);
    CHECK(gradient_error(p, p.initial(9), d) < 1e-7);
  }
}

TEST_CASE("softmax regression at zero has loss log(classes)") {
  const Dataset d = synthetic_dataset(10, 8, 50, 1.0, 1);
  const Proxy p(ProxyModel::Softmax, 8, 0, 10);
  CHECK(p.evaluate(p.initial(1), d.x, d.y).loss == Approx(std::log(10.0)).epsilon(1e-12));
}

TEST_CASE("plain SGD lowers the held-out loss of both proxies") {
  const Split s = split_dataset(synthetic_dataset(10, 32, 2048, 1.0, 7), 0.2, 7);
  CHECK(s.holdout.samples() == 409);
  CHECK(s.train.samples() == 2048 - 409);
  for (ProxyModel kind : {ProxyModel::Softmax, ProxyModel::Mlp}) {
    const Proxy p(kind, 32, 32, 10);
    Eigen::VectorXd theta = p.initial(7), g;
    const double before = p.evaluate(theta, s.holdout.x, s.holdout.y).loss;
    for (int step = 0; step < 200; ++step) {
      const Eigen::Index from = (step * 32) % (s.train.samples() - 32);
      const std::vector<int> y(s.train.y.begin() + from, s.train.y.begin() + from + 32);
      p.loss_and_gradient(theta, s.train.x.middleCols(from, 32), y, g);
      theta -= 0.1 * g;
    }
    const Evaluation after = p.evaluate(theta, s.holdout.x, s.holdout.y);
    CHECK(after.loss < 0.5 * before);
    CHECK(after.accuracy > 0.5);
  }
}
