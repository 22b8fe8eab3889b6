# dtsim.models(), devices(), keys() and kernels(): the tables `dtsim models list`, `dtsim devices`, `dtsim keys` and
# `dtsim kernels` print.
import subprocess

import pytest

import dtsim
from conftest import DTSIM, ROOT


def cli(*args):
    return subprocess.run([DTSIM, *args], check=True, capture_output=True, text=True).stdout.splitlines()


def test_models_are_the_cli_list():
    names = [m["name"] for m in dtsim.models()]
    assert names == [line.split()[0] for line in cli("models", "list")[1:-1]]
    resnet = next(m for m in dtsim.models() if m["name"] == "resnet50")
    assert 25e6 < resnet["parameters"] < 26e6 and resnet["input"] == "3x224x224"


def test_devices_are_the_cli_list():
    names = [d["name"] for d in dtsim.devices()]
    assert names == [line.split()[0] for line in cli("devices")[1:-1]]
    a100 = next(d for d in dtsim.devices() if d["name"] == "a100_40gb")
    assert a100["peak_fp16_flops"] == 312e12 and a100["memory_bytes"] > 39e9


def test_keys_are_the_cli_list():
    keys = dtsim.keys()
    assert [k["path"] for k in keys] == [line.split()[0] for line in cli("keys")]
    nodes = next(k for k in keys if k["path"] == "cluster.nodes")
    assert nodes["doc"] and nodes["type"]


def test_kernels_are_the_cli_table():
    k = dtsim.kernels(ROOT / "scenarios/hybrid_gpt_1gpu.yaml")
    assert (k["device"], k["rank"], k["stage"]) == ("h200", 0, 0)
    # One GPU, nothing to communicate: the rows' costs fill the step, as `dtsim kernels` says.
    assert sum(r["total_seconds"] for r in k["rows"]) == pytest.approx(k["step_seconds"], rel=1e-6)
    lines = cli("kernels", str(ROOT / "scenarios/hybrid_gpt_1gpu.yaml"))[2:]
    names = [line.split("  ")[0] for line in lines[:lines.index("")]]
    assert [r["name"] for r in k["rows"]] == names
    qkv = next(r for r in k["rows"] if r["name"] == "fwd L* qkv")
    assert qkv["shape"] == (4096, 6144, 2048, 1) and qkv["calls"] == 96 and qkv["bound"] == "compute"
    assert qkv["waves"] == pytest.approx(16 * 48 / 132)  # tiles of 256 x 128 over the H200's 132 SMs
    with pytest.raises(dtsim.ScenarioError, match="--rank 3"):
        dtsim.kernels(ROOT / "scenarios/hybrid_gpt_1gpu.yaml", rank=3)
