// The `workload.chakra*` job keys (docs/chakra.md): the traces a job replays and how their compute
// nodes are timed. The loader resolves the prefix against the scenario file and checks the set exists.
#include "core/scenario/chakra_keys.hpp"

namespace dtsim {

void add_chakra_keys(KeyTable& keys) {
  keys.job(
      "workload.chakra", "path", "",
      "Replay Chakra execution traces instead of a model: a prefix (<prefix>.<rank>.et or .et.gz, one file per "
      "rank, as Chakra's converter writes them) or a folder holding one set, relative to the scenario file. Rank r "
      "runs on device r (node r / cluster.devices_per_node) unless the traces place it; collectives run on the "
      "process groups their pg_name names, sends and receives match by source, destination and tag "
      "(docs/chakra.md). Replaces model.name and model.file; one job, strategy.kind allreduce, sync.policy bsp.",
      [](JobSpec& j, const ScalarValue& v) { j.chakra.prefix = v.text(); });
  keys.job(
      "workload.chakra_timing", "one of: auto, duration, roofline", "auto",
      "How a Chakra compute or memory node is timed: duration (its duration_micros), roofline (its num_ops and "
      "tensor_size on the node's device, at model.dtype unless the node says) or auto (its duration when it has "
      "one, else the roofline).",
      [](JobSpec& j, const ScalarValue& v) {
        j.chakra.timing = v.choice<ChakraTiming>(
            {{"auto", ChakraTiming::Auto}, {"duration", ChakraTiming::Duration}, {"roofline", ChakraTiming::Roofline}});
      });
}

}  // namespace dtsim
