// One GPU per MPI rank, as the cuda backend places ranks: the rank's index among the ranks of its
// host picks the device. Shared by the executor and `dtsim calibrate --backend cuda`.
#pragma once

#include <mpi.h>

#include <string>

namespace dtsim::real::cuda {

struct SelectedDevice {
  int index = 0;
  std::string name;  // "cuda:0 NVIDIA H100 80GB HBM3"
};

// Collective over `comm`. Makes the local rank's device current and names it. Throws
// BackendUnavailable without a device (cudaGetDeviceCount fails or finds none) or with more ranks
// on this host than devices (NCCL refuses two ranks of a communicator on one GPU).
SelectedDevice select_device(MPI_Comm comm);

}  // namespace dtsim::real::cuda
