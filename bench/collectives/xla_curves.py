#!/usr/bin/env python3
# XLA's measured collective table as nccl-tests curves (bench/collectives/published/xla/SOURCES.md): writes one
# CSV per GPU, collective and group size into bench/collectives/published/, in the columns the other published
# curves use (bytes,time_us,algbw_GBps,busbw_GBps), or with --check says whether those files are what it writes.
# Standard library only.
#
# XLA's generator (openxla/xla xla/tools/collective_perf_table_gen.cc) stores, per device, throughput =
# tensor_size_bytes / runtime, runtime the median GPU time of the compiled collective, tensor_size_bytes the swept
# size: 4 x elements of the stored (output) shape for all-reduce, all-gather and all-to-all, 4 x elements x D for
# reduce-scatter (its input; the stored shape is the scattered output). nccl-tests names the same sizes (all_gather's
# and alltoall's size is the whole buffer of a rank, reduce_scatter's its input), so algbw = throughput and busbw =
# algbw x 2 (D - 1) / D for all-reduce, x (D - 1) / D for the others (nccl-tests doc/PERFORMANCE.md). The groups of
# one row (G groups of D GPUs of one 8-GPU host) run at once on disjoint GPUs.
import csv
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_or_check  # noqa: E402

TABLE = os.path.join(here, "published", "xla", "collective_perf_table.csv")
GPUS = {"sm_90": "h100", "sm_100": "b200"}
OPS = {"all-reduce": "all_reduce", "all-gather": "all_gather", "reduce-scatter": "reduce_scatter",
       "all-to-all": "alltoall"}


def curves():
    """{file name: [(bytes, throughput bytes/s)]} for each GPU, collective and group size, sizes ascending."""
    out = {}
    with open(TABLE) as f:
        for r in csv.DictReader(f):
            if r["opcode"] not in OPS:
                continue  # collective-permute: no nccl-tests counterpart
            d = int(r["devices_per_group"])
            elements = int(r["elements"])
            size = 4 * elements * (d if r["opcode"] == "reduce-scatter" else 1)
            name = f"xla_{GPUS[r['gpu_key']]}_{OPS[r['opcode']]}_1n{d}.csv"
            out.setdefault(name, []).append((size, int(r["throughput_bytes_per_s"]), d, r["opcode"]))
    return {k: sorted(v) for k, v in out.items()}


def text(points):
    lines = ["bytes,time_us,algbw_GBps,busbw_GBps"]
    for size, thr, d, op in points:
        factor = 2 * (d - 1) / d if op == "all-reduce" else (d - 1) / d
        lines.append(f"{size},{size / thr * 1e6:.2f},{thr / 1e9:.4f},{thr / 1e9 * factor:.4f}")
    return "\n".join(lines) + "\n"


def main():
    status = 0
    for name, points in sorted(curves().items()):
        status |= write_or_check(os.path.join(here, "published", name), text(points), "xla_curves")
    return status


if __name__ == "__main__":
    sys.exit(main())
