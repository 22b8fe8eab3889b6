# PyTorch's memory-bound kernels on a GPU machine, alone, by size: what fraction of the memory
# bandwidth each reaches, counting the bytes dtsim counts for it (every input read once, every output
# written once). For issue #25's per-class efficiencies (elementwise, casts, normalisation, softmax),
# measured apart from any workload that docs/VALIDATION.md checks. Run there with its python3:
#   python3 scripts/torch_memory_probe.py OUT.json [PEAK_GBPS]
import json
import sys

import torch
import torch.nn.functional as F

from torch_timing import bench

dev = "cuda"
peak = float(sys.argv[2]) if len(sys.argv) > 2 else 4800.0  # GB/s, the data sheet's (H200: 4.8 TB/s)


res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "peak_gbps": peak, "rows": []}


def row(kernel, dtype, shape, nbytes, fn):
    t = bench(fn, iters=30)
    r = {"kernel": kernel, "dtype": dtype, "shape": list(shape), "bytes": nbytes, "seconds": t,
         "gbps": nbytes / t / 1e9, "fraction_of_peak": nbytes / t / 1e9 / peak}
    res["rows"].append(r)
    print(f"{kernel:22s} {dtype:5s} {str(list(shape)):22s} {r['gbps']:8.0f} GB/s {r['fraction_of_peak']:.3f}",
          flush=True)


dts = {"fp32": torch.float32, "bf16": torch.bfloat16}
size = {"fp32": 4, "bf16": 2}
for tokens, hidden in ((2048, 1024), (4096, 2048), (8192, 4096), (16384, 8192)):
    shape = (tokens, hidden)
    n = tokens * hidden
    for name, dt in dts.items():
        x = torch.randn(shape, device=dev, dtype=dt)
        y = torch.randn(shape, device=dev, dtype=dt)
        b = size[name]
        row("add", name, shape, 3 * n * b, lambda: torch.add(x, y))
        row("gelu_fwd", name, shape, 2 * n * b, lambda: F.gelu(x))
        xg = x.clone().requires_grad_(True)
        out = F.gelu(xg)
        g = torch.randn_like(out)
        row("gelu_bwd", name, shape, 3 * n * b, lambda: torch.autograd.grad(out, xg, g, retain_graph=True))
        w = torch.ones(hidden, device=dev, dtype=dt)
        bias = torch.zeros(hidden, device=dev, dtype=dt)
        row("layer_norm_fwd", name, shape, 2 * n * b, lambda: F.layer_norm(x, (hidden,), w, bias))
        xl = x.clone().requires_grad_(True)
        wl = w.clone().requires_grad_(True)
        bl = bias.clone().requires_grad_(True)
        lo = F.layer_norm(xl, (hidden,), wl, bl)
        gl = torch.randn_like(lo)
        row("layer_norm_bwd", name, shape, 3 * n * b,
            lambda: torch.autograd.grad(lo, (xl, wl, bl), gl, retain_graph=True))
        row("softmax_fwd", name, shape, 2 * n * b, lambda: torch.softmax(x, dim=-1))
        del x, y, xg, out, g, xl, lo, gl
    x32 = torch.randn(shape, device=dev, dtype=torch.float32)
    x16 = x32.to(torch.bfloat16)
    row("cast_fp32_to_bf16", "mixed", shape, 6 * n, lambda: x32.to(torch.bfloat16))
    row("cast_bf16_to_fp32", "mixed", shape, 6 * n, lambda: x16.to(torch.float32))
    acc = torch.zeros(shape, device=dev, dtype=torch.float32)
    row("accumulate_fp32", "fp32", shape, 12 * n, lambda: acc.add_(x32))
    del x32, x16, acc
    torch.cuda.empty_cache()

with open(sys.argv[1] if len(sys.argv) > 1 else "torch_memory.json", "w") as f:
    json.dump(res, f, indent=2)
