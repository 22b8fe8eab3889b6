# Where PyTorch's training steps spend their time on a GPU machine (synthetic data), for issue #25's
# framework model: Hugging Face's BERT-Large classifier (AMP, sequence 128 batch 64 and sequence 512
# batch 16, as scripts/torch_probe.py times it) and torchvision's ResNet-50 (AMP, channels-last, batch 256),
# each step's kernels by class (torch_timing.profile_classes) beside its wall time; and the host's floor per
# eager op: tiny elementwise ops issued back to back with and without autograd (no GPU work to speak of, so
# the time per op is the framework's dispatch and the kernel launch).
# Run there with its python3, which holds PyTorch:
#   python3 scripts/torch_profile_probe.py OUT.json [--bert SEQxBATCH:ATTENTION:OPTIMIZER ...] [--no-resnet]
# ATTENTION is Hugging Face's attn_implementation (sdpa: its fused attention; eager: the separate matmul, scale,
# mask, softmax, dropout and matmul kernels NVIDIA's BERT of bench/published runs), OPTIMIZER sgd (momentum) or
# adam (fused). Default: 128x64:sdpa:sgd and 512x16:sdpa:sgd.
# docs/VALIDATION.md compares it with dtsim's kernel classes (nothing in the zoo is set from it).
import json
import sys
import time

import torch
from torch import nn

from torch_timing import HfLogits, bench, profile_classes

dev = "cuda"
torch.backends.cudnn.benchmark = True
res = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(), "device": torch.cuda.get_device_name(0)}


def out(k, v):
    res[k] = v
    print(k, json.dumps(v, indent=1) if isinstance(v, dict) else v, flush=True)


args = sys.argv[2:]
BERT = [a for i, a in enumerate(args) if i > 0 and args[i - 1] == "--bert"] or ["128x64:sdpa:sgd", "512x16:sdpa:sgd"]


def train_step(model, x, y, dtype, optimizer="sgd"):
    if optimizer == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=1e-4, fused=True)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler(enabled=dtype == torch.float16)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=dtype):
            loss = lossf(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    return step


# The host's floor per eager op: 2,000 adds on a 1,024-element tensor, timed on the host's clock to the last
# kernel's end; with autograd, each add also records its graph node and the backward runs them all.
x = torch.randn(1024, device=dev)
for label, grad in (("no_grad", False), ("autograd", True)):
    w = torch.randn(1024, device=dev, requires_grad=grad)
    for _ in range(2):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        y = w
        for _ in range(2000):
            y = y + x
        if grad:
            y.sum().backward()
        torch.cuda.synchronize()
        us = (time.perf_counter() - t0) / 2000 * 1e6
    out(f"host_us_per_eager_add_{label}", round(us, 3))
    w = None
t = bench(lambda: x.add_(1.0), iters=2000, warm=100)
out("gpu_us_per_tiny_kernel_back_to_back", round(t * 1e6, 3))

try:
    from transformers import BertConfig, BertForSequenceClassification
    torch.backends.cuda.matmul.allow_tf32 = False
    cfg = BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                     num_labels=2)
    for spec in BERT:
        shape, impl, optimizer = spec.split(":")
        seq, batch = (int(v) for v in shape.split("x"))
        torch.manual_seed(0)
        try:
            m = BertForSequenceClassification._from_config(cfg, attn_implementation=impl).to(dev)
        except TypeError:  # an older transformers
            cfg._attn_implementation = impl
            m = BertForSequenceClassification(cfg).to(dev)
        name = f"bert_large_amp_s{seq}_b{batch}_{impl}_{optimizer}"
        out(f"{name}_attn_implementation", str(getattr(m.config, "_attn_implementation", "unknown")))
        ids = torch.randint(0, cfg.vocab_size, (batch, seq), device=dev)
        yb = torch.randint(0, 2, (batch,), device=dev)
        step = train_step(HfLogits(m), ids, yb, torch.float16, optimizer)
        t = bench(step, iters=10, warm=4)
        out(f"{name}_step_ms", round(t * 1e3, 3))
        out(f"{name}_profile", profile_classes(step))
        del m, step
        torch.cuda.empty_cache()
except Exception as e:
    out("bert_error", repr(e))

try:
    if "--no-resnet" in args:
        raise ImportError("--no-resnet")
    import torchvision
    m = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
    xb = torch.randn(256, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
    yb = torch.randint(0, 1000, (256,), device=dev)
    step = train_step(m, xb, yb, torch.float16)
    t = bench(step, iters=10, warm=4)
    out("resnet50_amp_b256_step_ms", round(t * 1e3, 3))
    out("resnet50_amp_b256_profile", profile_classes(step))
except Exception as e:
    out("resnet50_error", repr(e))

with open(sys.argv[1] if len(sys.argv) > 1 else "torch_profile.json", "w") as f:
    json.dump(res, f, indent=2)
