"""The package pip builds (pyproject.toml, setup.py): installed offline into a fresh virtual environment from this
checkout, importable from any folder, the same module as build/python's, its version the project's."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import DTSIM, ROOT


def project_version():
    return re.search(r"project\(dtsim VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


def test_pyproject_version_is_the_projects():
    assert re.search(r'^version = "([0-9.]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1) == \
        project_version()


def test_pip_install_gives_an_importable_dtsim(tmp_path, cli_metrics):
    # A virtual environment that sees Debian's setuptools, wheel and pip (scripts/setup installs them), as
    # docs/python.md says to make one; the build tree the tests run against is reused (only _dtsim is rebuilt).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["DTSIM_BUILD_DIR"] = str(Path(DTSIM).resolve().parents[1])
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-index", "--no-deps",
                    str(ROOT)], check=True, env=env, cwd=tmp_path, capture_output=True, text=True)
    probe = ("import dtsim, json; s = dtsim.load(%r); r = dtsim.run(s, engine='analytical'); "
             "print(json.dumps({'file': dtsim.__file__, 'version': dtsim.__version__, "
             "'mean': r.iteration_time.mean}))" % str(ROOT / "scenarios" / "quickstart.yaml"))
    out = json.loads(subprocess.run([python, "-c", probe], check=True, env=env, cwd=tmp_path, capture_output=True,
                                    text=True).stdout)
    assert out["file"].startswith(str(venv))  # the installed module, not the build tree's
    assert out["version"] == project_version()
    assert (Path(out["file"]).parent / "dtsim.pyi").exists()
    assert out["mean"] == cli_metrics(ROOT / "scenarios" / "quickstart.yaml", "analytical")["iteration_time_s"]["mean"]
