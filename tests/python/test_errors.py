# ScenarioError: the YAML loader's located errors, with the key they name.
import pytest

import dtsim
from conftest import ROOT
from quickstart_dict import QUICKSTART


def test_bad_key_in_a_file_names_its_line_and_key(tmp_path):
    text = (ROOT / "scenarios/quickstart.yaml").read_text().replace("  nodes: 2\n", "  nodez: 2\n")
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    line = text.splitlines().index("  nodez: 2") + 1
    with pytest.raises(dtsim.ScenarioError) as e:
        dtsim.load(path)
    assert (e.value.file, e.value.line, e.value.key) == (str(path), line, "cluster.nodez")
    assert "unknown key 'cluster.nodez' (did you mean 'nodes'?)" in e.value.message
    assert str(e.value).startswith(f"{path}:{line}:")
    assert isinstance(e.value, ValueError)


def test_bad_value_names_its_key(tmp_path):
    path = tmp_path / "bad.yaml"
    text = (ROOT / "scenarios/quickstart.yaml").read_text().replace("batch_per_worker: 64", "batch_per_worker: lots")
    path.write_text(text)
    with pytest.raises(dtsim.ScenarioError) as e:
        dtsim.load(path)
    assert e.value.key == "model.batch_per_worker"
    assert e.value.line == text.splitlines().index("  batch_per_worker: lots") + 1


def test_bad_key_in_a_dict():
    data = dict(QUICKSTART, strategy={"kind": "allreduce", "allreduce": {"algoritm": "ring"}})
    with pytest.raises(dtsim.ScenarioError) as e:
        dtsim.Scenario(data)
    assert e.value.file == "<dict>" and e.value.key == "strategy.allreduce.algoritm"
    assert "did you mean 'algorithm'?" in e.value.message


def test_set_checks_like_the_cli():
    s = dtsim.load(ROOT / "scenarios/quickstart.yaml")
    assert s.set("cluster.nodes", 8).workers == 32
    with pytest.raises(dtsim.ScenarioError) as e:
        s.set("cluster.nodez", 8)
    assert (e.value.file, e.value.line, e.value.key) == ("--set cluster.nodez=8", None, "cluster.nodez")
    with pytest.raises(dtsim.ScenarioError) as e:
        s.set("cluster.nodes", 0)
    assert e.value.key == "cluster.nodes"
    assert s.overrides == ["cluster.nodes=8"] and s.workers == 32  # a refused set() leaves the scenario as it was


def test_missing_file():
    with pytest.raises(dtsim.ScenarioError, match="no such scenario file"):
        dtsim.load("scenarios/none.yaml")


def test_files_the_loader_refuses(tmp_path):
    with pytest.raises(dtsim.ScenarioError, match="this is a directory, not a scenario file") as e:
        dtsim.load(tmp_path)
    assert e.value.file == str(tmp_path)
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(b"name: caf\xe9\n")
    with pytest.raises(dtsim.ScenarioError, match="is not UTF-8 text") as e:
        dtsim.load(latin1)
    assert (e.value.file, e.value.line, e.value.key) == (str(latin1), 1, "name")
