# What bench/'s fit and data scripts share (bench/kernels/attention_fit.py, bench/collectives/nvls_fit.py,
# bench/collectives/ring_step_fit.py, bench/collectives/xla_curves.py): each writes its results files, or with --check
# says whether each is what it would write (a ctest runs the check); the data scripts that copy published tables
# (bench/kernels/deepbench_extract.py, neusight_extract.py) write them as CSV. Standard library only.
import csv
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_or_check(path, text, script):
    """Writes `text` to `path`, or under --check compares them; returns the exit status."""
    rel = os.path.relpath(path, ROOT)
    if "--check" in sys.argv:
        same = os.path.exists(path) and open(path).read() == text
        print(f"{script}: {rel} is " + ("up to date" if same else "out of date"))
        return 0 if same else 1
    with open(path, "w") as f:
        f.write(text)
    print(f"{script}: wrote {rel}")
    return 0


def write_csv(path, header, rows):
    """Writes `rows` under `header` to the CSV file `path` (Unix line ends)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
