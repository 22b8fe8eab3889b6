# The GPU timing the PyTorch probes share (scripts/torch_probe.py, torch_memory_probe.py): seconds per call of
# `fn`, by CUDA events around `iters` calls after `warm` untimed ones.
import torch


def bench(fn, iters=20, warm=5):
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
