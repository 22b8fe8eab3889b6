# examples/sweep_plot.py runs as written: the table, and the plot when matplotlib is installed.
import importlib.util
import subprocess
import sys

from conftest import ROOT


def test_sweep_plot_example(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "examples/sweep_plot.py"), "--values", "1,2,4", "--out",
                          str(tmp_path / "plot.png")], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["cluster.nodes", "workers", "iteration_time_s"]
    assert [line.split()[0] for line in lines[1:4]] == ["1", "2", "4"]
    if importlib.util.find_spec("matplotlib"):
        assert (tmp_path / "plot.png").stat().st_size > 0
    else:
        assert "matplotlib is not installed" in out
