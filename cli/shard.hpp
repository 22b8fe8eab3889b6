// --shard i/n of `dtsim sweep` and `dtsim tune` (a Slurm array task's share).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace dtsim::cli {

// "i/n" as (i, n) with 0 <= i < n; "" as (0, 1), the whole. Throws InputError otherwise.
std::pair<size_t, size_t> parse_shard(const std::string& text);

}  // namespace dtsim::cli
