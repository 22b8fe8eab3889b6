# dtsim.run against `dtsim run`: the same metrics.json for every scenario of scenarios/.
import json
import subprocess
import sys
import threading

import pytest

import dtsim
from conftest import ROOT, without_wall_time
from quickstart_dict import QUICKSTART

# Each scenario on SimGrid where a run takes about a second, else on the analytical engine;
# compression_vs_bandwidth trains its proxy over 150 iterations and runs 20 here, without a trace.
SIMGRID = {"quickstart", "compression", "hybrid_gpt_1gpu", "hybrid_pipeline_cpu", "parameter_server",
           "synthetic_torus", "two_jobs"}
SETS = {"compression_vs_bandwidth": {"run.iterations": 20}}
NO_TRACE = {"compression_vs_bandwidth"}
SCENARIOS = sorted(p.stem for p in (ROOT / "scenarios").glob("*.yaml"))


def test_every_scenario_is_compared():
    assert "quickstart" in SCENARIOS and len(SCENARIOS) >= 15


@pytest.mark.parametrize("name", SCENARIOS)
def test_run_matches_the_cli(name, cli_metrics, tmp_path):
    engine = "simgrid" if name in SIMGRID else "analytical"
    sets = SETS.get(name, {})
    scenario = dtsim.load(ROOT / "scenarios" / f"{name}.yaml")
    for key, value in sets.items():
        scenario.set(key, value)
    result = dtsim.run(scenario, engine=engine, trace=name not in NO_TRACE)
    expected = cli_metrics(f"scenarios/{name}.yaml", engine, [f"{k}={v}" for k, v in sets.items()],
                           trace=name not in NO_TRACE)
    assert result.engine == engine
    assert without_wall_time(result.metrics) == without_wall_time(expected)
    if name in SIMGRID:  # the smaller traces: the same events as trace.json
        assert result.trace == json.loads((tmp_path / "run/trace.json").read_text())


def test_attributes_lists_and_trace():
    r = dtsim.run(ROOT / "scenarios/quickstart.yaml")
    assert r.iteration_time.mean == r.metrics["iteration_time_s"]["mean"] > 0
    assert r.iteration_time_s.p99 >= r.iteration_time.p50
    assert len(r.per_rank) == r.workers == 8 and r.per_rank[0]["role"] == "worker"
    assert isinstance(r.jobs[0], dict) and r.jobs[0]["job"] == r.job
    ops = [e for e in r.trace_events if e.get("ph") == "X"]
    assert ops and all(e["dur"] >= 0 for e in ops)
    assert dtsim.run(ROOT / "scenarios/quickstart.yaml", trace=False).trace_events == []
    with pytest.raises(AttributeError, match="no metric 'iteration_tme'"):
        r.iteration_tme


def test_done_when_command_prints_the_cli_number(cli_metrics):
    code = "import dtsim; print(dtsim.run(dtsim.load('scenarios/quickstart.yaml')).iteration_time.mean)"
    printed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    assert float(printed.stdout) == cli_metrics("scenarios/quickstart.yaml", "simgrid")["iteration_time_s"]["mean"]


@pytest.mark.parametrize("engine", ["simgrid", "analytical"])
def test_runs_in_two_threads_at_once(engine):
    # A SimGrid run is a child process, an analytical one runs here with the GIL released: two at once
    # from two threads both finish, with the results of a run alone.
    results = [None, None]

    def work(i):
        results[i] = dtsim.run(ROOT / "scenarios/quickstart.yaml", engine=engine, trace=False)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone = dtsim.run(ROOT / "scenarios/quickstart.yaml", engine=engine, trace=False)
    assert without_wall_time(results[0].metrics) == without_wall_time(results[1].metrics)
    assert without_wall_time(results[0].metrics) == without_wall_time(alone.metrics)


def test_dict_scenario_runs_like_its_file():
    r = dtsim.run(dtsim.Scenario(QUICKSTART), engine="analytical", trace=False)
    f = dtsim.run(ROOT / "scenarios/quickstart.yaml", engine="analytical", trace=False)
    assert r.iteration_time.mean == f.iteration_time.mean


def test_to_pandas():
    pandas = pytest.importorskip("pandas")
    r = dtsim.run(ROOT / "scenarios/quickstart.yaml", engine="analytical")
    ranks = r.to_pandas()
    assert isinstance(ranks, pandas.DataFrame) and len(ranks) == 8
    assert list(ranks["compute_s"]) == [p["compute_s"] for p in r.per_rank]
    assert len(r.to_pandas("trace")) == len(r.trace_events)
    table = dtsim.sweep(ROOT / "scenarios/quickstart.yaml", {"cluster.nodes": [1, 2]}, engine="analytical")
    frame = table.to_pandas()
    assert list(frame["cluster.nodes"]) == [1, 2] and list(frame["iteration_time_s"]) == table.column("iteration_time_s")
    tuning = dtsim.tune(ROOT / "scenarios/hybrid_pipeline_cpu.yaml", top=0)
    assert len(tuning.to_pandas()) == len(tuning.rows)


def test_a_result_says_tokens_and_mfu_for_a_transformer_and_mfu_alone_for_a_cnn():
    llm = dtsim.run(ROOT / "scenarios/llama3_70b_fsdp.yaml", engine="analytical", trace=False)
    assert llm.tokens_per_s == pytest.approx(llm.throughput_samples_per_s * 8192)
    assert llm.tokens_per_s_per_device == pytest.approx(llm.tokens_per_s / llm.workers)
    assert 0 < llm.mfu <= llm.hfu < 1
    cnn = dtsim.run(ROOT / "scenarios/quickstart.yaml", engine="analytical", trace=False)
    assert cnn.tokens_per_s is None and cnn.tokens_per_s_per_device is None
    assert 0 < cnn.mfu == cnn.hfu < 1


def test_a_layout_that_does_not_fit_is_timed_with_fits_false_or_raises_when_asked():
    s = dtsim.load(ROOT / "scenarios/llama3_70b_fsdp.yaml").set("strategy.recompute", "none")
    s.set("strategy.sequence_parallel", False)
    r = dtsim.run(s, engine="analytical", trace=False)
    assert not r.fits and r.iteration_time.mean > 0
    assert any("needs 90.0 GB" in w for w in r.warnings)
    with pytest.raises(dtsim.DoesNotFit) as e:
        dtsim.run(s, engine="analytical", trace=False, require_fit=True)
    assert "its busiest rank needs 90.0 GB, its device holds 80.0 GB" in str(e.value)
    assert e.value.result.iteration_time.mean == r.iteration_time.mean
    assert dtsim.run(ROOT / "scenarios/llama3_70b_fsdp.yaml", engine="analytical", trace=False, require_fit=True).fits
    assert dtsim.run(ROOT / "scenarios/quickstart.yaml", engine="analytical", trace=False).fits  # no memory model
