// A hybrid rank's data-parallel gradient buckets (core/plan/hybrid/compile.cpp): a chunk's gradients, added in backward
// order, fill one open bucket per group kind, which closes at the bucket size (hybrid_bucket_bytes). A closed bucket
// is reduced once its last part's backward has run, or, without overlap (strategy.allreduce.overlap false), held
// back until the whole backward has (the caller reduces the deferred ones then).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "models/parallel/layout.hpp"

namespace dtsim {

class GradientBuckets {
 public:
  // A bucket to reduce: its group kind, bytes, label ("data grads L11-L8") and the op it waits for.
  struct Closed {
    GroupKind kind;
    double bytes;
    std::string label;
    int ready;
  };
  GradientBuckets(double bucket_bytes, bool overlap) : bucket_bytes_(bucket_bytes), overlap_(overlap) {}
  void reset(int chunks);  // every bucket empty, nothing deferred
  // Adds `bytes` of `what` (ready after op `after`) to the chunk's open bucket; the bucket to reduce now if it closed.
  std::optional<Closed> add(GroupKind kind, int chunk, double bytes, int after, const std::string& what);
  // Closes the chunk's open bucket; the bucket to reduce now (none if empty or deferred).
  std::optional<Closed> close(GroupKind kind, int chunk);
  // Buckets closed without overlap, to reduce after the backward.
  const std::vector<Closed>& deferred() const { return deferred_; }

 private:
  struct Open {
    double bytes = 0;
    int ready = -1;
    std::string first;  // what it holds, in backward order: the first and last part
    std::string last;
  };
  double bucket_bytes_;
  bool overlap_;
  std::vector<std::array<Open, kGroupKinds>> open_;  // by chunk and group kind
  std::vector<Closed> deferred_;
};

}  // namespace dtsim
