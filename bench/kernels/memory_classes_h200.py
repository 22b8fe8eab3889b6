#!/usr/bin/env python3
# The memory-bound classes of issue #46 on one H200, each against what dtsim charges for the same op. Writes
# bench/kernels/memory_classes_h200.md (or, with --check, says whether that file is what this script writes).
# Standard library only; nothing here changes dtsim.
#
#   bench/kernels/memory_classes_h200.py [--dtsim build/bin/dtsim]           (writes the .md)
#   bench/kernels/memory_classes_h200.py --check [--dtsim build/bin/dtsim]   (the ctest: passes $<TARGET_FILE:dtsim>)
#
# It runs dtsim (--dtsim, default build/bin/dtsim): the file's every figure of dtsim's is the code's data or a run,
# so the file follows the model. A change to dtsim's cost model that moves one of these ops (its bytes, FLOPs or
# rates, the zoo's h200, the Llama or ResNet-50 scenarios) changes the file: whoever makes it reruns this script
# with the rebuilt binary and commits the new .md with it, and brings memory_classes_model.py's counts to the code
# when the script stops on them (the ctest fails until then).
#
# Data: bench/validation/h200_memory_probe_2026-11-30.json, scripts/torch_memory_probe.py on one NVIDIA H200
# (PyTorch 2.11.0+cu130, bench/validation/h200_env_2026-11-30.txt): each row one op (a backward: one
# torch.autograd.grad of a graph made once) called 30 times back to back between two CUDA events, so a row is the
# op's kernels plus whatever the host adds when it issues them slower than the GPU runs them. Its `bytes` are the
# probe's count (every input read once, every output written once); these scripts count them again as dtsim does.
# Beside it: the same kinds a first time (bench/published/h200_memory_kernels.json, 2026-11-27: repeatability),
# NeuSight's fp32 kernels on seven GPUs (bench/kernels/published/neusight_memory_kernels.csv, through
# memory_fit.py's loader: the cross-GPU question), and one training step of a Llama-3-shaped model on the same kind
# of H200 (bench/validation/h200_llama_probe_2026-11-30.json and its Kineto trace,
# tests/calibrate/data/h200_llama_step.json.gz: every kernel with the operator that issued it, its shapes and dtypes).
#
# Modules, beside this one: memory_classes_model.py (dtsim's counts and rates for these ops, from the zoo and the
# code), memory_classes_dtsim.py (the dtsim runs, and the counts held to them), memory_classes_probe.py (the probe's
# rows: the per-kernel table, the cross-GPU question, the mechanisms behind the largest misses, each with a rule, the
# rows that fit it and the rows that check it, never the same), memory_classes_llama.py (the Llama step's
# memory-bound kernels by operator against dtsim's run of the same step and against those rules).
#
# Rows kept: a row is the device's time only when the GPU, not the host, is the slower; the host's time per call is
# taken as the kernel's time at its smallest shape (2048 x 1024: 4 to 42 MB, 1 to 10 us of traffic at the copy rate,
# measured 6 to 114 us), and a row is kept when it takes at least twice that. Kernels without that shape (the loss,
# the embedding, batch norm, the optimizers: 64 us and up) keep every row.
import argparse
import json
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
sys.path.insert(0, here)
from fit_output import write_or_check  # noqa: E402
from memory_classes_dtsim import Dtsim, held_to_runs  # noqa: E402
from memory_classes_llama import llama_step  # noqa: E402
from memory_classes_model import COPY_RATE, EARLIER, OPS, PROBE, ROOT, Z, flop_bound  # noqa: E402
from memory_classes_probe import cross_gpu, kept_rows, per_kernel, probe_mechanisms  # noqa: E402

OUT = os.path.join(here, "memory_classes_h200.md")


def main():
    parser = argparse.ArgumentParser(description="Writes bench/kernels/memory_classes_h200.md, or checks it.")
    parser.add_argument("--check", action="store_true", help="say whether the file is what this script writes")
    parser.add_argument("--dtsim", default=os.path.join(ROOT, "build", "bin", "dtsim"), help="the dtsim binary")
    args = parser.parse_args()
    sim = Dtsim(os.path.abspath(args.dtsim))
    probe = json.load(open(PROBE))
    rows = [r for r in probe["rows"] if r["kernel"] in OPS]
    kept, floor = kept_rows(rows)
    bound = sum(flop_bound(r) for r in kept)
    out = []
    w = out.append
    w("## Memory-bound classes on an H200, each against dtsim's cost of the same op")
    w("")
    w("Written by `bench/kernels/memory_classes_h200.py` (its header says how) from")
    w(f"`bench/validation/h200_memory_probe_2026-11-30.json` ({len(probe['rows'])} rows, {probe['device']}, PyTorch "
      f"{probe['torch']}; scripts/torch_memory_probe.py).")
    w(f"dtsim's rate for these classes on the zoo's h200: {Z['bw'] / 1e9:,.0f} GB/s x memory {Z['memory']:.2f} = "
      f"{COPY_RATE / 1e9:,.0f} GB/s (models/zoo/kernel.cpp, kernel_cost: `bandwidth = device.mem_bandwidth * "
      f"p.memory`, the default branch), layout copies at x layout_copy {Z['layout_copy']:.2f} = "
      f"{Z['bw'] * Z['layout_copy'] / 1e9:,.0f} GB/s; a two-pass norm's second read from L2 with f = {Z['f']:.2f} "
      f"and {Z['rows_per_sm']} rows in flight an SM (models/zoo/reread.cpp). Each row's dtsim time is that op's "
      "bytes as dtsim counts them (the table's last column: where; each count held to a dtsim run at the end) at "
      "that rate, or its FLOPs at the fp32 peak where slower (" + ("never, here" if not bound else
                                                                  f"{bound} of the kept rows") +
      "); the ratio is dtsim / measured: below 1 dtsim is fast (too optimistic), above 1 slow.")
    w("")
    dropped = len(rows) - len(kept)
    w(f"Rows kept: {len(kept)} of {len(rows)}; {dropped} were left out as the host's time (each under twice its "
      "kernel's time at 2048 x 1024, which the host sets: "
      + ", ".join(f"{k} {v * 1e6:.0f} us" for k, v in sorted(floor.items(), key=lambda kv: kv[1])[:4]) + ", ... "
      f"up to {max(floor.values()) * 1e6:.0f} us for the eager rotary's backward).")
    # Repeatability: the kinds measured twice.
    earlier = {(r["kernel"], r["dtype"], tuple(r["shape"])): r["seconds"] for r in json.load(open(EARLIER))["rows"]}
    diffs = [abs(r["seconds"] / earlier[(r["kernel"], r["dtype"], tuple(r["shape"]))] - 1) for r in kept
             if (r["kernel"], r["dtype"], tuple(r["shape"])) in earlier]
    w(f"The {len(diffs)} kept rows measured a first time on 2026-11-27 (bench/published/h200_memory_kernels.json) "
      f"moved by a median {100 * statistics.median(diffs):.1f} % (largest {100 * max(diffs):.1f} %): differences "
      "under a few per cent below are noise.")
    w("")
    summary = per_kernel(w, kept, sim)
    cross_gpu(w, kept, summary)
    probe_mechanisms(w, kept, summary, sim)
    llama_step(w, kept, sim)
    held_to_runs(w, sim, summary)
    text = "\n".join(out) + "\n"
    return write_or_check(OUT, text, "memory_classes_h200")


if __name__ == "__main__":
    sys.exit(main())
