// fp16 and bf16: each value rounded to half precision and back (Eigen's half and bfloat16); no
// error feedback, as DDP's hooks.
#include <Eigen/Core>

#include "learn/codecs/detail.hpp"

namespace dtsim::learn::codecs {
namespace {

class Cast final : public PieceCodec {
 public:
  explicit Cast(bool bf16) : bf16_(bf16) {}
  VectorXd encode(int, const VectorXd& g, long) override {
    VectorXd d(g.size());
    for (Eigen::Index i = 0; i < g.size(); ++i) {
      const float f = static_cast<float>(g[i]);
      d[i] = bf16_ ? static_cast<double>(static_cast<float>(Eigen::bfloat16(f)))
                   : static_cast<double>(static_cast<float>(Eigen::half(f)));
    }
    return d;
  }

 private:
  bool bf16_;
};

}  // namespace

std::unique_ptr<PieceCodec> fp16() { return std::make_unique<Cast>(false); }
std::unique_ptr<PieceCodec> bf16() { return std::make_unique<Cast>(true); }

}  // namespace dtsim::learn::codecs
