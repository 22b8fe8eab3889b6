// The host-side collectives of ranks that are MPI processes (started by mpirun or srun): an
// MPI communicator, MPI_COMM_WORLD or one split from it.
#pragma once

#include "real/host_comm.hpp"

namespace dtsim::real {

class MpiHostComm : public HostComm {
 public:
  // Borrows `comm` (MPI_COMM_WORLD); split() gives communicators that free theirs.
  explicit MpiHostComm(MPI_Comm comm, bool owned = false);
  ~MpiHostComm() override;
  MpiHostComm(const MpiHostComm&) = delete;
  MpiHostComm& operator=(const MpiHostComm&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  int hosts() const override { return hosts_; }
  std::string started() const override;
  MPI_Comm mpi() const override { return comm_; }

  void barrier() override;
  void broadcast(std::span<std::byte> data, int root) override;
  void allreduce(std::span<double> values, Reduce op) override;
  void allreduce(std::span<float> values, Reduce op) override;
  std::vector<std::string> allgather(const std::string& mine) override;
  std::vector<std::string> gather(const std::string& mine) override;
  std::unique_ptr<HostComm> split(int color, int key) override;
  Clock aligned_clock() override { return Clock::aligned(comm_); }

 private:
  MPI_Comm comm_;
  bool owned_;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, hosts_ = 1;
};

}  // namespace dtsim::real
