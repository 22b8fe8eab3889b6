// Run under mpirun by tests/real: every collective kind of every algorithm (schedules over MPI
// point-to-point) and of the MPI library, on several buffer sizes and group shapes of the world,
// checked element by element. Prints one line per failure and a summary; exit code 1 on any.
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "core/base/error.hpp"
#include "real/cpu/collectives.hpp"
#include "real/mpi_world.hpp"
#include "real/values.hpp"

using namespace dtsim;
using namespace dtsim::real;

int main(int argc, char** argv) {
  MpiWorld world(argc, argv);
  const int n = world.size(), me = world.rank();
  const CollectiveKind kinds[] = {CollectiveKind::AllReduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather,
                                  CollectiveKind::Broadcast, CollectiveKind::Reduce,        CollectiveKind::AllToAll};
  std::vector<int> per_node{1};
  if (n % 2 == 0 && n > 2) per_node.push_back(2);
  int runs = 0, failures = 0, unsupported = 0;
  for (CollectiveKind kind : kinds) {
    for (const double bytes : {4.0 * 1000, 4.0 * 1000003, 4.0 * 7}) {
      for (int pn : per_node) {
        for (int root : {0, n - 1}) {
          const GroupShape shape{n, pn, root};
          std::vector<std::string> algorithms;
          for (auto name : algorithm_names()) algorithms.emplace_back(name);
          algorithms.emplace_back("mpi");
          for (const std::string& name : algorithms) {
            const std::int64_t elements = buffer_elements(kind, n, static_cast<std::int64_t>(bytes / 4));
            ChunkLayout layout{elements, native_chunks(kind, n)};
            Schedule schedule;
            if (name != "mpi") {
              const CollectiveAlgorithm& algo = find_algorithm(name);
              if (!algo.supports(kind, shape)) {
                ++unsupported;
                continue;
              }
              schedule = algo.schedule(kind, shape, bytes);
              layout.chunks = schedule.chunks;
            }
            std::vector<float> buffer(static_cast<size_t>(elements));
            const int salt = runs % 5;
            fill_input(kind, layout, shape, me, salt, 17, buffer);
            if (name == "mpi") {
              run_native(kind, layout, shape, buffer, me, MPI_COMM_WORLD);
            } else {
              run_schedule(schedule, layout, buffer, me, MPI_COMM_WORLD);
            }
            const CheckResult r = check_output(kind, layout, shape, me, salt, 17, buffer);
            long bad = r.mismatched;
            MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            ++runs;
            if (bad != 0) {
              ++failures;
              if (me == 0) {
                std::cout << fmt::format("FAIL {} {} size {} per_node {} root {} floats {}: {} elements wrong\n", name,
                                         collective_name(kind), n, pn, root, elements, bad);
              }
            }
          }
        }
      }
    }
  }
  if (me == 0) {
    std::cout << fmt::format("{} collectives on {} ranks, {} exact, {} failed ({} unsupported shapes skipped)\n", runs,
                             n, runs - failures, failures, unsupported);
  }
  return failures == 0 ? 0 : 1;
}
