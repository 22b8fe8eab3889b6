# How fast a GEMM runs against the share of the time GEMMs hold the GPU (issue #46: kernels.gemm_held prices every
# training step's GEMMs at what back-to-back products keep, 0.903 on an H200, while the GEMMs of a PyTorch Llama step
# on the same GPU ran at the unheld rate). Each bf16 product (a 4096-hidden block's fc1 and fc2 at 8192 tokens, and a
# square) is followed by an elementwise add lasting r times the product (r = 0: back to back), the pattern run for 3 s
# to reach its steady power before 40 of its products are timed from torch.profiler's kernels, with the SM clock
# and power sampled after. The product's share of the pattern is 1 / (1 + r). Run there with its python3:
#   python3 scripts/torch_gemm_duty_probe.py OUT.json
import json
import subprocess
import sys
import time

import torch

from torch_timing import kernels_ms

dev = "cuda"
out_path = sys.argv[1] if len(sys.argv) > 1 else "torch_gemm_duty.json"
res = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0), "rows": []}
SHAPES = [("fc1_h4096", 8192, 16384, 4096), ("fc2_h4096", 8192, 4096, 16384), ("square_8192", 8192, 8192, 8192)]
RATIOS = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0)


def smi():
    return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                           "--format=csv,noheader,nounits"], capture_output=True, text=True).stdout.strip()


for name, m, n, k in SHAPES:
    a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
    gemm = lambda: a @ b.t()
    for _ in range(5):
        gemm()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(20):
        gemm()
    torch.cuda.synchronize()
    t_gemm = (time.perf_counter() - t0) / 20
    flops = 2 * m * n * k
    for r in RATIOS:
        if r > 0:
            # an add over `size` fp32 elements reads and writes 8 bytes each at about 4 TB/s
            size = max(1024, int(r * t_gemm * 4.0e12 / 8))
            x = torch.empty(size, device=dev, dtype=torch.float32)
            y = torch.empty_like(x)

            def fn():
                gemm()
                torch.add(x, 1.0, out=y)
        else:
            fn = gemm
        t_end = time.perf_counter() + 3.0
        while time.perf_counter() < t_end:
            for _ in range(10):
                fn()
            torch.cuda.synchronize()
        ms, _ = kernels_ms(fn, 40)
        row = {"shape": name, "m": m, "n": n, "k": k, "ratio": r, "gemm_share": 1 / (1 + r), "kernel_ms": ms,
               "tflops": flops / (ms / 1e3) / 1e12, "smi_after": smi()}
        res["rows"].append(row)
        print(name, f"r={r}", f"{ms:.3f} ms", f"{row['tflops']:.0f} TFLOP/s", row["smi_after"], flush=True)
        if r > 0:
            del x, y
    del a, b
    torch.cuda.empty_cache()
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)
