// Numeric gradient compressors of convergence-aware runs: what a receiver decodes from each
// worker's compressed tensor, with per-worker error feedback and PowerSGD's warm-started Q. The
// same methods and keys as the cost model in models/compression/ (compression.*); one class per
// method in learn/codecs/ (a file each), chosen by make_codec (registry.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "models/compression/compressor.hpp"

namespace dtsim::learn {

// One tensor piece (rows x cols, column-major) compressed as a unit, for `workers` senders.
class PieceCodec {
 public:
  virtual ~PieceCodec() = default;
  // Worker `w`'s contribution as receivers decode it (error feedback: the part not sent is kept
  // and added to this worker's next input). `round` seeds randomised methods.
  virtual Eigen::VectorXd encode(int w, const Eigen::VectorXd& g, long round) = 0;
  // The receivers' combination of decoded contributions (in worker order): their mean; sign
  // compression takes a scaled majority vote.
  virtual Eigen::VectorXd combine(const std::vector<Eigen::VectorXd>& decoded) const;
  // An AllReduce-style exchange of every worker's input (inputs[w]): encode each, combine.
  Eigen::VectorXd all_reduce(const std::vector<Eigen::VectorXd>& inputs, long round);
  // The same among some workers only (backup workers' kept gradients): inputs[i] is worker
  // senders[i]'s, with that worker's error feedback. PowerSGD overrides it (its two AllReduces
  // need everyone's factors in between).
  virtual Eigen::VectorXd all_reduce(const std::vector<int>& senders, const std::vector<Eigen::VectorXd>& inputs,
                                     long round);
};

// The codec of `spec.method` for a rows x cols piece. Methods the proxy does not compress a piece
// with (none; powersgd on a vector or where (rows + cols) r >= rows cols) get the identity.
std::unique_ptr<PieceCodec> make_codec(const CompressionSpec& spec, Eigen::Index rows, Eigen::Index cols, int workers,
                                       uint64_t seed);

// Sum in worker order, divided by the count: the one reduction every path uses (so top-k of 100%
// equals no compression bit for bit).
Eigen::VectorXd mean_of(const std::vector<Eigen::VectorXd>& v);

}  // namespace dtsim::learn
