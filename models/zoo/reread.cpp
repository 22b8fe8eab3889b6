// The second read of a two-pass row kernel (reread.hpp).
#include "models/zoo/reread.hpp"

#include <algorithm>

#include "models/zoo/device.hpp"

namespace dtsim {

int rows_resident_per_sm(int cc) {
  constexpr int kThreadsPerRow = 128;
  int threads = 2048;
  int blocks = 32;
  if (cc == 75) {
    threads = 1024;
    blocks = 16;
  } else if (cc == 86 || cc == 87) {
    threads = 1536;
    blocks = 16;
  } else if (cc == 89) {
    threads = 1536;
    blocks = 24;
  }
  return std::min(threads / kThreadsPerRow, blocks);
}

double reread_memory_bytes(const DeviceSpec& device, const Reread& r) {
  const KernelProfile& k = device.kernels;
  if (!r.on() || k.l2 <= 0 || k.sms <= 0) return 0;
  const double in_flight = k.sms * rows_resident_per_sm(device.compute_capability) * r.row_bytes;
  const double hit = std::min(1.0, kL2RowShare * k.l2 / in_flight);
  return r.bytes * (1 - hit);
}

}  // namespace dtsim
