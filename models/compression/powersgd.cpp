// PowerSGD (rank r, warm start): the tensor of n elements is viewed as an m x n' matrix M with
// m = ceil(sqrt(n)) and n' = ceil(n / m) (the squarest reshape, which minimises (m + n') r).
// P = M Q is AllReduced, orthogonalised, Q = M^T P is AllReduced, and M ~ P Q^T: two AllReduces
// of fp32 factors, 4 (m + n') r bytes per rank in all. A tensor with (m + n') r >= n is sent
// uncompressed (as PyTorch's powerSGD_hook does).
#include <algorithm>
#include <cmath>

#include "models/compression/detail.hpp"

namespace dtsim::compression {
namespace {

struct Shape {
  double m = 1;
  double n = 1;
  double r = 1;
};

Shape shape_of(const Tensor& t, const CompressionSpec& spec) {
  const double m = std::max(1.0, std::ceil(std::sqrt(t.n)));
  const double n = std::max(1.0, std::ceil(t.n / m));
  return Shape{m, n, std::min<double>(spec.rank, std::min(m, n))};
}

class PowerSgd final : public Compressor {
 public:
  CompressionMethod method() const override { return CompressionMethod::PowerSgd; }
  double payload_bytes(const Tensor& t, const CompressionSpec& spec) const override {
    const Shape s = shape_of(t, spec);
    return 4 * (s.m + s.n) * s.r;
  }
  bool compresses(const Tensor& t, const CompressionSpec& spec) const override {
    const Shape s = shape_of(t, spec);
    return (s.m + s.n) * s.r < t.n;
  }
  // P = M Q: 2 m n' r FLOPs; read M and Q, write P.
  CodecWork compress(const Tensor& t, const CompressionSpec& spec) const override {
    const Shape s = shape_of(t, spec);
    const CodecWork ef = error_feedback_work(t, spec);
    return CodecWork{2 * s.m * s.n * s.r + ef.flops, t.n * t.elem_bytes + 4 * (s.m + s.n) * s.r + ef.mem_bytes};
  }
  // M ~ P Q^T per contribution: 2 m n' r FLOPs; read P and Q, write M.
  CodecWork decompress(const Tensor& t, const CompressionSpec& spec, int contributions) const override {
    const Shape s = shape_of(t, spec);
    return CodecWork{2 * s.m * s.n * s.r * contributions, contributions * 4 * (s.m + s.n) * s.r + t.n * t.elem_bytes};
  }
  std::vector<CodecStep> steps(const Tensor& t, const CompressionSpec& spec, int) const override {
    const Shape s = shape_of(t, spec);
    // Gram-Schmidt on P (2 m r^2 FLOPs, r passes over P), then Q = M^T P (2 m n' r; read M, P, write Q).
    const CodecWork between{2 * s.m * s.r * s.r + 2 * s.m * s.n * s.r,
                            4 * s.m * s.r * (s.r + 1) + t.n * t.elem_bytes + 4 * (s.m + s.n) * s.r};
    return {
        CodecStep{"compress powersgd (P = M Q)", false, CollectiveKind::AllReduce, 0,
                  scaled(compress(t, spec), spec.cost_scale), CodecStage::Compress},
        CodecStep{"allreduce P", true, CollectiveKind::AllReduce, 4 * s.m * s.r, {}},
        CodecStep{"orthogonalise P, Q = M^T P", false, CollectiveKind::AllReduce, 0, scaled(between, spec.cost_scale)},
        CodecStep{"allreduce Q", true, CollectiveKind::AllReduce, 4 * s.n * s.r, {}},
        CodecStep{"decompress powersgd (P Q^T)", false, CollectiveKind::AllReduce, 0,
                  scaled(decompress(t, spec, 1), spec.cost_scale), CodecStage::Decompress},
    };
  }
};

}  // namespace

const Compressor& powersgd_compressor() {
  static const PowerSgd instance;
  return instance;
}

}  // namespace dtsim::compression
