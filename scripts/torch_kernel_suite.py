# PyTorch's compute-bound kernels on a GPU machine, alone, by shape: the transformer's GEMMs (each linear
# layer's forward, data-gradient and weight-gradient products, whole and split as tensor parallelism
# splits them) in bf16, the forward GEMMs on fp8 operands (torch._scaled_mm, E4M3 with per-tensor
# scales, as Transformer Engine's delayed scaling runs them), and scaled-dot-product attention by
# backend (FlashAttention-2 as PyTorch vendors it, cuDNN's fused attention), head dimension, causal
# mask and sequence length, forward and backward, on FlashAttention's own benchmark protocol (16k
# tokens, hidden 2048); and ResNet-50's convolutions by kind and pass at training batches (conv_suite). For
# issue #46's tile-and-wave model per kernel class: a measurement of a GPU that the fit can be shown on. Run there with its python3, which holds PyTorch:
#   python3 scripts/torch_kernel_suite.py OUT.json [SUITE ...]
# SUITE: attention, gemm_bf16, gemm_fp8, conv (default: all four, in that order).
# Each row holds the shape, the FLOPs counted as its source counts them (a GEMM 2MNK; attention
# FlashAttention's benchmark_flash_attention.py: 4 B S^2 H D, halved when causal, backward 2.5 x
# forward) and the seconds per call (CUDA events, warm-ups first, enough calls for 25 ms).
import json
import sys
import time

import torch
import torch.nn.functional as F

from torch_timing import bench_for as timed

dev = "cuda"
out_path = sys.argv[1] if len(sys.argv) > 1 else "torch_kernels.json"
chosen = sys.argv[2:]
res = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
       "device": torch.cuda.get_device_name(0),
       "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
       "gemm_bf16": [], "gemm_fp8": [], "attention": [], "conv": [], "errors": []}


def save():
    with open(out_path, "w") as f:
        json.dump(res, f, indent=1)


# The four linear layers of a transformer block of hidden h (4h MLP) and their tensor-parallel splits:
# column-parallel layers (qkv, fc1) split their output, row-parallel ones (proj, fc2) their input.
def linear_layers(h, tp):
    return {"qkv": (h, 3 * h // tp), "proj": (h // tp, h), "fc1": (h, 4 * h // tp), "fc2": (4 * h // tp, h)}


def gemm_suite():
    for h in (1024, 2048, 2560, 4096, 5120, 8192):
        for tokens in (2048, 8192, 32768):
            for tp in (1, 4, 8):
                for layer, (k_in, n_out) in linear_layers(h, tp).items():
                    x = torch.randn(tokens, k_in, device=dev, dtype=torch.bfloat16)
                    w = torch.randn(n_out, k_in, device=dev, dtype=torch.bfloat16)
                    dy = torch.randn(tokens, n_out, device=dev, dtype=torch.bfloat16)
                    # forward y = x W^T; dgrad dx = dy W; wgrad dW = dy^T x
                    passes = {"fwd": (lambda: x @ w.t(), (tokens, n_out, k_in)),
                              "dgrad": (lambda: dy @ w, (tokens, k_in, n_out)),
                              "wgrad": (lambda: dy.t() @ x, (n_out, k_in, tokens))}
                    for p, (fn, (m, n, k)) in passes.items():
                        t = timed(fn)
                        res["gemm_bf16"].append({"hidden": h, "tokens": tokens, "tp": tp, "layer": layer, "pass": p,
                                                 "m": m, "n": n, "k": k, "flops": 2 * m * n * k, "seconds": t,
                                                 "tflops": 2 * m * n * k / t / 1e12})
                    del x, w, dy
            print(f"gemm bf16 h={h}: {len(res['gemm_bf16'])} rows", flush=True)
        save()
    for n in (1024, 2048, 4096, 8192, 16384):
        a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        t = timed(lambda: a @ b)
        res["gemm_bf16"].append({"layer": "square", "pass": "fwd", "m": n, "n": n, "k": n, "flops": 2 * n**3,
                                 "seconds": t, "tflops": 2 * n**3 / t / 1e12})
    save()


def fp8_suite():
    e4m3 = torch.float8_e4m3fn
    one = torch.tensor(1.0, device=dev)
    for h in (1024, 2048, 4096, 8192):
        for tokens in (2048, 8192, 32768):
            for layer, (k_in, n_out) in linear_layers(h, 1).items():
                x = torch.randn(tokens, k_in, device=dev).to(e4m3)
                w = torch.randn(n_out, k_in, device=dev).to(e4m3)  # row-major (n, k): w.t() is column-major
                fn = lambda: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
                t = timed(fn)
                m, n, k = tokens, n_out, k_in
                res["gemm_fp8"].append({"hidden": h, "tokens": tokens, "layer": layer, "pass": "fwd", "m": m, "n": n,
                                        "k": k, "flops": 2 * m * n * k, "seconds": t,
                                        "tflops": 2 * m * n * k / t / 1e12})
                del x, w
        print(f"gemm fp8 h={h}: {len(res['gemm_fp8'])} rows", flush=True)
    for n in (4096, 8192, 16384):
        x = torch.randn(n, n, device=dev).to(e4m3)
        w = torch.randn(n, n, device=dev).to(e4m3)
        t = timed(lambda: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
        res["gemm_fp8"].append({"layer": "square", "pass": "fwd", "m": n, "n": n, "k": n, "flops": 2 * n**3,
                                "seconds": t, "tflops": 2 * n**3 / t / 1e12})
    save()


def attention_suite():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"flash2": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    for bname, backend in backends.items():
        for hd in (64, 128):
            heads = 2048 // hd
            for seq in (512, 1024, 2048, 4096, 8192, 16384, 32768):
                batch = max(1, 16384 // seq)
                for causal in (False, True):
                    try:
                        q, k, v = (torch.randn(batch, heads, seq, hd, device=dev, dtype=torch.bfloat16,
                                               requires_grad=True) for _ in range(3))
                        with sdpa_kernel([backend]):
                            fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            t_f = timed(fwd)
                            o = fwd()
                            g = torch.randn_like(o)
                            bwd = lambda: torch.autograd.grad(o, (q, k, v), g, retain_graph=True)
                            t_b = timed(bwd)
                        f = 4 * batch * seq * seq * heads * hd // (2 if causal else 1)
                        for p, t, fl in (("fwd", t_f, f), ("bwd", t_b, 2.5 * f)):
                            res["attention"].append({"backend": bname, "head_dim": hd, "heads": heads, "batch": batch,
                                                     "seq": seq, "causal": causal, "pass": p, "flops": fl,
                                                     "seconds": t, "tflops": fl / t / 1e12})
                        del q, k, v, o, g
                    except Exception as ex:  # a backend that refuses a shape: say so and go on
                        res["errors"].append(f"attention {bname} hd{hd} s{seq} causal={causal}: {ex}"[:300])
                print(f"attention {bname} hd={hd} s={seq}: {len(res['attention'])} rows", flush=True)
            save()
    torch.cuda.empty_cache()


# ResNet-50's convolutions (torchvision v1.5 at 224 x 224; C in, K out, filter, stride, input side), every kind
# bench/kernels/conv.md names: the stem, pointwise, pointwise strided (the projection shortcuts), spatial (3 x 3,
# stride 1) and spatial strided (v1.5's 3 x 3 of stride 2). conv.md fits the ratio of each kind and pass to its implicit
# GEMM on DeepBench's batches of 8 and 16 and shows it rising with the batch: these rows time the same kinds at
# training batches, each pass alone (cuDNN's forward, data gradient and weight gradient through
# aten.convolution_backward with one output each), fp16 channels-last (tensor cores) and fp32 with TF32 off.
RESNET50_CONVS = [("stem", 3, 64, 7, 2, 224), ("pointwise", 64, 64, 1, 1, 56), ("spatial", 64, 64, 3, 1, 56),
                  ("pointwise", 64, 256, 1, 1, 56), ("pointwise_strided", 256, 512, 1, 2, 56),
                  ("spatial_strided", 128, 128, 3, 2, 56), ("pointwise", 512, 128, 1, 1, 28),
                  ("spatial", 128, 128, 3, 1, 28), ("pointwise_strided", 512, 1024, 1, 2, 28),
                  ("spatial_strided", 256, 256, 3, 2, 28), ("spatial", 256, 256, 3, 1, 14),
                  ("pointwise", 1024, 256, 1, 1, 14), ("pointwise_strided", 1024, 2048, 1, 2, 14),
                  ("spatial_strided", 512, 512, 3, 2, 14), ("spatial", 512, 512, 3, 1, 7),
                  ("pointwise", 2048, 512, 1, 1, 7)]


def conv_suite():
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    for math, dtype, layout in (("fp16", torch.float16, torch.channels_last),
                                ("fp32", torch.float32, torch.contiguous_format)):
        for batch in (64, 256):
            for kind, c, k, f, stride, side in RESNET50_CONVS:
                try:
                    pad = f // 2
                    x = torch.randn(batch, c, side, side, device=dev, dtype=dtype).to(memory_format=layout)
                    w = torch.randn(k, c, f, f, device=dev, dtype=dtype).to(memory_format=layout)
                    y = F.conv2d(x, w, stride=stride, padding=pad)
                    dy = torch.randn_like(y)
                    args = (dy, x, w, None, [stride, stride], [pad, pad], [1, 1], False, [0, 0], 1)
                    passes = {"fwd": lambda: F.conv2d(x, w, stride=stride, padding=pad),
                              "dgrad": lambda: torch.ops.aten.convolution_backward(*args, [True, False, False]),
                              "wgrad": lambda: torch.ops.aten.convolution_backward(*args, [False, True, False])}
                    out_side = y.shape[-1]
                    flops = 2 * batch * k * out_side * out_side * c * f * f
                    for p, fn in passes.items():
                        t = timed(fn)
                        res["conv"].append({"math": math, "kind": kind, "batch": batch, "c": c, "k": k, "filter": f,
                                            "stride": stride, "side": side, "out_side": out_side, "pass": p,
                                            "flops": flops, "seconds": t, "tflops": flops / t / 1e12})
                    del x, w, y, dy
                except Exception as ex:  # a shape that does not fit or run: say so and go on
                    res["errors"].append(f"conv {math} {kind} c{c} k{k} b{batch}: {ex}"[:300])
            print(f"conv {math} batch {batch}: {len(res['conv'])} rows", flush=True)
            save()
    torch.cuda.empty_cache()


for name, suite in (("attention", attention_suite), ("gemm_bf16", gemm_suite), ("gemm_fp8", fp8_suite),
                    ("conv", conv_suite)):
    if chosen and name not in chosen:
        continue
    t0 = time.perf_counter()
    try:
        suite()
    except Exception as ex:
        res["errors"].append(f"{name}: {ex}"[:500])
        print(f"{name} failed: {ex}", flush=True)
    res.setdefault("suite_seconds", {})[name] = round(time.perf_counter() - t0, 1)
    print(f"{name}: {res['suite_seconds'][name]} s", flush=True)
    save()
