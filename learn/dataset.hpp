// Data sets of the proxy model: a seeded synthetic classification task, a user's CSV file, or
// MNIST IDX files. Samples are columns of a features x samples matrix; labels are 0..classes-1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/scenario/convergence.hpp"

namespace dtsim::learn {

struct Dataset {
  Eigen::MatrixXd x;   // features x samples
  std::vector<int> y;  // label of each sample
  int classes = 0;

  int features() const { return static_cast<int>(x.rows()); }
  int samples() const { return static_cast<int>(x.cols()); }
};

// Gaussian classes: class means drawn once (scaled by `separation`), each sample its class mean
// plus unit noise; classes equally frequent. Same seed, same data.
Dataset synthetic_dataset(int classes, int features, int samples, double separation, uint64_t seed);
// One sample per line: an integer label >= 0, then the features, comma-separated; a first line with
// no number in it is a header. Features are standardised. Throws InputError "file:line:col: error: ...".
Dataset load_csv(const std::string& path);
// MNIST's IDX format: images (magic 0x00000803, unsigned bytes, scaled to [0, 1]) and labels
// (magic 0x00000801). Throws InputError naming the file and what is wrong.
Dataset load_idx(const std::string& images, const std::string& labels);
// The run's data set as run.convergence.* says.
Dataset load_dataset(const ConvergenceSpec& spec, uint64_t seed);

// A seeded split into a training set and a held-out evaluation set.
struct Split {
  Dataset train;
  Dataset holdout;
};
Split split_dataset(const Dataset& d, double holdout, uint64_t seed);

// A 64-bit mix of a seed and stream numbers (splitmix64), for independent seeded streams.
uint64_t mix_seed(uint64_t seed, uint64_t a, uint64_t b = 0, uint64_t c = 0);

}  // namespace dtsim::learn
