# dtsim.sweep against `dtsim sweep`, and Ctrl-C stopping a sweep with its child processes.
import json
import signal
import subprocess
import sys
import time

import pytest

import dtsim
from conftest import DTSIM, ROOT, without_wall_time


def test_sweep_matches_the_cli(tmp_path):
    table = dtsim.sweep(ROOT / "scenarios/quickstart.yaml", {"cluster.nodes": [1, 2, 4]}, jobs=2, engine="simgrid")
    subprocess.run([DTSIM, "sweep", "scenarios/quickstart.yaml", "--param", "cluster.nodes=1,2,4", "--jobs", "2",
                    "--engine", "simgrid", "--out", str(tmp_path / "sweep")], cwd=ROOT, check=True, capture_output=True)
    cli = json.loads((tmp_path / "sweep/results.json").read_text())
    assert [r["cluster.nodes"] for r in table] == [1, 2, 4]
    assert table.column("workers") == [4, 8, 16]
    assert [without_wall_time(m.to_dict()) for m in table.metrics] == [
        without_wall_time(p["metrics"]) for p in cli["points"]]
    assert table[0]["iteration_time_s"] == cli["points"][0]["metrics"]["iteration_time_s"]["mean"]
    scaling = json.loads((tmp_path / "sweep/scaling.json").read_text())
    assert table.column("efficiency") == [p["efficiency"] for p in scaling["points"]]
    assert "iteration_time_s" in str(table)


def test_a_sweep_of_several_jobs_has_a_row_per_job_as_results_csv_has(tmp_path):
    # compression_vs_bandwidth's three jobs (no compression, top-k, PowerSGD) are what it compares: each has its rows.
    sets = ["run.iterations=5", "run.engine=analytical"]
    s = dtsim.load(ROOT / "scenarios/compression_vs_bandwidth.yaml")
    for kv in sets:
        s.set(*kv.split("="))
    table = dtsim.sweep(s, {"cluster.nic.rate": ["1Gbps", "100Gbps"]})
    assert [(r["cluster.nic.rate"], r["job"]) for r in table] == [
        (rate, job) for rate in ("1Gbps", "100Gbps") for job in ("none", "topk1", "powersgd4")]
    for row, (point, job) in zip(table, [(m, j) for m in table.metrics for j in range(3)]):
        assert row["throughput_samples_per_s"] == point["jobs"][job]["throughput_samples_per_s"]
    assert len({r["throughput_samples_per_s"] for r in table}) == 6
    assert "job" in str(table).splitlines()[0]
    args = [DTSIM, "sweep", "scenarios/compression_vs_bandwidth.yaml", "--param", "cluster.nic.rate=1Gbps,100Gbps",
            "--out", str(tmp_path / "sweep")]
    for kv in sets:
        args += ["--set", kv]
    subprocess.run(args, cwd=ROOT, check=True, capture_output=True)
    lines = (tmp_path / "sweep/results.csv").read_text().splitlines()
    header = lines[0].split(",")
    assert header[:2] == ["cluster.nic.rate", "job"]
    assert len(lines) == 1 + 6
    for line, row in zip(lines[1:], table):
        cells = dict(zip(header, line.split(",")))
        assert cells["job"] == row["job"]
        assert float(cells["iteration_time_s"]) == row["iteration_time_s"]


def test_sweep_of_a_dict_with_a_range_and_strong_scaling():
    s = dtsim.load(ROOT / "scenarios/quickstart.yaml")
    table = dtsim.sweep(s, {"cluster.nodes": "1..4:x2"}, engine="analytical", scaling="strong")
    assert table.column("cluster.nodes") == ["1", "2", "4"]  # a range's values are the loader's text
    batches = [m["throughput_samples_per_s"] * m["iteration_time_s"]["mean"] for m in table.metrics]
    assert batches == pytest.approx([batches[0]] * 3)


def test_bad_sweep_key_is_a_scenario_error():
    with pytest.raises(dtsim.ScenarioError) as e:
        dtsim.sweep(ROOT / "scenarios/quickstart.yaml", {"cluster.nodez": [1, 2]})
    assert e.value.key == "cluster.nodez"


# A sweep of SimGrid points two at a time, and one SimGrid run of about 30 s: each interrupted
# after 1.5 s. The script lists its children after the KeyboardInterrupt, before Python exits.
SCRIPT = """
import os, sys, dtsim
print("started", flush=True)
try:
    if sys.argv[1] == "sweep":
        dtsim.sweep("scenarios/quickstart.yaml", {"cluster.nodes": list(range(1, 200))}, jobs=2, engine="simgrid")
    else:
        dtsim.run("scenarios/llama3_70b_fsdp.yaml", engine="simgrid")
except KeyboardInterrupt:
    children = open(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read().split()
    print("interrupted; children left:", len(children), flush=True)
    raise
"""


@pytest.mark.parametrize("what", ["sweep", "run"])
def test_ctrl_c_stops_it_and_its_children(what):
    p = subprocess.Popen([sys.executable, "-c", SCRIPT, what], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.5)  # the simulations are running in child processes
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=20)
    assert time.monotonic() - sent < 5
    assert "interrupted; children left: 0" in out
    assert p.returncode != 0 and "KeyboardInterrupt" in err


def test_convergence_sweep_matches_the_cli(tmp_path):
    # A sweep that trains the proxy along each point's records adds each job's convergence section, as the CLI's.
    s = dtsim.load(ROOT / "scenarios/compression_vs_bandwidth.yaml").set("run.iterations", 20)
    table = dtsim.sweep(s, {"cluster.nic.rate": ["1Gbps", "100Gbps"]}, engine="analytical")
    subprocess.run([DTSIM, "sweep", "scenarios/compression_vs_bandwidth.yaml", "--set", "run.iterations=20",
                    "--param", "cluster.nic.rate=1Gbps,100Gbps", "--engine", "analytical", "--out",
                    str(tmp_path)], cwd=ROOT, check=True, capture_output=True)
    cli = json.loads((tmp_path / "results.json").read_text())
    assert all("convergence" in m for m in table.metrics)
    assert [without_wall_time(m.to_dict()) for m in table.metrics] == [
        without_wall_time(p["metrics"]) for p in cli["points"]]
