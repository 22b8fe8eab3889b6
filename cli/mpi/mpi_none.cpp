// Built without MPI: `dtsim sweep --mpi` says so.
#include "cli/mpi/mpi_sweep.hpp"

namespace dtsim::cli {

MpiSweep::MpiSweep() { throw InputError("--mpi: this dtsim was built without MPI (install OpenMPI and rebuild)"); }

MpiSweep::~MpiSweep() = default;

void MpiSweep::run(const std::vector<Scenario>&, std::vector<size_t>, int,
                   const std::function<void(size_t, const nlohmann::json&)>&, const sweep::PointHook&,
                   sweep::OnFailure) {}

}  // namespace dtsim::cli
