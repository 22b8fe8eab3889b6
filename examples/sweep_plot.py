#!/usr/bin/env python3
"""Sweep one scenario key with dtsim's Python module and plot the iteration time against it.

    PYTHONPATH=build/python python3 examples/sweep_plot.py [SCENARIO] [--key cluster.nodes] [--values 1,2,4,8]

Writes sweep_plot.png (or --out) when matplotlib is installed; prints the table either way.
"""
import argparse
import sys

import dtsim


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", default="scenarios/quickstart.yaml")
    parser.add_argument("--key", default="cluster.nodes", help="the scenario key to sweep")
    parser.add_argument("--values", default="1,2,4,8", help="its values, comma-separated")
    parser.add_argument("--engine", default=None, help="simgrid or analytical (default: the scenario's)")
    parser.add_argument("--jobs", type=int, default=2, help="points at once (SimGrid points: a process each)")
    parser.add_argument("--out", default="sweep_plot.png", help="the plot (with matplotlib)")
    args = parser.parse_args()

    values = [int(v) if v.isdigit() else v for v in args.values.split(",")]
    table = dtsim.sweep(dtsim.load(args.scenario), {args.key: values}, jobs=args.jobs, engine=args.engine)
    print(table)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no plot)")
        return 0
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([str(v) for v in table.column(args.key)], table.column("iteration_time_s"), marker="o")
    ax.set_xlabel(args.key)
    ax.set_ylabel("iteration time (s)")
    ax.set_title(table.metrics[0].scenario)
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
