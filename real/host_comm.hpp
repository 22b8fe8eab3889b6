// How the ranks of one real run coordinate on the host, beside their data path (NCCL, or MPI's
// point-to-point calls): who they are, barriers, broadcasts, small reductions, gathers to rank 0,
// sub-groups and a clock they share. Two implementations:
//   MpiHostComm (real/mpi_host_comm.hpp)  one process per rank, started by mpirun or srun;
//   ThreadTeam  (real/thread_team.hpp)    one thread per rank in one process, the launcher-free
//                                         mode that drives every GPU of one node (--gpus N).
// Every call but rank(), size() and the host counts is collective over the communicator.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/run/observer.hpp"
#include "real/mpi_world.hpp"

namespace dtsim::real {

class HostComm {
 public:
  enum class Reduce { Sum, Max, Min };

  virtual ~HostComm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This rank's index among the ranks of its host, their count, and the number of hosts.
  virtual int local_rank() const = 0;
  virtual int local_size() const = 0;
  virtual int hosts() const = 0;
  // What started the ranks, for messages: "mpirun started 4" or "--gpus gave 4".
  virtual std::string started() const = 0;
  // The MPI communicator under this one, or MPI_COMM_NULL (threads: MPI is not initialised).
  virtual MPI_Comm mpi() const = 0;

  virtual void barrier() = 0;
  virtual void broadcast(std::span<std::byte> data, int root) = 0;
  // Element-wise over the ranks, in place; sums add in rank order.
  virtual void allreduce(std::span<double> values, Reduce op) = 0;
  virtual void allreduce(std::span<float> values, Reduce op) = 0;
  // Every rank's bytes, in rank order, on every rank.
  virtual std::vector<std::string> allgather(const std::string& mine) = 0;
  // The ranks that give the same color >= 0, ordered by key then rank; null where color < 0.
  virtual std::unique_ptr<HostComm> split(int color, int key) = 0;
  // A clock every rank reads alike: t = 0 when the last rank reached this call.
  virtual Clock aligned_clock() = 0;

  // Rank 0 receives every rank's string, in rank order (others get an empty vector).
  virtual std::vector<std::string> gather(const std::string& mine);

  template <class T>
  void broadcast_value(T& value, int root) {
    static_assert(std::is_trivially_copyable_v<T>);
    broadcast(std::as_writable_bytes(std::span<T, 1>(&value, 1)), root);
  }
  double allreduce_value(double value, Reduce op);
};

// Collective: the first rank's non-empty `why` ("rank 2: why" unless it is rank 0's), on every rank;
// "" when every rank gave "". Lets all ranks stop together with one reason.
std::string first_failure(HostComm& comm, const std::string& why);

// Rank 0 receives every rank's op records (others get an empty vector).
std::vector<OpRecord> gather_records(const std::vector<OpRecord>& mine, HostComm& comm);

}  // namespace dtsim::real
