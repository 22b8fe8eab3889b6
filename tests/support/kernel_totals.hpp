// What a list of kernel steps adds up to on one rank: compute FLOPs and memory traffic (and its layout copies'
// share), collectives and their bytes. For tests that count a transformer's steps by hand.
#pragma once

#include <vector>

#include "models/parallel/transformer_ops.hpp"

namespace dtsim::test {

struct KernelTotals {
  double bytes = 0;  // compute steps' memory traffic
  double flops = 0;
  double copy_bytes = 0;  // of `bytes`: KernelClass::LayoutCopy's
  int compute_steps = 0;
  double collective_bytes = 0;
  int collectives = 0;
};

inline KernelTotals kernel_totals(const std::vector<KernelStep>& steps) {
  KernelTotals t;
  for (const KernelStep& k : steps) {
    if (k.collective) {
      t.collective_bytes += k.bytes;
      ++t.collectives;
      continue;
    }
    t.bytes += k.mem_bytes;
    t.flops += k.flops;
    if (k.cls == KernelClass::LayoutCopy) t.copy_bytes += k.mem_bytes;
    ++t.compute_steps;
  }
  return t;
}

}  // namespace dtsim::test
