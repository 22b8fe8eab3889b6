# Fixtures of the Python module's tests: the dtsim executable they compare with, and its metrics.json.
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DTSIM = os.environ.get("DTSIM_BIN", str(ROOT / "build" / "bin" / "dtsim"))


def without_wall_time(value):
    """metrics.json without wall_time_s, the one field two runs of a scenario do not share."""
    if isinstance(value, dict):
        return {k: without_wall_time(v) for k, v in value.items() if k != "wall_time_s"}
    if isinstance(value, list):
        return [without_wall_time(v) for v in value]
    return value


@pytest.fixture
def cli_metrics(tmp_path):
    """metrics.json of `dtsim run SCENARIO --engine E --set ... --json [--no-trace]`, as Python objects."""

    def run(scenario, engine, sets=(), trace=True):
        args = [DTSIM, "run", str(scenario), "--engine", engine, "--json", "--out", str(tmp_path / "run")]
        if not trace:
            args.append("--no-trace")
        for s in sets:
            args += ["--set", s]
        out = subprocess.run(args, cwd=ROOT, check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    return run
