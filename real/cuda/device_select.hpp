// One GPU per rank, as the cuda backend places ranks: the rank's index among the ranks of its
// host picks the device. Shared by the executor and `dtsim calibrate --backend cuda`.
#pragma once

#include <string>

#include "real/host_comm.hpp"

namespace dtsim::real::cuda {

struct SelectedDevice {
  int index = 0;
  std::string name;  // "cuda:0 NVIDIA H100 80GB HBM3"
};

// Makes the local rank's device current on the calling thread and names it. Throws
// BackendUnavailable without a device (cudaGetDeviceCount fails or finds none) or with more ranks
// on this host than devices (NCCL refuses two ranks of a communicator on one GPU).
SelectedDevice select_device(const HostComm& comm);

}  // namespace dtsim::real::cuda
