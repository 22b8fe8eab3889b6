// A measured bus bandwidth curve, read to lay beside NCCL's model (`dtsim collectives --measured`). Two forms:
//   a CSV whose header (its first line that is not a comment) names `bytes` and `busbw_GBps`
//     (bench/collectives/published/), other columns ignored;
//   otherwise nccl-tests' own output (all_reduce_perf and the others, any version): every line that starts with a
//     size (after the `N:` srun -l puts before it) is a point, its out-of-place busbw the sixth field from the end
//     (the columns end with time, algbw, busbw, #wrong out of place, then the same four in place); comment lines (#)
//     and NCCL's log lines are skipped.
// Points keep the file's order; rows of 0 bytes (nccl-tests prints them for sizes below one element per rank) are
// left out; a file with no point, or a row whose size or bus bandwidth is not a number of at least 0, is refused
// with its file and line.
#pragma once

#include <string>
#include <vector>

namespace dtsim::nccl {

struct BusbwPoint {
  double bytes = 0;
  double busbw = 0;  // bytes/s, as nccl-tests computes it
};

std::vector<BusbwPoint> read_busbw_curve(const std::string& path);
// The same from text (`path` names it in errors).
std::vector<BusbwPoint> parse_busbw_curve(const std::string& text, const std::string& path);

}  // namespace dtsim::nccl
