# dtsim.models(), devices() and keys(): the tables `dtsim models list`, `dtsim devices` and `dtsim keys` print.
import subprocess

import dtsim
from conftest import DTSIM


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
