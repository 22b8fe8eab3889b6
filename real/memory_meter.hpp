// The bytes of a rank's plan buffers alive at each moment, by category, and their high-water mark
// with what it was made of: the measured side of the memory model (models/parallel/memory.hpp).
// Every allocation and release of a buffer the plan uses goes through it; any thread may call it.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>

namespace dtsim::real {

// The memory model's categories that a real run holds (it keeps no optimizer state).
enum class MemoryUse { Parameters = 0, Gradients, Activations, Communication };
inline constexpr int kMemoryUses = 4;

class MemoryMeter {
 public:
  void add(MemoryUse use, double bytes) {
    std::lock_guard lock(mutex_);
    live_[static_cast<size_t>(use)] += bytes;
    double total = 0;
    for (double b : live_) total += b;
    if (total > peak_) {
      peak_ = total;
      at_peak_ = live_;
    }
  }
  void release(MemoryUse use, double bytes) {
    std::lock_guard lock(mutex_);
    live_[static_cast<size_t>(use)] -= bytes;
  }
  double peak() const {
    std::lock_guard lock(mutex_);
    return peak_;
  }
  // Each category's bytes at the moment of the peak.
  std::array<double, kMemoryUses> at_peak() const {
    std::lock_guard lock(mutex_);
    return at_peak_;
  }

 private:
  mutable std::mutex mutex_;
  std::array<double, kMemoryUses> live_{};
  std::array<double, kMemoryUses> at_peak_{};
  double peak_ = 0;
};

}  // namespace dtsim::real
