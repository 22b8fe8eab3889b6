# dtsim.tune against `dtsim tune`: the same layouts in the same order with the same figures.
import json
import subprocess

import pytest

import dtsim
from conftest import DTSIM, ROOT


def test_tune_matches_the_cli(tmp_path):
    scenario = dtsim.load(ROOT / "scenarios/hybrid_pipeline_cpu.yaml")
    tuning = dtsim.tune(scenario, top=1)
    subprocess.run([DTSIM, "tune", "scenarios/hybrid_pipeline_cpu.yaml", "--top", "1", "--out", str(tmp_path)],
                   cwd=ROOT, check=True, capture_output=True)
    cli = json.loads((tmp_path / "tune.json").read_text())
    assert (tuning.devices, tuning.layouts, tuning.over_memory) == (cli["devices"], cli["layouts"], cli["over_memory"])
    # One tune.json (sim/tune/tune_json.hpp): every field the same but the passes' wall times and the file's name,
    # which the CLI has as typed and Python as loaded.
    mine = dict(tuning._data)
    assert mine["schema_version"] == cli["schema_version"] == 1
    assert mine.pop("scenario_file").endswith(cli.pop("scenario_file"))
    for wall in ("closed_form_seconds", "engine_seconds"):
        assert mine.pop(wall) >= 0 and cli.pop(wall) >= 0
    assert mine == cli
    assert tuning.rows[0]["simgrid_s"] == cli["ranked"][0]["simgrid_s"] > 0
    assert tuning.rows[1]["simgrid_s"] is None and tuning.rows[1]["analytical_s"] > 0  # --top 1: one SimGrid run
    best = tuning.best(scenario)
    assert best.overrides == tuning.rows[0]["set"] and scenario.overrides == []
    assert dtsim.run(best, engine="simgrid", trace=False).iteration_time.mean == tuning.rows[0]["simgrid_s"]


def test_tune_objective_cost_matches_the_cli(tmp_path):
    # The cheapest layout over 1, 2, 4, ... nodes, as `dtsim tune --objective cost` finds it, with its devices.
    path = ROOT / "scenarios/gpt3_175b_megatron.yaml"
    tuning = dtsim.tune(dtsim.load(path), top=0, screen=4, objective="cost")
    subprocess.run([DTSIM, "tune", str(path), "--top", "0", "--screen", "4", "--objective", "cost", "--out",
                    str(tmp_path)], cwd=ROOT, check=True, capture_output=True)
    cli = json.loads((tmp_path / "tune.json").read_text())
    assert tuning.objective == cli["objective"] == "cost"
    assert tuning.device_counts == cli["device_counts"] == [8, 16, 32, 64]
    assert [r["set"] for r in tuning.rows] == [r["set"] for r in cli["ranked"]]
    assert [r["devices"] for r in tuning.rows] == [r["devices"] for r in cli["ranked"]]
    costs = [r["device_seconds_per_sample"] for r in tuning.rows]
    assert costs == sorted(costs) and costs == [r["device_seconds_per_sample"] for r in cli["ranked"]]


def test_tune_refuses_an_unknown_objective():
    with pytest.raises(ValueError, match="expected one of time, throughput, cost"):
        dtsim.tune(dtsim.load(ROOT / "scenarios/gpt3_175b_megatron.yaml"), objective="speed")


# Issue #51: a Python user gets a TypeError or ValueError that names the argument and what is valid, not an
# AttributeError from inside dtsim or pybind11's signature dump.
def test_tune_arguments_are_checked_as_the_cli_checks_them():
    scenario = dtsim.load(ROOT / "scenarios/hybrid_pipeline_cpu.yaml")
    with pytest.raises(ValueError, match=r"tune: top=100000000000000000000: expected a whole number from 0 to 1000"):
        dtsim.tune(scenario, top=10**20)
    with pytest.raises(TypeError, match=r"tune: top=nan: expected a whole number"):
        dtsim.tune(scenario, top=float("nan"))
    with pytest.raises(TypeError, match=r"tune: jobs=inf: expected a whole number from 1 to 1024"):
        dtsim.tune(scenario, jobs=float("inf"))
    with pytest.raises(ValueError, match=r"tune: screen=-1"):
        dtsim.tune(scenario, screen=-1)
    with pytest.raises(ValueError, match=r"sweep: jobs=0: expected a whole number from 1 to 4096"):
        dtsim.sweep(scenario, {"cluster.nodes": [1]}, jobs=0)


def test_tuning_best_names_what_it_needs():
    scenario = dtsim.load(ROOT / "scenarios/hybrid_pipeline_cpu.yaml")
    tuning = dtsim.tune(scenario, top=0, screen=1)
    with pytest.raises(TypeError, match=r"Tuning.best\(scenario\): expected the dtsim.Scenario the search ran on"):
        tuning.best(None)
    assert tuning.best(ROOT / "scenarios/hybrid_pipeline_cpu.yaml").overrides == tuning.rows[0]["set"]
    assert tuning.rows[0]["analytical_error"] is None and tuning.rows[0]["simgrid_error"] is None


def test_tune_on_other_devices_matches_the_cli(tmp_path):
    # devices=N searches the job on N devices, from a layout that suits them, as `dtsim tune --devices N`.
    path = ROOT / "scenarios/gpt3_175b_megatron.yaml"
    tuning = dtsim.tune(dtsim.load(path), top=0, screen=2, devices=128)
    subprocess.run([DTSIM, "tune", str(path), "--top", "0", "--screen", "2", "--devices", "128", "--out",
                    str(tmp_path)], cwd=ROOT, check=True, capture_output=True)
    cli = json.loads((tmp_path / "tune.json").read_text())
    assert tuning.devices == cli["devices"] == 128
    assert [r["set"] for r in tuning.rows] == [r["set"] for r in cli["ranked"]]
    assert [r["analytical_s"] for r in tuning.rows] == [r["analytical_s"] for r in cli["ranked"]]
    assert tuning._data["set"] == cli["set"] == ["cluster.nodes=16"]
    best = tuning.best(path)
    assert best.get("cluster.nodes") == 16 and best.overrides == ["cluster.nodes=16"] + tuning.rows[0]["set"]
    with pytest.raises(dtsim.ScenarioError, match=r"--devices 12: a whole number of nodes of 8 devices"):
        dtsim.tune(dtsim.load(path), top=0, screen=1, devices=12)
    with pytest.raises(ValueError, match=r"tune: devices=-1: expected a whole number from 0"):
        dtsim.tune(dtsim.load(path), devices=-1)


def test_tune_tokens_matches_the_cli(tmp_path):
    # The global batch searched within a token budget, as `dtsim tune --tokens` searches it: the same rows, each with
    # the batch its layout took.
    path = ROOT / "scenarios/gpt3_175b_megatron.yaml"
    tuning = dtsim.tune(dtsim.load(path), top=0, screen=4, devices=1024, tokens=(1.5e6, 3e6))
    subprocess.run([DTSIM, "tune", str(path), "--top", "0", "--screen", "4", "--devices", "1024", "--tokens",
                    "1.5M:3M", "--out", str(tmp_path)], cwd=ROOT, check=True, capture_output=True)
    cli = json.loads((tmp_path / "tune.json").read_text())
    assert cli["tokens_per_step"] == tuning.tokens_per_step == [1.5e6, 3e6]
    assert [r["layout"] for r in tuning.rows] == [r["layout"] for r in cli["ranked"]]
    for row in tuning.rows:
        assert 733 <= row["global_batch"] <= 1464  # 1.5M / 2048 rounded up, 3M / 2048 rounded down
    with pytest.raises(TypeError, match="tokens="):
        dtsim.tune(dtsim.load(path), tokens=3e6)
