// What the Learner's codecs of this folder share: their factories, one defined in each file, for
// the table in registry.cpp, the error-feedback base and sparse methods' k.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "learn/codec.hpp"
#include "learn/dataset.hpp"

namespace dtsim::learn::codecs {

using Eigen::VectorXd;

// n = rows * cols elements of a piece, for `workers` senders.
std::unique_ptr<PieceCodec> fp16();
std::unique_ptr<PieceCodec> bf16();
std::unique_ptr<PieceCodec> int8(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed);
std::unique_ptr<PieceCodec> qsgd(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed);
std::unique_ptr<PieceCodec> topk(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed);
std::unique_ptr<PieceCodec> randomk(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed);
std::unique_ptr<PieceCodec> sign(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed);
// Null where PowerSGD does not pay on a rows x cols piece (a vector, or (rows + cols) r >= rows cols).
std::unique_ptr<PieceCodec> powersgd(const CompressionSpec& spec, Eigen::Index rows, Eigen::Index cols, int workers,
                                     uint64_t seed);

// A compressor whose decoded output depends on the input only; error feedback keeps the residual.
class WithFeedback : public PieceCodec {
 public:
  WithFeedback(const CompressionSpec& spec, Eigen::Index n, int workers, uint64_t seed)
      : spec_(spec), seed_(seed), residual_(static_cast<size_t>(workers), VectorXd::Zero(n)) {}
  VectorXd encode(int w, const VectorXd& g, long round) override {
    if (!spec_.error_feedback) return decode(w, g, round);
    VectorXd& e = residual_[static_cast<size_t>(w)];
    const VectorXd p = g + e;
    VectorXd d = decode(w, p, round);
    e = p - d;
    return d;
  }

 protected:
  virtual VectorXd decode(int w, const VectorXd& p, long round) const = 0;
  std::mt19937_64 rng(int w, long round) const { return std::mt19937_64(mix_seed(seed_, 11, w, round)); }
  const CompressionSpec spec_;

 private:
  uint64_t seed_;
  std::vector<VectorXd> residual_;
};

// k of top-k and random-k: ceil(ratio * n), at least 1 and at most n.
inline Eigen::Index sparse_k(const CompressionSpec& spec, Eigen::Index n) {
  return std::clamp<Eigen::Index>(static_cast<Eigen::Index>(std::ceil(spec.ratio * static_cast<double>(n))), 1, n);
}

}  // namespace dtsim::learn::codecs
