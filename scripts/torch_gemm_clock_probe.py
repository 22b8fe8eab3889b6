# Whether a GEMM's measured rate depends on what runs around it: the same bf16 and fp8 (E4M3, torch._scaled_mm)
# products timed back to back for seconds (as scripts/torch_kernel_suite.py times them) and interleaved with a
# memory-bound kernel of about their length (as a training step runs them), each product's own kernel time read
# from torch.profiler, with the SM clock and power sampled beside (nvidia-smi). For issue #46: which GEMM figure a
# training step sees. Run there with its python3:
#   python3 scripts/torch_gemm_clock_probe.py OUT.json
import json
import subprocess
import sys
import time

import torch

from torch_timing import kernels_ms

dev = "cuda"
out_path = sys.argv[1] if len(sys.argv) > 1 else "torch_gemm_clock.json"
res = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0), "rows": [],
       "clocks": []}
e4m3 = torch.float8_e4m3fn
one = torch.tensor(1.0, device=dev)
# (name, m, n, k): a square and a 4096-hidden block's fc1 and fc2 at 8192 tokens
SHAPES = [("square_8192", 8192, 8192, 8192), ("fc1_h4096", 8192, 16384, 4096), ("fc2_h4096", 8192, 4096, 16384)]


def clocks(tag):
    q = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu",
                        "--format=csv,noheader,nounits"], capture_output=True, text=True).stdout.strip()
    res["clocks"].append([tag, q])


for name, m, n, k in SHAPES:
    for dtype in ("bf16", "fp8"):
        if dtype == "bf16":
            a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            b = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
            gemm = lambda: a @ b.t()
        else:
            a = torch.randn(m, k, device=dev).to(e4m3)
            b = torch.randn(n, k, device=dev).to(e4m3)
            gemm = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        flops = 2 * m * n * k
        # a memory-bound kernel of about the product's length: an elementwise add over `size` bytes (an
        # elementwise kernel, which the profile leaves out; a plain copy_ would run as a memcpy and be counted)
        for _ in range(3):
            gemm()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(10):
            gemm()
        torch.cuda.synchronize()
        t_gemm = (time.perf_counter() - t0) / 10
        size = int(t_gemm * 3.5e12 / 2) // 4 * 4
        x = torch.empty(size // 4, device=dev, dtype=torch.float32)
        y = torch.empty_like(x)
        torch.cuda.synchronize()
        time.sleep(1.0)  # idle: let the clocks recover
        clocks(f"{name} {dtype} idle")
        for mode in ("interleaved", "back_to_back"):
            if mode == "interleaved":
                def fn():
                    gemm()
                    torch.add(x, 1.0, out=y)
                calls = 60
            else:
                fn = gemm
                # seconds of back-to-back products first, as a long suite runs them
                t_end = time.perf_counter() + 3.0
                while time.perf_counter() < t_end:
                    for _ in range(20):
                        gemm()
                    torch.cuda.synchronize()
                calls = 60
            clocks(f"{name} {dtype} {mode} before")
            ms, count = kernels_ms(fn, calls)
            clocks(f"{name} {dtype} {mode} after")
            res["rows"].append({"shape": name, "m": m, "n": n, "k": k, "dtype": dtype, "mode": mode,
                                "kernel_ms": ms, "kernels": count, "tflops": flops / (ms / 1e3) / 1e12})
            print(name, dtype, mode, f"{ms:.3f} ms", f"{flops / (ms / 1e3) / 1e12:.0f} TFLOP/s", res["clocks"][-1],
                  flush=True)
        del a, b, x, y
        torch.cuda.empty_cache()
        with open(out_path, "w") as f:
            json.dump(res, f, indent=1)
