# The GPU timing the PyTorch probes share (scripts/torch_probe.py, torch_memory_probe.py, torch_gpt_probe.py,
# torch_profile_probe.py, torch_mpt_probe.py, torch_kernel_suite.py, torch_llama_probe.py, torch_gemm_clock_probe.py,
# torch_gemm_duty_probe.py): seconds per call of `fn` by CUDA events
# (a fixed count, or as many as fill a time), a training step's times, where a step's GPU time goes by kernel
# class (torch.profiler), a step's Kineto trace, a language model's training step (lm_step), and the device time of
# a call's kernels but the adds and copies around them (kernels_ms).
import gzip
import os
import re
import shutil
import tempfile
import time

import torch


class HfLogits(torch.nn.Module):
    """A Hugging Face classifier as a module of input ids to logits (what the probes' training steps call)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(input_ids=x).logits


def bench(fn, iters=20, warm=5):
    """Seconds per call of fn, by CUDA events around `iters` calls after `warm` untimed ones."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(iters):
        fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) / iters / 1e3


def step_times(step, iters, warm):
    """Seconds of each of `iters` calls of step (a training step), by CUDA events, after `warm` untimed ones; sorted."""
    for _ in range(warm):
        step()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(iters):
        s.record()
        step()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    return sorted(times)


def bench_for(fn, target_s=0.025):
    """Seconds per call of fn: 3 warm-ups, then as many calls as fill about target_s (5 to 500), by bench()."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    one = max(time.perf_counter() - t0, 1e-6)
    return bench(fn, iters=int(min(500, max(5, target_s / one))), warm=0)


# Kernel classes, matched in order against the kernel's name.
CLASSES = [("attention", r"flash|fmha|attention|cudnn::fusion"),
           ("norm", r"layer_norm|layernorm|batch_norm|batchnorm|bn_|welford"),
           ("conv", r"conv|implicit_gemm|xmma_fprop|dgrad|wgrad|cudnn"),
           ("gemm", r"gemm|sm90_xmma|cutlass|nvjet|ampere_|matmul"), ("gelu", r"gelu"),
           ("optimizer", r"adam|sgd|multi_tensor|foreach"),
           ("softmax_loss", r"softmax|cross_entropy|nll_loss|log_softmax"),
           ("embedding", r"embedding|index_put|scatter|index"), ("reduce", r"reduce|sum_kernel"),
           ("copy_cast", r"copy|cast|to_copy|direct_copy"), ("elementwise", r"elementwise|vectorized|unrolled")]


def profile_classes(step, steps=2, warm=2):
    """GPU kernels of `steps` calls of step() by class, per step: milliseconds, kernel counts, the 25 longest
    kernels, and the step's wall time beside the kernels' sum (the rest: no kernel running, the host issuing)."""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(warm):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", None)
        if t is None:
            t = getattr(e, "self_cuda_time_total", 0)
        if t > 0:
            ms, n = kernels.get(e.key, (0, 0))
            kernels[e.key] = (ms + t / 1e3 / steps, n + e.count // steps)
    classes = {}
    for name, (ms, count) in kernels.items():
        cls = next((c for c, pat in CLASSES if re.search(pat, name, re.I)), "other")
        ms0, n0 = classes.get(cls, (0, 0))
        classes[cls] = (ms0 + ms, n0 + count)
    top = sorted(kernels.items(), key=lambda kv: -kv[1][0])[:25]
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) / steps * 1e3
    return {"ms_per_step_by_class": {c: round(v[0], 3) for c, v in sorted(classes.items(), key=lambda kv: -kv[1][0])},
            "kernels_per_step_by_class": {c: v[1] for c, v in classes.items()},
            "gpu_ms_per_step": round(sum(v[0] for v in kernels.values()), 3),
            "kernels_per_step": sum(v[1] for v in kernels.values()),
            "wall_ms_per_step_unprofiled": round(wall, 3),
            "top_kernels_ms_per_step": [[k[:120], round(v[0], 3), v[1]] for k, v in top]}


def export_step_trace(step, path):
    """A Kineto trace of one call of step() (after two untimed ones), with shapes and scalar arguments (what
    `dtsim calibrate --from-trace` reads), gzipped to path."""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(2):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        step()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, "trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as f, gzip.open(path, "wb", compresslevel=9) as g:
            shutil.copyfileobj(f, g)


def lm_step(model, opt, tokens, vocab):
    """One training step of a causal language model: each micro-batch of tokens (micro-batches x batch x sequence + 1)
    under bf16 autocast, the loss on fp32 logits, its gradients accumulated, then the optimizer's step."""
    import torch.nn.functional as F

    def step():
        for m in range(tokens.shape[0]):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(tokens[m, :, :-1])
                loss = F.cross_entropy(logits.float().view(-1, vocab), tokens[m, :, 1:].reshape(-1))
            (loss / tokens.shape[0]).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


def kernels_ms(fn, calls, leave_out=("copy", "elementwise")):
    """Mean device time per call of fn's kernels whose names hold none of `leave_out` (the adds and copies a probe
    runs around its kernel), over `calls` calls (torch.profiler), and those kernels' names."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    total, names = 0.0, []
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", None)
        t = t if t is not None else e.self_cuda_time_total
        if t > 0 and not any(word in e.key for word in leave_out):
            total += t / 1e3
            names.append(e.key[:80])
    return total / calls, names
