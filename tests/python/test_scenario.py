# A Scenario read back: get() and [] give what it writes (or the key table's default), to_dict() and to_yaml() give a
# scenario that loads as the same, for every scenario of scenarios/.
import shutil

import pytest

import dtsim
from conftest import ROOT

SCENARIOS = sorted(p.name for p in (ROOT / "scenarios").glob("*.yaml"))


def test_get_gives_written_values_typed_then_defaults():
    s = dtsim.load(ROOT / "scenarios/quickstart.yaml").set("cluster.nodes", 8)
    assert s["cluster.nodes"] == 8 and s.get("cluster.nodes") == 8  # the set(), over the file's 2
    assert s["cluster.nic.rate"] == "100Gbps"
    assert s["strategy.allreduce.overlap"] is True
    assert s["run.fidelity"] == "flow"  # not written: the key table's default
    assert s.get("no.such.key") is None and s.get("no.such.key", 3) == 3
    with pytest.raises(KeyError):
        s["no.such.key"]
    jobs = dtsim.load(ROOT / "scenarios/compression_vs_bandwidth.yaml")
    assert jobs["jobs.2.compression.rank"] == 4
    assert jobs["jobs.0.compression.method"] == "none"  # job 0 does not write it: the default


@pytest.mark.parametrize("name", SCENARIOS)
def test_to_dict_and_to_yaml_load_as_the_same_scenario(name, tmp_path):
    folder = tmp_path / "scenarios"
    shutil.copytree(ROOT / "scenarios", folder)  # relative files (profiles, configs) beside the copy
    s = dtsim.load(ROOT / "scenarios" / name).set("run.iterations", 3)
    s.to_yaml(folder / "again.yaml")
    from_yaml = dtsim.load(folder / "again.yaml")
    assert from_yaml.to_dict() == s.to_dict()
    assert (from_yaml.name, from_yaml.workers, from_yaml.engine) == (s.name, s.workers, s.engine)
    assert from_yaml["run.iterations"] == 3
    if "hf_config" not in s.to_yaml() and "profile" not in s.to_yaml():  # relative paths read from here otherwise
        assert dtsim.Scenario(s.to_dict()).to_dict() == s.to_dict()


def test_import_megatron_is_the_command_lines_scenario(tmp_path):
    """dtsim.import_megatron gives the scenario `dtsim import-megatron` writes, and its refusals as ScenarioError."""
    import subprocess
    from conftest import DTSIM, ROOT
    args = ROOT / "tests" / "core" / "scenario" / "data" / "megatron_llama3_8b.sh"
    s = dtsim.import_megatron(args, preset="dgx_h100")
    assert s["model.transformer.kv_heads"] == 8
    assert s["cluster.nodes"] == 1 and s["strategy.zero"] == 1
    out = tmp_path / "llama.yaml"
    subprocess.run([DTSIM, "import-megatron", str(args), "--preset", "dgx_h100", "--out", str(out)], check=True,
                   capture_output=True)
    assert s.to_dict() == dtsim.load(out).to_dict() | {"name": s.name}
    bad = tmp_path / "bad.sh"
    bad.write_text("--num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 8\n--multi-latent-attention\n")
    with pytest.raises(dtsim.ScenarioError, match="bad.sh:2: error: --multi-latent-attention"):
        dtsim.import_megatron(bad, device="h100_sxm", nodes=1, gpus_per_node=8)
    with pytest.raises(ValueError, match="--nodes"):
        dtsim.import_megatron(args, preset="dgx_h100", nodes=-1)
