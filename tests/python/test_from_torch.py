"""dtsim.from_torch against the zoo: torchvision's models traced come out as the zoo's tables of them (written from
the architectures' shapes by scripts/gen_zoo.py, by the same rules), column by column; the file runs as model.file;
what it cannot cost is refused naming the call."""
import pytest

import dtsim
from conftest import ROOT

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")  # Debian's python3-torchvision, which scripts/setup installs

COLUMNS = ["params", "fwd_flops", "bwd_flops", "activations", "gemm_m", "gemm_n", "gemm_k", "fwd_traffic",
           "bwd_traffic"]


def rows(text):
    """name -> (class, the numeric columns) of a CNN model file's rows."""
    out = {}
    for line in text.splitlines():
        if line.startswith("  - ["):
            cells = [c.strip() for c in line.strip()[3:-1].split(",")]
            out[cells[0]] = (cells[1], [int(c) for c in cells[2:]])
    return out


@pytest.mark.parametrize("name", ["resnet50", "resnet101", "vgg16", "alexnet"])
def test_torchvision_traced_is_the_zoo_table(name):
    traced = rows(dtsim.from_torch(getattr(torchvision.models, name)(), torch.zeros(2, 3, 224, 224), name=name))
    zoo = rows((ROOT / "models" / "zoo" / "data" / "models" / f"{name}.yaml").read_text())
    assert len(traced) == len(zoo)
    for i, column in enumerate(COLUMNS):  # every column's total, per sample (the example batch is 2)
        assert sum(r[1][i] for r in traced.values()) == sum(r[1][i] for r in zoo.values()), column
    classes = sorted(r[0] for r in traced.values())
    assert classes == sorted(r[0] for r in zoo.values())
    # The convolutions and linear layers row by row, where the zoo names them as torchvision does.
    for layer, (cls, values) in traced.items():
        if cls in ("conv", "gemm") and layer in zoo:
            assert values == zoo[layer][1], layer


def test_the_traced_file_runs_as_model_file(tmp_path):
    path = tmp_path / "resnet50.yaml"
    dtsim.from_torch(torchvision.models.resnet50(), torch.zeros(1, 3, 224, 224), path=path)
    # Without overlap the order of the rows does not matter: the backward's kernels, then the buckets' AllReduces.
    s = dtsim.load(ROOT / "scenarios" / "quickstart.yaml").set("strategy.allreduce.overlap", False)
    d = s.to_dict()
    del d["model"]["name"]
    d["model"]["file"] = str(path)
    traced = dtsim.run(dtsim.Scenario(d), engine="analytical")
    zoo = dtsim.run(s, engine="analytical")
    assert traced.metrics["model_flops_per_sample"] == zoo.metrics["model_flops_per_sample"]
    # The same kernels (the projection shortcut's rows sit after the block's third convolution, as torchvision's
    # forward runs it, where the zoo puts them before).
    assert traced.iteration_time.mean == pytest.approx(zoo.iteration_time.mean, rel=1e-9)


def test_what_it_cannot_cost_is_refused_naming_the_call():
    with pytest.raises(ValueError, match=r"from_torch: .*: a grouped, dilated"):
        depthwise = torch.nn.Sequential(torch.nn.Conv2d(8, 8, 3, groups=8))  # MobileNet's
        dtsim.from_torch(depthwise, torch.zeros(1, 8, 16, 16))
    seq = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU())
    with pytest.raises(ValueError, match="GELU is not a layer from_torch costs"):
        dtsim.from_torch(seq, torch.zeros(1, 8))
    with pytest.raises(ValueError, match="a Linear over a sequence"):
        dtsim.from_torch(torch.nn.Sequential(torch.nn.Linear(8, 8)), torch.zeros(1, 4, 8))
    with pytest.raises(TypeError, match="example_inputs"):
        dtsim.from_torch(torch.nn.Linear(8, 8), [[1.0] * 8])
