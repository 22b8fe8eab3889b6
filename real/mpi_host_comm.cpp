// HostComm over MPI: MPI_Barrier, MPI_Bcast, MPI_Allreduce, MPI_Gatherv and MPI_Comm_split, with
// the host of each rank from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).
#include "real/mpi_host_comm.hpp"

#include <fmt/format.h>

#include "core/base/error.hpp"

namespace dtsim::real {
namespace {

MPI_Op mpi_op(HostComm::Reduce op) {
  switch (op) {
    case HostComm::Reduce::Sum: return MPI_SUM;
    case HostComm::Reduce::Max: return MPI_MAX;
    case HostComm::Reduce::Min: return MPI_MIN;
  }
  return MPI_SUM;
}

// Every rank's count and displacement for MPI_Gatherv / MPI_Allgatherv; the total.
int gather_counts(int count, MPI_Comm comm, bool everyone, std::vector<int>& counts, std::vector<int>& displs) {
  if (everyone) {
    MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  } else {
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  }
  int total = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    displs[i] = total;
    total += counts[i];
  }
  return total;
}

std::vector<std::string> split_strings(const std::string& all, const std::vector<int>& counts,
                                       const std::vector<int>& displs) {
  std::vector<std::string> out;
  for (size_t i = 0; i < counts.size(); ++i) out.push_back(all.substr(static_cast<size_t>(displs[i]), counts[i]));
  return out;
}

}  // namespace

MpiHostComm::MpiHostComm(MPI_Comm comm, bool owned) : comm_(comm), owned_(owned) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);
  int first = local_rank_ == 0 ? 1 : 0;  // one per host
  MPI_Allreduce(&first, &hosts_, 1, MPI_INT, MPI_SUM, comm_);
}

MpiHostComm::~MpiHostComm() {
  if (owned_) MPI_Comm_free(&comm_);
}

std::string MpiHostComm::started() const { return fmt::format("mpirun started {}", size_); }

void MpiHostComm::barrier() { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

void MpiHostComm::broadcast(std::span<std::byte> data, int root) {
  check_mpi(MPI_Bcast(data.data(), static_cast<int>(data.size()), MPI_BYTE, root, comm_), "MPI_Bcast");
}

void MpiHostComm::allreduce(std::span<double> values, Reduce op) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, mpi_op(op), comm_),
            "MPI_Allreduce");
}

void MpiHostComm::allreduce(std::span<float> values, Reduce op) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_FLOAT, mpi_op(op), comm_),
            "MPI_Allreduce");
}

std::vector<std::string> MpiHostComm::allgather(const std::string& mine) {
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
  const int total = gather_counts(count, comm_, true, counts, displs);
  std::string all(static_cast<size_t>(total), '\0');
  check_mpi(MPI_Allgatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, comm_),
            "MPI_Allgatherv");
  return split_strings(all, counts, displs);
}

std::vector<std::string> MpiHostComm::gather(const std::string& mine) {
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
  const int total = gather_counts(count, comm_, false, counts, displs);
  std::string all(rank_ == 0 ? static_cast<size_t>(total) : 0, '\0');
  check_mpi(MPI_Gatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0, comm_),
            "MPI_Gatherv");
  return rank_ == 0 ? split_strings(all, counts, displs) : std::vector<std::string>{};
}

std::unique_ptr<HostComm> MpiHostComm::split(int color, int key) {
  MPI_Comm part = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(comm_, color >= 0 ? color : MPI_UNDEFINED, key, &part), "MPI_Comm_split");
  if (part == MPI_COMM_NULL) return nullptr;
  return std::make_unique<MpiHostComm>(part, true);
}

}  // namespace dtsim::real
