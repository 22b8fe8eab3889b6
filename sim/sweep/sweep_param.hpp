// The values a sweep gives to one scenario key: `--param key.path=v1,v2,...`, a geometric range
// `--param cluster.nodes=1..1024:x2` or an arithmetic one `--param cluster.nodes=1..16:+4`.
#pragma once

#include <string>
#include <vector>

namespace dtsim::sweep {

struct SweepParam {
  std::string key;                  // e.g. "cluster.nodes"
  std::vector<std::string> values;  // as `--set key=value` would take them
};

// Throws InputError ("--param TEXT: error: ...") for a malformed list or range. The key and the
// values themselves are checked later, through the scenario loader.
SweepParam parse_sweep_param(const std::string& text);

// Every combination of the params' values, the first param varying slowest; each is a list of
// "key=value" overrides.
std::vector<std::vector<std::string>> expand_grid(const std::vector<SweepParam>& params);

}  // namespace dtsim::sweep
