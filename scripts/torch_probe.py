# PyTorch reference timings on a GPU machine (synthetic data): GEMMs per dtype and size, a streaming
# copy, ResNet-50 and BERT-Large training steps. Run there with its python3, which holds PyTorch:
#   python3 scripts/torch_probe.py OUT.json
# docs/VALIDATION.md compares them with dtsim's predictions from the device zoo.
import json, sys, time
import torch
from torch import nn

dev = "cuda"
res = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(), "device": torch.cuda.get_device_name(0)}
torch.backends.cudnn.benchmark = True


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


def out(k, v):
    res[k] = v
    print(k, v, flush=True)


for name, dt in [("fp32", torch.float32), ("tf32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16)]:
    torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
    for n in [512, 1024, 2048, 4096, 8192]:
        a = torch.randn(n, n, device=dev, dtype=dt)
        b = torch.randn(n, n, device=dev, dtype=dt)
        t = bench(lambda: a @ b, iters=10 if n >= 8192 else 40)
        out(f"gemm_tflops_{name}_{n}", 2 * n**3 / t / 1e12)
torch.backends.cuda.matmul.allow_tf32 = False

# memory: a streaming copy of 2 GiB (bytes read + written per second)
x = torch.empty(2**29, device=dev, dtype=torch.float32)
y = torch.empty_like(x)
t = bench(lambda: y.copy_(x), iters=20)
out("copy_GBps", 2 * x.numel() * 4 / t / 1e9)
del x, y


def train(model, x, y, amp, iters=12, dtype=torch.float16):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lossf = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler(enabled=amp and dtype == torch.float16)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=dtype, enabled=amp):
            o = model(x)
            loss = lossf(o, y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    return bench(step, iters=iters, warm=4)


try:
    import torchvision
    for label, amp, tf32, batch in [("amp", True, False, 256), ("tf32", False, True, 256), ("fp32", False, False, 128)]:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
        m = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
        xb = torch.randn(batch, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
        yb = torch.randint(0, 1000, (batch,), device=dev)
        t = train(m, xb, yb, amp)
        out(f"resnet50_{label}_b{batch}_img_per_s", batch / t)
        del m, xb, yb
        torch.cuda.empty_cache()
except Exception as e:
    out("resnet50_error", repr(e))

try:
    from transformers import BertConfig, BertForSequenceClassification
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    cfg = BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                     num_labels=2)
    for seq, batch in [(128, 64), (512, 16)]:
        m = BertForSequenceClassification(cfg).to(dev)
        ids = torch.randint(0, cfg.vocab_size, (batch, seq), device=dev)
        yb = torch.randint(0, 2, (batch,), device=dev)

        class Wrap(nn.Module):
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, x):
                return self.m(input_ids=x).logits

        t = train(Wrap(m), ids, yb, True, iters=10)
        out(f"bert_large_amp_s{seq}_b{batch}_seq_per_s", batch / t)
        del m
        torch.cuda.empty_cache()
except Exception as e:
    out("bert_error", repr(e))

json.dump(res, open(sys.argv[1], "w"), indent=1)
