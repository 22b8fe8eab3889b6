#!/usr/bin/env python3
# Copies NeuSight's measured fp32 convolutions and its largest fp32 linear layers into
# bench/kernels/published/neusight_conv.csv and neusight_linear.csv (sources: SOURCES.md there), which
# bench/kernels/conv_fit.py reads. Run once by hand on a checkout of sitar-lab/NeuSight:
#   bench/kernels/neusight_extract.py PATH_TO_NEUSIGHT
# From scripts/asplos/data/dataset/train/collect/{conv,linear}/p2.1.0/<GPU>.csv: every convolution row, and the linear
# rows of at least MIN_LINEAR_FLOPS (the GEMM figure conv_fit.py takes is the best of those), values as written (the
# profiled kernel names are left out: conv_fit.py does not read them).
import csv
import glob
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from fit_output import write_csv  # noqa: E402

OUT = os.path.join(here, "published")
COLLECT = os.path.join("scripts", "asplos", "data", "dataset", "train", "collect")
MIN_LINEAR_FLOPS = 100e9


def rows(root, op):
    for path in sorted(glob.glob(os.path.join(root, COLLECT, op, "p2.1.0", "*.csv"))):
        yield from csv.DictReader(open(path))


def main(root):
    conv = [[r["Device"], r["B"], r["Input_Channel"], r["Output_Channel"], r["Kernel_Szie"], r["Input_Size"],
             r["Stride"], r["Padding"], r["Latency"]] for r in rows(root, "conv")]
    linear = [[r["Device"], r["B"], r["M"], r["N"], r["K"], r["Latency"]] for r in rows(root, "linear")
              if 2 * int(r["B"]) * int(r["M"]) * int(r["N"]) * int(r["K"]) >= MIN_LINEAR_FLOPS]
    write_csv(os.path.join(OUT, "neusight_conv.csv"),
              ["device", "batch", "in_channels", "out_channels", "kernel", "input_side", "stride", "padding",
               "latency_ms"], conv)
    write_csv(os.path.join(OUT, "neusight_linear.csv"), ["device", "B", "M", "N", "K", "latency_ms"], linear)
    print(f"neusight_extract.py: {len(conv)} convolutions, {len(linear)} linear layers")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: bench/kernels/neusight_extract.py PATH_TO_NEUSIGHT_CHECKOUT")
    sys.exit(main(sys.argv[1]))
