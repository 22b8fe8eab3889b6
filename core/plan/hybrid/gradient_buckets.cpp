// A hybrid rank's data-parallel gradient buckets (gradient_buckets.hpp).
#include "core/plan/hybrid/gradient_buckets.hpp"

#include <fmt/format.h>

namespace dtsim {

void GradientBuckets::reset(int chunks) {
  open_.assign(static_cast<size_t>(chunks), {});
  deferred_.clear();
}

std::optional<GradientBuckets::Closed> GradientBuckets::add(GroupKind kind, int chunk, double bytes, int after,
                                                            const std::string& what) {
  Open& open = open_[static_cast<size_t>(chunk)][static_cast<size_t>(kind)];
  open.bytes += bytes;
  open.ready = after;
  open.first = open.first.empty() ? what : open.first;
  open.last = what;
  if (open.bytes >= bucket_bytes_) return close(kind, chunk);
  return std::nullopt;
}

std::optional<GradientBuckets::Closed> GradientBuckets::close(GroupKind kind, int chunk) {
  Open& open = open_[static_cast<size_t>(chunk)][static_cast<size_t>(kind)];
  if (open.bytes <= 0) return std::nullopt;
  Closed closed{kind, open.bytes, fmt::format("{} grads {}-{}", group_kind_name(kind), open.first, open.last),
                open.ready};
  open = Open{};
  if (overlap_) return closed;
  deferred_.push_back(std::move(closed));
  return std::nullopt;
}

}  // namespace dtsim
