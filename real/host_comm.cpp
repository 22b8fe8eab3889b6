// What every HostComm derives from its collectives: gathers to rank 0 and scalar reductions.
#include "real/host_comm.hpp"

#include <cstring>

#include <fmt/format.h>

namespace dtsim::real {

std::vector<std::string> HostComm::gather(const std::string& mine) {
  std::vector<std::string> all = allgather(mine);
  if (rank() != 0) all.clear();
  return all;
}

double HostComm::allreduce_value(double value, Reduce op) {
  allreduce(std::span<double>(&value, 1), op);
  return value;
}

std::string first_failure(HostComm& comm, const std::string& why) {
  const std::vector<std::string> all = comm.allgather(why);
  for (size_t r = 0; r < all.size(); ++r) {
    if (!all[r].empty()) return r == 0 ? all[r] : fmt::format("rank {}: {}", r, all[r]);
  }
  return "";
}

std::vector<OpRecord> gather_records(const std::vector<OpRecord>& mine, HostComm& comm) {
  std::vector<double> packed;
  packed.reserve(mine.size() * 5);
  for (const auto& r : mine) {
    packed.insert(packed.end(), {static_cast<double>(r.rank), static_cast<double>(r.iteration),
                                 static_cast<double>(r.op), r.start, r.end});
  }
  std::string bytes(packed.size() * sizeof(double), '\0');
  std::memcpy(bytes.data(), packed.data(), bytes.size());
  std::vector<OpRecord> out;
  for (const std::string& part : comm.gather(bytes)) {
    std::vector<double> v(part.size() / sizeof(double));
    std::memcpy(v.data(), part.data(), v.size() * sizeof(double));
    for (size_t i = 0; i + 4 < v.size(); i += 5) {
      out.push_back(
          OpRecord{static_cast<int>(v[i]), static_cast<int>(v[i + 1]), static_cast<int>(v[i + 2]), v[i + 3], v[i + 4]});
    }
  }
  return out;
}

}  // namespace dtsim::real
