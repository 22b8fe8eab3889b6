// The composites' traffic (the op lists are in pointwise.hpp).
#include "models/parallel/pointwise.hpp"

namespace dtsim {
namespace {

// A cast between the activations' dtype and fp32: one read and one write, none when they are fp32.
double cast_up(double bytes) { return bytes < 4 ? bytes + 4 : 0; }

}  // namespace

PointwiseTraffic norm_traffic(bool eager, double bytes) {
  if (!eager) return {2 * bytes, 5 * bytes};
  const double u = cast_up(bytes);
  const double forward = u + 8 + 4 + 8 + u + 2 * bytes;
  const double backward = 2 * bytes + 4 * bytes + u + 8 + 16 + 4 + 28 + 12 + u;
  return {forward, backward};
}

PointwiseTraffic rotary_traffic(bool eager, double bytes) {
  if (!eager) return {2 * bytes, 2 * bytes};
  const double ops = cast_up(bytes) + 8 + cast_up(bytes);
  return {ops, ops};
}

PointwiseTraffic swiglu_traffic(bool eager, double bytes) {
  if (!eager) return {3 * bytes, 6 * bytes};
  return {5 * bytes, 9 * bytes};
}

PointwiseTraffic cross_entropy_traffic(bool fp32_logits, double bytes) {
  if (!fp32_logits) return {bytes + 4, 4 + bytes};
  return {3 * 4 + 4, 4 + 4 + (4 + 4) + 4};
}

}  // namespace dtsim
