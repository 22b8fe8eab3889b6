#!/usr/bin/env python3
"""PyTorch DistributedDataParallel over gloo on this CPU: the measured training step, the inputs dtsim
needs to predict it, and a profiler trace of the same run.

    python3 scripts/torch_ddp_validate.py OUTDIR [--ranks 2] [--batch 64] [--widths 512,1024,1024,256]
                                          [--steps 30] [--optimizer sgd|momentum|adam]

The job: scripts/torch_cpu_trace.py's MLP (Linear layers, GELU between them, LayerNorm before the
last, mean squared error), float32, one thread a rank, DDP with its defaults (gradient buckets of
25 MB after a first of 1 MB, AllReduce overlapped with backward, gloo's ring over TCP on this host).
Every rank trains 5 untimed steps, then `--steps` timed ones (the step: zero_grad, forward, loss,
backward, optimizer step; wall time, every rank's median, the slowest rank's kept), then 3 under
torch.profiler (record_shapes) on rank 0.

Written to OUTDIR:
  trace.json     rank 0's profiled steps in Kineto's schema (torch_cpu_trace.kineto_trace: Debian's
                 PyTorch 1.13 exports no shapes itself), for dtsim calibrate --from-trace;
  model.yaml     the MLP as a dtsim model file (docs/models.md), per sample;
  scenario.yaml  the job as a dtsim scenario (framework.preset pytorch_ddp), with gloo's AllReduce bus
                 bandwidth as measured here (cluster.intra_node.collective_busbw: gloo is not MPI, so
                 dtsim calibrate's links do not describe it);
  measured.json  the step's time per rank and the gloo AllReduce curve.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_cpu_trace import kineto_trace, mlp, training_step  # noqa: E402

ALLREDUCE_SIZES = [1 << k for k in range(16, 26, 1)]  # 64 KiB to 32 MiB of fp32


def optimizer(name, params):
    if name == "adam":
        return torch.optim.Adam(params, lr=1e-3)
    return torch.optim.SGD(params, lr=1e-3, momentum=0.9 if name == "momentum" else 0.0)


def worker(rank, a, port, results):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=a.ranks)
    widths = [int(w) for w in a.widths.split(",")]

    # gloo's AllReduce as nccl-tests times one: the slowest rank's median of 10 after 2 untimed.
    curve = []
    for size in ALLREDUCE_SIZES:
        buf = torch.ones(size // 4)
        for _ in range(2):
            dist.all_reduce(buf)
        times = []
        for _ in range(10):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(buf)
            times.append(time.perf_counter() - t0)
        t = torch.tensor([statistics.median(times)], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        curve.append((size, t.item()))

    torch.manual_seed(0)
    model = DDP(mlp(widths))
    opt = optimizer(a.optimizer, model.parameters())
    x = torch.randn(a.batch, widths[0])
    y = torch.randn(a.batch, widths[-1])
    step = training_step(model, opt, x, y)

    for _ in range(5):
        step()
    dist.barrier()
    times = []
    for _ in range(a.steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    med = torch.tensor([statistics.median(times)], dtype=torch.float64)
    per_rank = [torch.zeros(1, dtype=torch.float64) for _ in range(a.ranks)]
    dist.all_gather(per_rank, med)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        for _ in range(3):
            step()
            prof.step()
    if rank == 0:
        with open(os.path.join(a.outdir, "trace.json"), "w") as f:
            json.dump(kineto_trace(prof, "scripts/torch_ddp_validate.py"), f)
        results.put({"step_s_per_rank": [t.item() for t in per_rank], "allreduce": curve})
    dist.destroy_process_group()


def model_file(widths):
    """The MLP per sample in dtsim's model-file format (docs/models.md)."""
    rows = []
    for i in range(len(widths) - 1):
        n_in, n_out = widths[i], widths[i + 1]
        if i == len(widths) - 2 and i > 0:
            rows.append([f"norm{i}", "norm", 2 * n_in, 0, 0, n_in, 0, 0, 0, 3 * n_in, 5 * n_in])
        fwd = 2 * n_in * n_out
        # Backward: the weight gradient, and the input gradient for every layer but the first.
        rows.append([f"fc{i}", "gemm", n_in * n_out + n_out, fwd, fwd * (2 if i > 0 else 1), n_out, 1, n_out, n_in,
                     n_in + n_out, 2 * (n_in + n_out)])
        if i < len(widths) - 2:
            rows.append([f"fc{i}.gelu", "elementwise", 0, 0, 0, n_out, 0, 0, 0, 2 * n_out, 3 * n_out])
    lines = ["name: ddp_mlp",
             f"source: \"scripts/torch_ddp_validate.py: torch_cpu_trace.mlp({widths}), per sample\"",
             "counts: flops",
             "columns: [name, class, params, fwd_flops, bwd_flops, activations, gemm_m, gemm_n, gemm_k, fwd_traffic, "
             "bwd_traffic]",
             "layers:"]
    lines += ["  - [" + ", ".join(str(v) for v in r) + "]" for r in rows]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--widths", default="512,1024,1024,256")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--optimizer", choices=["sgd", "momentum", "adam"], default="momentum")
    ap.add_argument("--port", type=int, default=29517)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    widths = [int(w) for w in a.widths.split(",")]
    ctx = mp.get_context("spawn")
    results = ctx.SimpleQueue()
    mp.start_processes(worker, args=(a, a.port, results), nprocs=a.ranks, start_method="spawn")
    measured = results.get()
    busbw = ",".join(f"{size}B:{size / t * 2 * (a.ranks - 1) / a.ranks / 1e9:.4g}GB/s"
                     for size, t in measured["allreduce"])
    with open(os.path.join(a.outdir, "model.yaml"), "w") as f:
        f.write(model_file(widths))
    with open(os.path.join(a.outdir, "scenario.yaml"), "w") as f:
        f.write(f"""# PyTorch DDP over gloo on this host, as scripts/torch_ddp_validate.py ran it
name: torch_ddp_gloo
model:
  file: model.yaml
  batch_per_worker: {a.batch}
  dtype: fp32
  optimizer: {a.optimizer}
cluster:
  nodes: 1
  devices_per_node: {a.ranks}
  device: cpu_socket
  intra_node:
    collective_busbw: "{busbw}"
framework:
  preset: pytorch_ddp
  optimizer_kernels: per_tensor
strategy:
  kind: allreduce
  allreduce:
    algorithm: ring
run:
  iterations: 20
  warmup: 2
  engine: analytical
""")
    measured.update({"step_s": max(measured["step_s_per_rank"]), "ranks": a.ranks, "batch": a.batch,
                     "widths": widths, "optimizer": a.optimizer, "torch": torch.__version__})
    with open(os.path.join(a.outdir, "measured.json"), "w") as f:
        json.dump(measured, f, indent=1)
    print(json.dumps({"step_s": measured["step_s"], "outdir": a.outdir}))


if __name__ == "__main__":
    main()
