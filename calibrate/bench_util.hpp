// Helpers every backend's microbenchmarks share: the sizes they sweep, medians, and the partner
// of rank 0 per link class (found from the ranks' hostnames).
#pragma once

#include <unistd.h>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "core/base/median.hpp"
#include "core/calibration/calibration.hpp"
#include "real/host_comm.hpp"

namespace dtsim::calib {

// from, from * factor, ... up to `to` (rounded to integers).
inline std::vector<double> geometric(double from, double to, double factor) {
  std::vector<double> out;
  for (double x = from; x <= to * 1.0001; x *= factor) out.push_back(std::round(x));
  return out;
}

using dtsim::median;  // core/base/median.hpp

// Bytes of this host's caches as the kernel lists cpu0's (/sys/devices/system/cpu/cpu0/cache): the
// data or unified cache of each level, by level; empty where it lists none.
inline std::map<int, double> cache_levels() {
  std::map<int, double> out;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(level_file >> level) || !(type_file >> type) || !(size_file >> size) || type == "Instruction") continue;
    double bytes = std::atof(size.c_str());
    if (size.ends_with("K")) bytes *= 1024;
    if (size.ends_with("M")) bytes *= 1024 * 1024;
    if (bytes > 0) out[level] = bytes;
  }
  return out;
}

// Bytes of this host's last-level cache: the highest level cache_levels() lists, else the L3
// sysconf reports, else 0. The kernel first: on this VM glibc's sysconf(_SC_LEVEL3_CACHE_SIZE) said
// 384 MiB where the kernel and lscpu say 32 MiB, shared by both cores.
inline double last_level_cache_bytes() {
  const std::map<int, double> levels = cache_levels();
  const double best = levels.empty() ? 0.0 : levels.rbegin()->second;
  if (best > 0) return best;
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? static_cast<double>(l3) : 0.0;
}

// Bytes of the cache level below the last (a core's own L2), 0 when unknown.
inline double private_cache_bytes() {
  const std::map<int, double> levels = cache_levels();
  return levels.size() >= 2 ? std::next(levels.rbegin())->second : 0.0;
}

inline int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

inline int comm_size(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

// Every rank's hostname, on every rank (collective).
inline std::vector<std::string> all_hosts(MPI_Comm comm) {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  std::vector<char> all(static_cast<size_t>(comm_size(comm)) * 256);
  MPI_Allgather(name, 256, MPI_CHAR, all.data(), 256, MPI_CHAR, comm);
  std::vector<std::string> out;
  for (size_t r = 0; r < all.size() / 256; ++r) out.emplace_back(all.data() + r * 256);
  return out;
}

inline std::vector<std::string> all_hosts(real::HostComm& comm) {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return comm.allgather(name);
}

// Rank 0's partner per link class, from every rank's hostname (same_host: the first other rank
// on its host; cross_host: the first rank on another host); classes without one are absent.
inline std::map<std::string, int> link_partners(const std::vector<std::string>& hosts) {
  std::map<std::string, int> partner;
  for (int r = 1; r < static_cast<int>(hosts.size()); ++r) {
    partner.try_emplace(hosts[r] == hosts[0] ? kSameHost : kCrossHost, r);
  }
  return partner;
}

// nccl-tests' bus bandwidth factor: 2 (n - 1) / n for AllReduce, (n - 1) / n for ReduceScatter,
// AllGather and AllToAll (S the whole buffer), 1 for Broadcast and Reduce.
inline double busbw_factor(const std::string& kind, int ranks) {
  if (kind == "broadcast" || kind == "reduce") return 1.0;
  return (kind == "allreduce" ? 2.0 : 1.0) * (ranks - 1) / ranks;
}

}  // namespace dtsim::calib
