// The synthetic data set, the train/holdout split and seed mixing.
#include "learn/dataset.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace dtsim::learn {

uint64_t mix_seed(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t z = seed;
  for (uint64_t v : {a, b, c}) {
    z += 0x9e3779b97f4a7c15ULL + v;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
  }
  return z;
}

Dataset synthetic_dataset(int classes, int features, int samples, double separation, uint64_t seed) {
  std::mt19937_64 rng(mix_seed(seed, 1));
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::MatrixXd means(features, classes);
  for (Eigen::Index i = 0; i < means.size(); ++i) means.data()[i] = separation * normal(rng);
  Dataset d;
  d.classes = classes;
  d.x.resize(features, samples);
  d.y.resize(static_cast<size_t>(samples));
  for (int s = 0; s < samples; ++s) {
    const int c = s % classes;
    d.y[static_cast<size_t>(s)] = c;
    for (int f = 0; f < features; ++f) d.x(f, s) = means(f, c) + normal(rng);
  }
  return d;
}

Split split_dataset(const Dataset& d, double holdout, uint64_t seed) {
  std::vector<int> order(static_cast<size_t>(d.samples()));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(mix_seed(seed, 2));
  std::shuffle(order.begin(), order.end(), rng);
  const int held = std::clamp(static_cast<int>(holdout * d.samples()), 1, d.samples() - 1);
  auto take = [&d, &order](int from, int to) {
    Dataset out;
    out.classes = d.classes;
    out.x.resize(d.features(), to - from);
    for (int i = from; i < to; ++i) {
      out.x.col(i - from) = d.x.col(order[static_cast<size_t>(i)]);
      out.y.push_back(d.y[static_cast<size_t>(order[static_cast<size_t>(i)])]);
    }
    return out;
  };
  return Split{take(held, d.samples()), take(0, held)};
}

Dataset load_dataset(const ConvergenceSpec& spec, uint64_t seed) {
  switch (spec.dataset) {
    case ProxyDataset::Synthetic:
      return synthetic_dataset(spec.classes, spec.features, spec.samples, spec.separation, seed);
    case ProxyDataset::Csv: return load_csv(spec.file);
    case ProxyDataset::Mnist: return load_idx(spec.file, spec.labels);
  }
  return {};
}

}  // namespace dtsim::learn
