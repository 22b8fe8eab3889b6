"""dtsim.from_torch: a PyTorch module traced into a model file (docs/models.md), one row per kernel it runs in
training, counted by the rules the zoo's CNNs are written with (dtsim_layers.py).

torch.fx traces the module symbolically and propagates the example inputs' shapes through it (ShapeProp); each call
then becomes rows: a Conv2d its conv row, a Linear its gemm row, a BatchNorm2d its norm row, a ReLU, a pooling and a
residual add their elementwise rows. Reshapes, flattens, concatenations, dropout and identities run no kernel dtsim
costs and add none (as the zoo's tables). Anything else is refused, naming the call and what is costed, rather than
guessed: transformers are described by their shape (model.transformer, model.hf_config, dtsim import-megatron).
"""

import operator

from dtsim_layers import CNN_RULES, Net, cnn_model_text

_FREE_FUNCTIONS = ("flatten", "reshape", "view", "cat", "size", "getattr", "getitem", "contiguous", "dropout")


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _whole(v, what, where):
    a, b = _pair(v)
    if a != b:
        raise ValueError(f"from_torch: {where}: a {what} of {v} (the rows cost square {what}s)")
    return a


class _Tracer:
    def __init__(self, torch, module, example_inputs):
        import torch.fx
        from torch.fx.passes.shape_prop import ShapeProp
        self.nn = torch.nn
        self.graph = torch.fx.symbolic_trace(module)
        ShapeProp(self.graph).propagate(*example_inputs)
        self.modules = dict(self.graph.named_modules())
        self.net = Net()
        self.names = {}

    def name(self, base):
        n = self.names.get(base, 0)
        self.names[base] = n + 1
        return base if n == 0 else f"{base}.{n}"

    @staticmethod
    def shape(node):
        meta = node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            raise ValueError(f"from_torch: {node.name}: no tensor shape was propagated to it")
        return tuple(int(d) for d in meta.shape[1:])  # per sample: the batch is the first dimension

    @staticmethod
    def chw(shape, where):
        if len(shape) == 3:
            return shape
        if len(shape) == 1:
            return (shape[0], 1, 1)
        raise ValueError(f"from_torch: {where}: a tensor of {list(shape)} per sample; the rows are a CNN's (channels x "
                         "height x width, or features); describe a transformer with model.transformer")

    def fork(self, node):
        """The tensor the residual's branches fork from, and how many calls back it is: along the first inputs to
        the nearest tensor that more than one call reads."""
        steps = 0
        while len(node.users) < 2 and node.args and hasattr(node.args[0], "users"):
            node, steps = node.args[0], steps + 1
        return node, steps

    def residual(self, node):
        ins = [a for a in node.args if hasattr(a, "users")]
        if len(ins) != 2:
            raise ValueError(f"from_torch: {node.name}: an add of {len(ins)} tensors (a residual adds two)")
        fork = min((self.fork(a) for a in ins), key=lambda f: f[1])[0]
        out = self.chw(self.shape(node), node.name)
        self.net.add(self.name(node.name), out, self.chw(self.shape(fork), node.name))

    def call_module(self, node):
        m = self.modules[node.target]
        nn = self.nn
        raw = self.shape(node.args[0])
        if isinstance(m, nn.Linear) and len(raw) != 1:
            raise ValueError(f"from_torch: {node.target}: a Linear over a sequence; describe a transformer with "
                             "model.transformer, model.hf_config or dtsim import-megatron")
        x = self.chw(raw, node.target)
        out = self.shape(node)
        if isinstance(m, nn.Conv2d):
            if m.groups != 1 or _pair(m.dilation) != (1, 1) or isinstance(m.padding, str):
                raise ValueError(f"from_torch: {node.target}: a grouped, dilated or 'same'-padded Conv2d (the rows "
                                 "cost a dense convolution of numeric padding)")
            self.net.conv(self.name(node.target), x, m.out_channels, tuple(m.kernel_size), tuple(m.stride),
                          tuple(m.padding), bias=m.bias is not None, bn=False, relu=False)
        elif isinstance(m, nn.Linear):
            self.net.linear(self.name(node.target), x, m.out_features, bias=m.bias is not None)
        elif isinstance(m, nn.BatchNorm2d):
            self.net.norm(self.name(node.target), self.chw(out, node.target))
        elif isinstance(m, nn.ReLU):
            self.net.relu(self.name(node.target), self.chw(out, node.target), inplace=m.inplace)
        elif isinstance(m, (nn.MaxPool2d, nn.AvgPool2d)):
            where = node.target
            self.net.pool(self.name(node.target), x, _whole(m.kernel_size, "window", where),
                          _whole(m.stride, "stride", where), _whole(m.padding, "padding", where))
        elif isinstance(m, nn.AdaptiveAvgPool2d):
            y = self.chw(out, node.target)
            if y[1:] == (1, 1):
                self.net.global_pool(self.name(node.target), x)
            elif y != x:
                raise ValueError(f"from_torch: {node.target}: an adaptive pool from {list(x)} to {list(y)} (the rows "
                                 "cost a global pool, or none where it keeps the shape)")
        elif not isinstance(m, (nn.Dropout, nn.Flatten, nn.Identity)):
            raise ValueError(f"from_torch: {node.target}: {type(m).__name__} is not a layer from_torch costs (Conv2d, "
                             "Linear, BatchNorm2d, ReLU, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d; Dropout, Flatten "
                             "and Identity run none)")

    def call_function(self, node):
        target = node.target
        name = getattr(target, "__name__", str(target))
        if target in (operator.add, operator.iadd) or name in ("add", "add_", "iadd"):
            self.residual(node)
        elif name in ("relu", "relu_"):
            inplace = name == "relu_" or bool(node.kwargs.get("inplace", False))
            self.net.relu(self.name(node.name), self.chw(self.shape(node), node.name), inplace=inplace)
        elif name not in _FREE_FUNCTIONS:
            raise ValueError(f"from_torch: {node.name}: {name} is not a call from_torch costs (add, relu; "
                             f"{', '.join(_FREE_FUNCTIONS)} run none)")

    def rows(self):
        for node in self.graph.graph.nodes:
            if node.op == "call_module":
                self.call_module(node)
            elif node.op in ("call_function", "call_method"):
                self.call_function(node)
        if not self.net.rows:
            raise ValueError("from_torch: the module runs no layer from_torch costs")
        return self.net.rows


def from_torch(module, example_inputs, name=None):
    """The model file (its text) of `module` run on `example_inputs` (a tensor or a tuple of them; the first dimension
    is the batch, and the rows are per sample)."""
    import torch
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    if not example_inputs or not all(isinstance(t, torch.Tensor) for t in example_inputs):
        raise TypeError("from_torch: example_inputs: a tensor, or a tuple of tensors, with the batch first")
    module = module.train()  # the kernels training runs (batch statistics, the auxiliary heads)
    rows = _Tracer(torch, module, example_inputs).rows()
    title = name or type(module).__name__.lower()
    sample = "x".join(str(int(d)) for d in example_inputs[0].shape[1:])
    params = sum(p.numel() for p in module.parameters() if p.requires_grad)
    counted = sum(r["params"] for r in rows)
    if counted != params:
        raise ValueError(f"from_torch: the rows hold {counted:,} parameters and the module {params:,}: a layer with "
                         "parameters is not among the rows")
    source = (f"traced by dtsim.from_torch from {type(module).__name__} at {sample}, {params:,} params; {CNN_RULES}")
    return cnn_model_text(title, source, sample, rows, header="# Written by dtsim.from_torch (python/dtsim_torch.py).")
