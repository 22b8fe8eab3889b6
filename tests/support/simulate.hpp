// Runs a plan on the SimGrid engine in a forked child (one simulation per process) and brings
// back every op record, exactly (printed with 17 significant digits).
#pragma once

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "core/run/metrics.hpp"
#include "core/run/observer.hpp"
#include "fork_run.hpp"
#include "sim/simgrid/executor.hpp"

namespace dtsim::test {

struct SimResult {
  std::vector<OpRecord> records;
  long activities = 0;
};

inline SimResult simulate(const ClusterSpec& cluster, const Plan& plan, Fidelity fidelity, bool fuse = true,
                          sg::CoreSharing sharing = sg::CoreSharing::Queue) {
  const ChildResult child = fork_run([&] {
    Recorder rec;
    sg::SimGridExecutor engine(cluster, sg::SimGridOptions{fidelity, fuse, sharing});
    engine.run(plan, rec);
    std::string out = std::to_string(engine.stats().activities) + "\n";
    char line[160];
    for (const auto& r : rec.records()) {
      std::snprintf(line, sizeof line, "%d %d %d %.17g %.17g %d\n", r.rank, r.iteration, r.op, r.start, r.end,
                    r.cut ? 1 : 0);
      out += line;
    }
    return out;
  });
  if (child.code != 0) throw std::runtime_error("simulation failed: " + child.output);
  SimResult result;
  std::istringstream in(child.output);
  in >> result.activities;
  OpRecord r;
  int cut = 0;
  while (in >> r.rank >> r.iteration >> r.op >> r.start >> r.end >> cut) {
    r.cut = cut != 0;
    result.records.push_back(r);
  }
  return result;
}

}  // namespace dtsim::test
