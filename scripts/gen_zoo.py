#!/usr/bin/env python3
"""Generates the model zoo, models/zoo/data/models/*.yaml, from the architectures' layer shapes.

Python 3 standard library only. Run from anywhere:  scripts/gen_zoo.py
It checks every parameter total against the published count and refuses to write otherwise.

Counting rules: python/dtsim_layers.py (shared with dtsim.from_torch, which traces a PyTorch module by the same
rules), for the CNNs; the transformers' below.
Transformers (a sample is one sequence of seq_len tokens), the convention of make_transformer():
  forward      2 FLOPs per parameter per token for every matrix, bias and layer norm, plus the attention core
               2*s*d per token per layer for causal decoders (Kaplan et al. 2020: the mask halves QK^T and AV)
               and 4*s*d for bidirectional encoders, plus the vocabulary projection 2*d*V per token; the
               embedding lookup counts 0; BERT's pooler runs once per sequence.
  backward     2 x forward for every row.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "models", "zoo", "data", "models")
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from dtsim_layers import CNN_RULES, Net, cnn_model_text  # noqa: E402


def concat(*shapes):
    return (sum(s[0] for s in shapes), shapes[0][1], shapes[0][2])


def resnet(blocks):
    """torchvision resnet50/101 (v1.5: the stride sits in the 3x3 conv) at 3x224x224."""
    net = Net()
    x = net.conv("conv1", (3, 224, 224), 64, 7, 2, 3)
    x = net.pool("maxpool", x, 3, 2, 1)
    width = 64
    for stage, count in enumerate(blocks, start=1):
        for b in range(count):
            prefix = f"layer{stage}.{b}"
            stride = 2 if b == 0 and stage > 1 else 1
            y = net.conv(f"{prefix}.conv1", x, width, 1)
            y = net.conv(f"{prefix}.conv2", y, width, 3, stride, 1)
            if b == 0:  # the projection shortcut runs beside conv1..conv3
                net.conv(f"{prefix}.downsample", x, width * 4, 1, stride, relu=False)
            y = net.conv(f"{prefix}.conv3", y, width * 4, 1, relu=False)
            net.add(f"{prefix}.add", y, x)
            net.relu(f"{prefix}.relu", y)
            x = y
        width *= 2
    x = net.global_pool("avgpool", x)
    net.linear("fc", x, 1000)
    return net.rows


def vgg16():
    """torchvision vgg16 (no batch norm) at 3x224x224; its adaptive 7x7 average pool is the identity there."""
    net = Net()
    x = (3, 224, 224)
    i = 0
    for stage, (width, convs) in enumerate([(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)], start=1):
        for _ in range(convs):
            i += 1
            x = net.conv(f"conv{stage}_{i}", x, width, 3, 1, 1, bias=True, bn=False)
        i = 0
        x = net.pool(f"pool{stage}", x, 2, 2)
    x = net.linear("fc6", x, 4096, relu=True)
    x = net.linear("fc7", x, 4096, relu=True)
    net.linear("fc8", x, 1000)
    return net.rows


def alexnet():
    """torchvision alexnet (the one-tower 'One weird trick' variant, 64-192-384-256-256) at 3x224x224."""
    net = Net()
    x = net.conv("conv1", (3, 224, 224), 64, 11, 4, 2, bias=True, bn=False)
    x = net.pool("pool1", x, 3, 2)
    x = net.conv("conv2", x, 192, 5, 1, 2, bias=True, bn=False)
    x = net.pool("pool2", x, 3, 2)
    x = net.conv("conv3", x, 384, 3, 1, 1, bias=True, bn=False)
    x = net.conv("conv4", x, 256, 3, 1, 1, bias=True, bn=False)
    x = net.conv("conv5", x, 256, 3, 1, 1, bias=True, bn=False)
    x = net.pool("pool5", x, 3, 2)  # 256x6x6; the adaptive 6x6 average pool is the identity here
    x = net.linear("fc6", x, 4096, relu=True)
    x = net.linear("fc7", x, 4096, relu=True)
    net.linear("fc8", x, 1000)
    return net.rows


def inception_v3():
    """torchvision inception_v3 at 3x299x299, AuxLogits included (it runs in training and its 3,326,696 parameters
    are in the published 27,161,264); rows follow the module names, branches in the order torchvision runs them."""
    net = Net()

    def block_a(m, x, pool_features):
        b1 = net.conv(f"{m}.branch1x1", x, 64, 1)
        b5 = net.conv(f"{m}.branch5x5_1", x, 48, 1)
        b5 = net.conv(f"{m}.branch5x5_2", b5, 64, 5, p=2)
        b3 = net.conv(f"{m}.branch3x3dbl_1", x, 64, 1)
        b3 = net.conv(f"{m}.branch3x3dbl_2", b3, 96, 3, p=1)
        b3 = net.conv(f"{m}.branch3x3dbl_3", b3, 96, 3, p=1)
        bp = net.pool(f"{m}.branch_pool_avg", x, 3, 1, 1)
        bp = net.conv(f"{m}.branch_pool", bp, pool_features, 1)
        return concat(b1, b5, b3, bp)

    def block_b(m, x):
        b3 = net.conv(f"{m}.branch3x3", x, 384, 3, 2)
        bd = net.conv(f"{m}.branch3x3dbl_1", x, 64, 1)
        bd = net.conv(f"{m}.branch3x3dbl_2", bd, 96, 3, p=1)
        bd = net.conv(f"{m}.branch3x3dbl_3", bd, 96, 3, 2)
        bp = net.pool(f"{m}.branch_pool_max", x, 3, 2)
        return concat(b3, bd, bp)

    def block_c(m, x, c7):
        b1 = net.conv(f"{m}.branch1x1", x, 192, 1)
        b7 = net.conv(f"{m}.branch7x7_1", x, c7, 1)
        b7 = net.conv(f"{m}.branch7x7_2", b7, c7, (1, 7), p=(0, 3))
        b7 = net.conv(f"{m}.branch7x7_3", b7, 192, (7, 1), p=(3, 0))
        bd = net.conv(f"{m}.branch7x7dbl_1", x, c7, 1)
        bd = net.conv(f"{m}.branch7x7dbl_2", bd, c7, (7, 1), p=(3, 0))
        bd = net.conv(f"{m}.branch7x7dbl_3", bd, c7, (1, 7), p=(0, 3))
        bd = net.conv(f"{m}.branch7x7dbl_4", bd, c7, (7, 1), p=(3, 0))
        bd = net.conv(f"{m}.branch7x7dbl_5", bd, 192, (1, 7), p=(0, 3))
        bp = net.pool(f"{m}.branch_pool_avg", x, 3, 1, 1)
        bp = net.conv(f"{m}.branch_pool", bp, 192, 1)
        return concat(b1, b7, bd, bp)

    def block_d(m, x):
        b3 = net.conv(f"{m}.branch3x3_1", x, 192, 1)
        b3 = net.conv(f"{m}.branch3x3_2", b3, 320, 3, 2)
        b7 = net.conv(f"{m}.branch7x7x3_1", x, 192, 1)
        b7 = net.conv(f"{m}.branch7x7x3_2", b7, 192, (1, 7), p=(0, 3))
        b7 = net.conv(f"{m}.branch7x7x3_3", b7, 192, (7, 1), p=(3, 0))
        b7 = net.conv(f"{m}.branch7x7x3_4", b7, 192, 3, 2)
        bp = net.pool(f"{m}.branch_pool_max", x, 3, 2)
        return concat(b3, b7, bp)

    def block_e(m, x):
        b1 = net.conv(f"{m}.branch1x1", x, 320, 1)
        b3 = net.conv(f"{m}.branch3x3_1", x, 384, 1)
        b3a = net.conv(f"{m}.branch3x3_2a", b3, 384, (1, 3), p=(0, 1))
        b3b = net.conv(f"{m}.branch3x3_2b", b3, 384, (3, 1), p=(1, 0))
        bd = net.conv(f"{m}.branch3x3dbl_1", x, 448, 1)
        bd = net.conv(f"{m}.branch3x3dbl_2", bd, 384, 3, p=1)
        bda = net.conv(f"{m}.branch3x3dbl_3a", bd, 384, (1, 3), p=(0, 1))
        bdb = net.conv(f"{m}.branch3x3dbl_3b", bd, 384, (3, 1), p=(1, 0))
        bp = net.pool(f"{m}.branch_pool_avg", x, 3, 1, 1)
        bp = net.conv(f"{m}.branch_pool", bp, 192, 1)
        return concat(b1, b3a, b3b, bda, bdb, bp)

    def aux(m, x):
        y = net.pool(f"{m}.avgpool", x, 5, 3)
        y = net.conv(f"{m}.conv0", y, 128, 1)
        y = net.conv(f"{m}.conv1", y, 768, 5)
        y = net.global_pool(f"{m}.adaptive_avgpool", y)
        net.linear(f"{m}.fc", y, 1000)

    x = net.conv("Conv2d_1a_3x3", (3, 299, 299), 32, 3, 2)
    x = net.conv("Conv2d_2a_3x3", x, 32, 3)
    x = net.conv("Conv2d_2b_3x3", x, 64, 3, p=1)
    x = net.pool("maxpool1", x, 3, 2)
    x = net.conv("Conv2d_3b_1x1", x, 80, 1)
    x = net.conv("Conv2d_4a_3x3", x, 192, 3)
    x = net.pool("maxpool2", x, 3, 2)
    x = block_a("Mixed_5b", x, 32)
    x = block_a("Mixed_5c", x, 64)
    x = block_a("Mixed_5d", x, 64)
    x = block_b("Mixed_6a", x)
    for m, c7 in [("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160), ("Mixed_6e", 192)]:
        x = block_c(m, x, c7)
    aux("AuxLogits", x)
    x = block_d("Mixed_7a", x)
    x = block_e("Mixed_7b", x)
    x = block_e("Mixed_7c", x)
    x = net.global_pool("avgpool", x)
    net.linear("fc", x, 1000)
    return net.rows


def transformer(layers, d, seq, vocab, encoder, positions=None, ffn=None, tied=True):
    """The rows of make_transformer() in models/zoo/transformer.cpp; keep the two in step (a test compares them)."""
    positions = positions or seq
    ffn = ffn or 4 * d
    rows = []

    def add(name, params, fwd, activations):
        rows.append((name, params, fwd, 2 * fwd, activations))

    embed = (vocab + positions) * d + (2 * d + 2 * d if encoder else 0)  # BERT: token types (2) and a layer norm
    add("embed", embed, 0, seq * d)
    core = (4 if encoder else 2) * seq * seq * d
    for i in range(layers):
        attn = 2 * d + 4 * d * d + 4 * d  # layer norm, Q/K/V/output projections with biases
        mlp = 2 * d + 2 * d * ffn + ffn + d  # layer norm, two linear layers with biases
        add(f"attn_{i}", attn, 2 * attn * seq + core, seq * d)
        add(f"mlp_{i}", mlp, 2 * mlp * seq, seq * d)
    if encoder:
        add("pooler", d * d + d, 2 * (d * d + d), d)  # once per sequence, on the first token
    else:
        add("ln_f", 2 * d, 2 * 2 * d * seq, seq * d)
    add("lm_head", 0 if tied else d * vocab, 2 * d * vocab * seq, seq * vocab)
    return rows


TRANSFORMER_RULES = ("fwd = 2 FLOPs per parameter per token (matrices, biases, layer norms) + attention core "
                     "{core}*s*d per token per layer ({why}) + vocabulary projection 2*d*V per token; "
                     "embedding lookup 0; bwd = 2 x fwd")
CAUSAL = TRANSFORMER_RULES.format(core=2, why="Kaplan et al. 2020, causal")

MODELS = [
    # name, rows, published params (None: no exact published count), input, source
    ("resnet50", lambda: resnet([3, 4, 6, 3]), 25557032, "3x224x224",
     "torchvision resnet50 (He et al. 2016, v1.5) at 3x224x224, 25,557,032 params; " + CNN_RULES),
    ("resnet101", lambda: resnet([3, 4, 23, 3]), 44549160, "3x224x224",
     "torchvision resnet101 (He et al. 2016, v1.5) at 3x224x224, 44,549,160 params; " + CNN_RULES),
    ("vgg16", vgg16, 138357544, "3x224x224",
     "torchvision vgg16 (Simonyan and Zisserman 2015, no BN) at 3x224x224, 138,357,544 params; " + CNN_RULES),
    ("alexnet", alexnet, 61100840, "3x224x224",
     "torchvision alexnet (Krizhevsky 2014 one-tower variant) at 3x224x224, 61,100,840 params; " + CNN_RULES),
    ("inception_v3", inception_v3, 27161264, "3x299x299",
     "torchvision inception_v3 (Szegedy et al. 2016) at 3x299x299 with AuxLogits (run in training; 3,326,696 of "
     "the 27,161,264 params); " + CNN_RULES),
    ("gpt2_xl", lambda: transformer(48, 1600, 1024, 50257, encoder=False), 1557611200, "1024 tokens",
     "GPT-2 XL (Radford et al. 2019): 48 layers, d 1600, 25 heads, vocab 50257, context 1024, tied embeddings; "
     "1,557,611,200 params as HF gpt2-xl; " + CAUSAL),
    ("gpt3_175b", lambda: transformer(96, 12288, 2048, 50257, encoder=False), None, "2048 tokens",
     "GPT-3 175B (Brown et al. 2020): 96 layers, d 12288, 96 heads, vocab 50257, context 2048, GPT-2 layout with "
     "tied embeddings (dense attention assumed); about 174.6B params; " + CAUSAL),
]


def to_yaml(name, source, inp, rows):
    if isinstance(rows[0], dict):
        return cnn_model_text(name, source, inp, rows)
    lines = [
        "# Generated by scripts/gen_zoo.py; do not edit by hand.",
        f"name: {name}",
        f"source: \"{source}\"",
        "counts: flops",
        f"input: {inp}",
        "columns: [name, params, fwd_flops, bwd_flops, activations]",
        "layers:",
    ]
    lines += [f"  - [{r[0]}, {r[1]}, {r[2]}, {r[3]}, {r[4]}]" for r in rows]
    return "\n".join(lines) + "\n"

def column(row, i):
    """A row's i-th value of (name, params, fwd, bwd, activations), for either kind of row."""
    return row[["name", "params", "fwd", "bwd", "act"][i]] if isinstance(row, dict) else row[i]


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    print(f"{'model':<14}{'rows':>6}{'params':>18}{'fwd GFLOPs':>14}{'bwd GFLOPs':>14}")
    for name, build, published, inp, source in MODELS:
        rows = build()
        params = sum(column(r, 1) for r in rows)
        if published is not None and params != published:
            sys.exit(f"gen_zoo: {name} has {params:,} params, published {published:,}")
        if len({column(r, 0) for r in rows}) != len(rows):
            sys.exit(f"gen_zoo: {name} has duplicate layer names")
        with open(os.path.join(OUT_DIR, f"{name}.yaml"), "w", encoding="utf-8") as f:
            f.write(to_yaml(name, source, inp, rows))
        fwd = sum(column(r, 2) for r in rows)
        bwd = sum(column(r, 3) for r in rows)
        print(f"{name:<14}{len(rows):>6}{params:>18,}{fwd / 1e9:>14.2f}{bwd / 1e9:>14.2f}")


if __name__ == "__main__":
    main()
