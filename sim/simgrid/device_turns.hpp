// A device computes one op at a time, as on the analytical engine: ranks sharing a host (a server's
// per-worker ranks), a rank computing on more than one stream (compression on the comm stream), or
// the ranks of a shared core (shared_cores.cpp, unless they share its speed under
// CoreSharing::Processor) take turns, first come first served.
#pragma once

#include <simgrid/s4u.hpp>

#include <compare>
#include <map>
#include <mutex>

#include "core/plan/plan.hpp"
#include "sim/simgrid/executor.hpp"
#include "sim/simgrid/platform.hpp"

namespace dtsim::sg {

class DeviceTurns {
 public:
  DeviceTurns(const Plan& plan, const Platform& platform, CoreSharing sharing);
  void create();  // a lock per shared device, before the engine runs
  // Waits for the rank's device and holds it until the lock goes; an empty lock when the device is
  // not shared.
  std::unique_lock<simgrid::s4u::Mutex> take(int rank);

 private:
  // What takes turns computing: a host, or under CoreSharing::Processor one rank on its core's host.
  struct Device {
    simgrid::s4u::Host* host = nullptr;
    int rank = -1;  // -1: every rank on the host
    auto operator<=>(const Device&) const = default;
  };
  Device device_of(int rank) const;

  const Plan& plan_;
  const Platform& platform_;
  CoreSharing sharing_;
  std::map<Device, simgrid::s4u::MutexPtr> locks_;
};

}  // namespace dtsim::sg
