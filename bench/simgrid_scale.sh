#!/usr/bin/env bash
# The SimGrid engine's speed and scale targets (issue: SimGrid engine), one simulation per
# process, printed as a markdown table for docs/PERFORMANCE.md. Run after scripts/setup:
#   bench/simgrid_scale.sh [build-dir]
set -euo pipefail
bin="${1:-build}/bin/bench_simgrid_scale"
echo "| ranks | iterations | fidelity | total s | platform s | simulation s | peak RSS MiB | activities | activities/s | target |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"
row() {
  local target="$4"
  read -r ranks its fid fused total plat engine rss acts rate < <("$bin" "$1" "$2" "$3")
  echo "| $ranks | $its | $fid | $total | $plat | $engine | $rss | $acts | $rate | $target |"
}
row 256 1 step "total <= 2 s"
row 1024 10 flow "total <= 2 s"
for n in 1024 2048 4096 8192; do row "$n" 1 flow "N log N growth"; done
row 16384 1 flow "total <= 15 s, <= 4096 MiB"
