#!/usr/bin/env python3
"""A torch.profiler trace of a small model's training steps on this CPU, for `dtsim calibrate
--from-trace` and its tests.

    python3 scripts/torch_cpu_trace.py OUT.json [--steps 3] [--batch 64] [--widths 512,1024,1024,256]

The model: Linear layers of the given widths, GELU between them, LayerNorm before the last, a mean
squared error, Adam; every tensor float32; one thread. Three untimed steps, then `--steps` profiled
with record_shapes=True.

Debian's python3-torch (1.13) is built without Kineto, and its export_chrome_trace writes neither the
ops' shapes nor a category. So this script writes the trace itself, in the schema Kineto's exporter
uses (traceEvents of "ph": "X", "cat": "cpu_op", args "Input Dims" and "Input type"), from the
profiler's own events: name, thread, start, duration and input shapes as torch.profiler recorded
them. 1.13's events carry no dtypes; every tensor of this model is float32 (asserted below), so a
tensor input is written "float" and a scalar or empty one "Scalar".

It prints one JSON line: the trace's path, the steps, the batch, the widths and the GEMM FLOPs of the
profiled steps as the closed form gives them (the oracle tests/calibrate/torch_trace_test.cpp holds
the reader to): per step and Linear layer of in x out, 2 B in out forward, 2 B in out for the weight
gradient and, for every layer but the first (its input needs no gradient), 2 B in out for the input
gradient.
"""
import argparse
import json
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile


def mlp(widths):
    """Linear layers of the widths, GELU between them, LayerNorm before the last."""
    layers = []
    for i in range(len(widths) - 1):
        if i == len(widths) - 2 and i > 0:
            layers.append(nn.LayerNorm(widths[i]))
        layers.append(nn.Linear(widths[i], widths[i + 1]))
        if i < len(widths) - 2:
            layers.append(nn.GELU())
    return nn.Sequential(*layers)


def kineto_trace(prof, maker):
    """The profiler's events as Kineto's exporter writes them (see the module's docstring)."""
    events = []
    for e in prof.events():
        shapes = [list(s) for s in (e.input_shapes or [])]
        events.append({
            "ph": "X", "cat": "cpu_op", "name": e.name, "pid": 0, "tid": int(e.thread),
            "ts": e.time_range.start, "dur": e.time_range.end - e.time_range.start,
            "args": {"Input Dims": shapes, "Input type": ["float" if s else "Scalar" for s in shapes]},
        })
    return {"schemaVersion": 1, "traceEvents": events, "trace_maker": f"{maker}, torch {torch.__version__}"}


def training_step(model, opt, x, y):
    """One step of the MLP on (x, y): mean squared error, backward, the optimizer's step."""
    def step():
        opt.zero_grad(set_to_none=True)
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    return step


def gemm_flops(widths, batch):
    """One step's GEMM FLOPs: forward and weight gradient of every layer, input gradient of all but the first."""
    return sum(2.0 * batch * widths[i] * widths[i + 1] * (3 if i > 0 else 2) for i in range(len(widths) - 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--widths", default="512,1024,1024,256")
    a = ap.parse_args()
    widths = [int(w) for w in a.widths.split(",")]
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = mlp(widths)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(a.batch, widths[0])
    y = torch.randn(a.batch, widths[-1])
    assert all(p.dtype == torch.float32 for p in model.parameters()) and x.dtype == y.dtype == torch.float32
    step = training_step(model, opt, x, y)

    for _ in range(3):
        step()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        for _ in range(a.steps):
            step()
            prof.step()

    with open(a.out, "w") as f:
        json.dump(kineto_trace(prof, "scripts/torch_cpu_trace.py"), f)
    json.dump({"trace": a.out, "steps": a.steps, "batch": a.batch, "widths": widths,
               "gemm_flops": gemm_flops(widths, a.batch) * a.steps}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
