// The matrices the cpu backend multiplies, and the products of an op's GEMM shapes on them:
// dtsim-real's compute ops, and what `dtsim calibrate` and bench_steadiness time (the same code, so
// that a profile describes the runs).
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <vector>

#include "real/gemm.hpp"

namespace dtsim::real {

struct EigenGemms {
  EigenGemms() = default;
  explicit EigenGemms(std::int64_t side)
      : a(Eigen::MatrixXf::Constant(side, side, 0.5f)),
        b(Eigen::MatrixXf::Constant(side, side, 0.25f)),
        c(Eigen::MatrixXf::Zero(side, side)) {}

  // Every product of `shapes` (gemm_shapes(F, side)), each as often as it repeats.
  void run(const std::vector<GemmShape>& shapes) {
    for (const GemmShape& s : shapes) {
      for (std::int64_t i = 0; i < s.repeat; ++i) {
        c.topLeftCorner(s.m, s.n).noalias() = a.topLeftCorner(s.m, s.k) * b.topLeftCorner(s.k, s.n);
      }
    }
  }

  Eigen::MatrixXf a, b, c;
};

}  // namespace dtsim::real
