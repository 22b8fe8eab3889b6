// What every Learner codec shares: the mean of the decoded contributions and the AllReduce-style
// exchange. Each method is one class in learn/codecs/, chosen by make_codec (registry.cpp).
#include "learn/codec.hpp"

namespace dtsim::learn {

using Eigen::VectorXd;

VectorXd mean_of(const std::vector<VectorXd>& v) {
  VectorXd sum = v.front();
  for (size_t i = 1; i < v.size(); ++i) sum += v[i];
  return sum / static_cast<double>(v.size());
}

VectorXd PieceCodec::combine(const std::vector<VectorXd>& decoded) const { return mean_of(decoded); }

VectorXd PieceCodec::all_reduce(const std::vector<VectorXd>& inputs, long round) {
  std::vector<int> senders(inputs.size());
  for (size_t w = 0; w < inputs.size(); ++w) senders[w] = static_cast<int>(w);
  return all_reduce(senders, inputs, round);
}

VectorXd PieceCodec::all_reduce(const std::vector<int>& senders, const std::vector<VectorXd>& inputs, long round) {
  std::vector<VectorXd> decoded;
  decoded.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) decoded.push_back(encode(senders[i], inputs[i], round));
  return combine(decoded);
}

}  // namespace dtsim::learn
