// The MPI sweep: broadcast the remaining points, run a strided share per rank, gather at rank 0.
#include "cli/mpi/mpi_sweep.hpp"

#include <mpi.h>

#include <fmt/format.h>

#include "sim/sweep/point_runner.hpp"

namespace dtsim::cli {

MpiSweep::MpiSweep() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSweep::~MpiSweep() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void MpiSweep::run(const std::vector<Scenario>& scenarios, std::vector<size_t> pending, int jobs,
                   const std::function<void(size_t index, const nlohmann::json& metrics)>& done,
                   const sweep::PointHook& hook, sweep::OnFailure on_failure) {
  unsigned long count = pending.size();
  MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  pending.resize(count);
  MPI_Bcast(pending.data(), static_cast<int>(count), MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);

  std::vector<size_t> mine;
  for (size_t i = static_cast<size_t>(rank_); i < pending.size(); i += static_cast<size_t>(size_))
    mine.push_back(pending[i]);
  // One JSON line per finished point; an error line ("!" + message) if the share failed.
  std::string payload;
  try {
    sweep::run_points(
        scenarios, mine, jobs,
        [&](size_t index, const nlohmann::json& metrics) {
          if (rank_ == 0) {
            done(index, metrics);
          } else {
            payload += nlohmann::json{{"index", index}, {"metrics", metrics}}.dump() + "\n";
          }
        },
        hook, on_failure);
  } catch (const std::exception& e) {
    payload += fmt::format("!rank {}: {}\n", rank_, e.what());
  }

  int length = static_cast<int>(payload.size());
  std::vector<int> lengths(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_), 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    all.resize(static_cast<size_t>(offsets.back() + lengths.back()));
  }
  MPI_Gatherv(payload.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  std::string failure;
  if (rank_ == 0) {
    size_t start = 0;
    while (start < all.size()) {
      const size_t end = all.find('\n', start);
      const std::string line = all.substr(start, end - start);
      start = end == std::string::npos ? all.size() : end + 1;
      if (line.empty()) continue;
      if (line[0] == '!') {
        if (failure.empty()) failure = line.substr(1);
        continue;
      }
      const auto j = nlohmann::json::parse(line);
      done(j["index"].get<size_t>(), j["metrics"]);
    }
  }
  int failed = failure.empty() ? 0 : 1;
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (failed) throw RuntimeError(rank_ == 0 ? failure : "another rank's points failed (see rank 0)");
}

}  // namespace dtsim::cli
