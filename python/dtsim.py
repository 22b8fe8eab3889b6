"""dtsim from Python: load scenarios, run them on either engine, sweep them, read the results as data.

    import dtsim
    s = dtsim.load("scenarios/quickstart.yaml")
    s.set("cluster.nodes", 8)
    r = dtsim.run(s, engine="analytical")
    print(r.iteration_time.mean, r.throughput_samples_per_s)
    table = dtsim.sweep(s, {"cluster.nodes": [1, 2, 4]}, jobs=2)
    df = table.to_pandas()          # when pandas is installed

A scenario is checked by the same loader as `dtsim run` (same keys, same located errors, raised as
ScenarioError). SimGrid keeps process-wide state, so every SimGrid run or sweep point runs in a child
process (the pool of `dtsim sweep`); analytical runs stay in this process. The GIL is released while
dtsim works, and Ctrl-C (KeyboardInterrupt) stops a run or a sweep, killing its child processes.
See docs/python.md.
"""

from __future__ import annotations

import json
import numbers
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

import _dtsim

__version__ = _dtsim.__version__
ScenarioError = _dtsim.ScenarioError

__all__ = [
    "Scenario", "ScenarioError", "DoesNotFit", "Record", "Result", "Table", "Tuning", "load", "from_torch", "import_megatron", "run", "sweep",
    "tune", "kernels",
    "models", "devices", "keys",
]


class DoesNotFit(RuntimeError):
    """run(..., require_fit=True) of a layout whose busiest rank needs more memory than its device has; the
    result (timed all the same) is its .result."""

    def __init__(self, message: str, result: "Result") -> None:
        super().__init__(message)
        self.result = result


def _whole(where: str, name: str, value: Any, least: int, most: int, option: str) -> int:
    """A whole-number argument checked as the command line checks its option: TypeError for another type (a
    float, NaN and infinities among them), ValueError out of range, each naming the argument and what is valid."""
    valid = f"expected a whole number from {least} to {most}, as {option} takes"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}: {name}={value!r}: {valid}")
    if not least <= value <= most:
        raise ValueError(f"{where}: {name}={value!r}: {valid}")
    return int(value)


def _set_text(value: Any) -> str:
    """A Python value as `--set key=value` takes it (true/false for booleans)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Scenario:
    """A scenario: YAML read by load(), or a dict with the same keys (Scenario({...})), plus set() overrides.

    Checked when made and at each set(): a mistake raises ScenarioError with the file, line and key."""

    def __init__(self, data: Mapping[str, Any], *, _text: Optional[str | bytes] = None, _origin: str = "<dict>",
                 _sets: Sequence[str] = ()) -> None:
        if _text is None:
            if not isinstance(data, Mapping):
                raise TypeError("Scenario(data): expected a dict of scenario keys, e.g. {'model': {'name': ...}}")
            # JSON is YAML: the loader reads the dict as written, one key per line (errors name those lines).
            _text = json.dumps(data, indent=2, default=str)  # numpy numbers and the like as their text
        self._source = _dtsim.Source(_text, _origin, list(_sets))
        self._info = _dtsim.check(self._source)

    @property
    def name(self) -> str:
        """The scenario's name."""
        return self._info["name"]

    @property
    def engine(self) -> str:
        """run.engine: 'simgrid' or 'analytical'."""
        return self._info["engine"]

    @property
    def workers(self) -> int:
        """Worker ranks of its (first) job."""
        return self._info["workers"]

    @property
    def file(self) -> str:
        """Where the scenario came from: its file, or '<dict>'."""
        return self._source.origin

    @property
    def overrides(self) -> List[str]:
        """The set() overrides so far, as `--set` takes them."""
        return list(self._source.sets)

    def set(self, key: str, value: Any) -> "Scenario":
        """Sets one key, as `dtsim run --set key=value` does; returns the scenario (calls chain)."""
        sets = list(self._source.sets) + [f"{key}={_set_text(value)}"]
        source = _dtsim.Source(self._source.text, self._source.origin, sets)
        self._info = _dtsim.check(source)
        self._source = source
        return self

    def get(self, key: str, default: Any = None) -> Any:
        """The value the scenario gives `key` (its file's, or the last set()'s), as a Python value (true/false as
        bools, numbers as ints or floats, anything else as its text: '25MB'); a key it does not write gives its
        default from the key table (dtsim.keys(): '' where it has none), else `default` for a key of no table."""
        written = self._info["written"]
        if key in written:
            return _typed(written[key])
        for k in _key_table():
            if k["path"] == key or (key.startswith("jobs.") and key.split(".", 2)[-1] == k["path"]):
                return _typed(k["default"]) if k["default"] != "" else default
        return default

    def __getitem__(self, key: str) -> Any:
        """s["cluster.nodes"]: get(key), or KeyError for a key neither written nor in the key table."""
        missing = object()
        value = self.get(key, missing)
        if value is missing:
            raise KeyError(key)
        return value

    def to_dict(self) -> Dict[str, Any]:
        """The keys the scenario writes (its file's, then its set()'s), nested as the file nests them, `jobs` as a list:
        Scenario(s.to_dict()) is the same scenario (a relative model.file or model.hf_config then reads from where
        Python runs)."""
        out: Dict[str, Any] = {}
        for key, text in self._info["written"].items():
            parts = key.split(".")
            node: Any = out
            if parts[0] == "jobs":
                jobs = out.setdefault("jobs", [])
                index = int(parts[1])
                while len(jobs) <= index:
                    jobs.append({})
                node, parts = jobs[index], parts[2:]
            for part in parts[:-1]:
                node = node.setdefault(part, {})
            node[parts[-1]] = _typed(text)
        return out

    def to_yaml(self, path: Optional[str | os.PathLike] = None) -> str:
        """to_dict() as YAML text (block style, one key a line); written to `path` as well when given."""
        text = _yaml(self.to_dict(), 0)
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def copy(self) -> "Scenario":
        """An independent copy (set() on it leaves this one alone)."""
        return Scenario({}, _text=self._source.text, _origin=self._source.origin, _sets=self._source.sets)

    def __repr__(self) -> str:
        sets = "".join(f" --set {s}" for s in self._source.sets)
        return f"<dtsim.Scenario {self.name!r} from {self.file}{sets}: {self.workers} workers, {self.engine}>"


def _typed(text: str) -> Any:
    """A value's text as the Python value it reads as: true/false, an int, a float, else the text."""
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


_KEYS: Optional[List[Dict[str, Any]]] = None


def _key_table() -> List[Dict[str, Any]]:
    global _KEYS
    if _KEYS is None:
        _KEYS = _dtsim.keys()
    return _KEYS


def _yaml(value: Any, indent: int) -> str:
    """Block-style YAML of dicts, lists and scalars (a scalar as JSON writes it: quoted text, true/false, numbers)."""
    pad = " " * indent
    lines = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                lines.append(f"{pad}{k}:\n{_yaml(v, indent + 2)}")
            else:
                lines.append(f"{pad}{k}: {json.dumps(v)}\n")
    else:
        for v in value:
            body = _yaml(v, indent + 2) if isinstance(v, (dict, list)) else f"{pad}  {json.dumps(v)}\n"
            lines.append(f"{pad}- {body.lstrip()}")
    return "".join(lines)


def load(path: str | os.PathLike) -> Scenario:
    """Reads a scenario file (as `dtsim run FILE` reads it)."""
    path = os.fspath(path)
    text = _dtsim.read_scenario(path)
    return Scenario({}, _text=text, _origin=path)


def from_torch(module: Any, example_inputs: Any, *, name: Optional[str] = None,
               path: Optional[str | os.PathLike] = None) -> str:
    """The model file (docs/models.md) of a PyTorch module run on `example_inputs` (batch first): torch.fx traces it
    and each kernel it runs in training becomes a row, counted by the zoo's own rules (python/dtsim_layers.py), so a
    torchvision ResNet-50 comes out as the zoo's resnet50. Written to `path` when given (use it as model.file);
    the text is returned. What it cannot cost is refused (ValueError) naming the call."""
    import dtsim_torch
    text = dtsim_torch.from_torch(module, example_inputs, name)
    if path is not None:
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            f.write(text)
    return text


def import_megatron(path: str | os.PathLike, *, preset: Optional[str] = None, device: Optional[str] = None,
                    nodes: int = 0, gpus_per_node: int = 0) -> Scenario:
    """A scenario from the command that launches a Megatron-LM job (as `dtsim import-megatron FILE` writes it): the
    cluster a `preset` (cluster.preset) or a `device`, `nodes` and `gpus_per_node` where the command has no
    torchrun counts. A mistake raises ScenarioError with the file, line and argument."""
    path = os.fspath(path)
    name = os.path.splitext(os.path.basename(path))[0]
    nodes = _whole("import_megatron", "nodes", nodes, 0, 1 << 20, "--nodes")
    gpus_per_node = _whole("import_megatron", "gpus_per_node", gpus_per_node, 0, 1 << 16, "--gpus-per-node")
    text = _dtsim.import_megatron(path, preset or "", device or "", nodes, gpus_per_node, name)
    return Scenario({}, _text=text, _origin=path + " (imported)")


class Record:
    """A JSON object of metrics.json with its keys as attributes; `x.iteration_time` also finds
    `iteration_time_s` (the unit suffix may be left out). Nested objects are Records, lists stay lists."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        data = object.__getattribute__(self, "_data")
        for key in (name, name + "_s"):
            if key in data:
                return _wrap(data[key])
        raise AttributeError(f"no metric {name!r} (there are: {', '.join(data)})")

    def __getitem__(self, key: str) -> Any:
        return _wrap(self._data[key])

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def __dir__(self) -> List[str]:
        return list(self._data)

    def keys(self):
        return self._data.keys()

    def to_dict(self) -> Dict[str, Any]:
        """The plain JSON object (dicts and lists)."""
        return self._data

    def __repr__(self) -> str:
        return f"Record({json.dumps(self._data)[:200]})"


def _wrap(value: Any) -> Any:
    return Record(value) if isinstance(value, dict) else value


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("to_pandas() needs pandas (pip install pandas, or apt-get install python3-pandas)") from e
    return pandas


class Result(Record):
    """One run's metrics (metrics.json's schema, docs/outputs.md) as attributes: result.iteration_time.mean,
    result.throughput_samples_per_s, result.jobs[1]["job"], ...; result.per_rank and result.trace_events
    are lists of dicts."""

    __slots__ = ("_trace_text", "_trace", "warnings")

    def __init__(self, out: Mapping[str, Any]) -> None:
        super().__init__(out["metrics"])
        object.__setattr__(self, "_trace_text", out["trace"])
        object.__setattr__(self, "_trace", None)
        object.__setattr__(self, "warnings", list(out["warnings"]))

    @property
    def trace(self) -> Optional[Dict[str, Any]]:
        """trace.json as dicts and lists (read when first asked for); None for run(trace=False)."""
        if self._trace is None and self._trace_text is not None:
            object.__setattr__(self, "_trace", json.loads(self._trace_text))
            object.__setattr__(self, "_trace_text", None)
        return self._trace

    @property
    def metrics(self) -> Dict[str, Any]:
        """metrics.json as dicts and lists (what `dtsim run --json` prints, wall_time_s aside)."""
        return self._data

    @property
    def fits(self) -> bool:
        """Whether every job's busiest rank fits its device's memory (metrics.json's memory.fits; True for jobs
        without a memory model, which are not hybrid)."""
        return all(j.get("memory", {}).get("fits", True) for j in self._data.get("jobs", [self._data]))

    @property
    def per_rank(self) -> List[Dict[str, Any]]:
        """Each rank's compute, communication, wait and bytes, per iteration (the first job's)."""
        return self._data["per_rank"]

    @property
    def trace_events(self) -> List[Dict[str, Any]]:
        """trace.json's events (Chrome trace format; times in microseconds); [] for run(trace=False)."""
        return self.trace["traceEvents"] if self.trace else []

    def to_pandas(self, what: str = "per_rank"):
        """A pandas DataFrame of per_rank (what='per_rank') or of the trace's events (what='trace')."""
        if what not in ("per_rank", "trace"):
            raise ValueError("to_pandas(what): 'per_rank' or 'trace'")
        return _pandas().DataFrame(self.per_rank if what == "per_rank" else self.trace_events)

    def __repr__(self) -> str:
        m = self._data
        return (f"<dtsim.Result {m['scenario']} on {m['engine']}: {m['iteration_time_s']['mean']:.6g} s/iteration, "
                f"{m['throughput_samples_per_s']:.6g} samples/s>")


class Table:
    """A sweep's results: one row (a dict) per point and job, in grid order (a scenario of several jobs has a row
    for each, named in the `job` column), with the columns of `dtsim sweep`'s results.csv (sim/sweep/sweep_table.hpp
    builds both); table.metrics[i] is point i's whole metrics.json, table.scaling the scaling analysis
    (scaling.json) when the sweep has one."""

    def __init__(self, out: Mapping[str, Any], values: Mapping[str, Sequence[Any]]) -> None:
        self.params: List[str] = list(out["params"])
        self.scaling: Optional[Dict[str, Any]] = out["scaling"]
        self.metrics: List[Record] = [Record(p["metrics"]) for p in out["points"]]
        # The user's own values (ints stay ints) for the swept keys, matched by their text.
        typed = {k: {_set_text(v): v for v in vs} for k, vs in values.items()}
        self.rows: List[Dict[str, Any]] = [
            {k: typed.get(k, {}).get(v, v) if k in self.params else v for k, v in row.items()} for row in out["rows"]]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, i: int) -> Dict[str, Any]:
        return self.rows[i]

    def column(self, name: str) -> List[Any]:
        """One column's values, in row order."""
        return [r[name] for r in self.rows]

    def to_pandas(self):
        """The rows as a pandas DataFrame."""
        return _pandas().DataFrame(self.rows)

    def __str__(self) -> str:
        jobs = ["job"] if len({r["job"] for r in self.rows}) > 1 else []
        cols = self.params + jobs + ["workers", "iteration_time_s", "throughput_samples_per_s", "efficiency"]
        cells = [[c for c in cols]] + [[_cell(r[c]) for c in cols] for r in self.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
        return "\n".join("  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells)

    def __repr__(self) -> str:
        return f"<dtsim.Table {len(self.metrics)} points, {len(self.rows)} rows, over {', '.join(self.params)}>"


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _scenario(scenario: Scenario | str | os.PathLike | Mapping[str, Any]) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario(scenario)
    return load(scenario)


def run(scenario: Scenario | str | os.PathLike | Mapping[str, Any], engine: Optional[str] = None,
        trace: bool = True, require_fit: bool = False) -> Result:
    """Runs a scenario as `dtsim run` does (engine: 'simgrid' or 'analytical'; None: its run.engine).
    trace=False skips the trace (result.trace_events is then empty). A layout that does not fit in its devices'
    memory is timed all the same, result.fits False and a warning said; require_fit=True raises DoesNotFit."""
    s = _scenario(scenario)
    result = Result(_dtsim.run(s._source, engine or "", trace))
    if require_fit and not result.fits:
        short = [j for j in result.metrics.get("jobs", [result.metrics]) if not j.get("memory", {}).get("fits", True)]
        m = short[0]["memory"]
        raise DoesNotFit(f"{s.name}: job {short[0]['job']}: its busiest rank needs {m['peak_bytes'] / 1e9:.1f} GB, "
                         f"its device holds {m['device_bytes'] / 1e9:.1f} GB (run() without require_fit times it "
                         "all the same)", result)
    return result


def sweep(scenario: Scenario | str | os.PathLike | Mapping[str, Any], params: Mapping[str, Iterable[Any] | str],
          jobs: int = 1, engine: Optional[str] = None, scaling: str = "weak") -> Table:
    """Runs every combination of `params` ({"cluster.nodes": [1, 2, 4]}, or a range as `dtsim sweep --param`
    takes it: {"cluster.nodes": "1..16:x2"}), `jobs` points at once, each SimGrid point in its own process.
    scaling: 'weak' (the per-worker batch stays) or 'strong' (the global batch stays)."""
    jobs = _whole("sweep", "jobs", jobs, 1, 4096, "dtsim sweep --jobs")
    s = _scenario(scenario)
    values: Dict[str, List[Any]] = {}
    texts: List[str] = []
    for key, vs in params.items():
        if isinstance(vs, str):
            texts.append(f"{key}={vs}")
            continue
        values[key] = list(vs)
        texts.append(f"{key}={','.join(_set_text(v) for v in values[key])}")
    return Table(_dtsim.sweep(s._source, texts, jobs, engine or "", scaling), values)


class Tuning(Record):
    """`dtsim tune`'s answer, its tune.json (docs/outputs.md, one schema for both): objective, devices (the most
    searched), device_counts, global_batch, layouts (valid), over_memory, ... and `rows`, the layouts that fit, best
    first: layout, set (the --set texts giving job 0 the layout, and placement.nodes when it takes fewer devices),
    devices, device_seconds_per_sample, closed_form_s, analytical_s and simgrid_s (None where that engine did not run
    it), iteration_time_s, throughput_samples_per_s, mfu, bubble_fraction, peak_memory_bytes, exposed_comm_by_kind_s
    (by group kind, those with exposed communication), analytical_error and simgrid_error (the engine's message where
    its run of the layout failed, else None: the layout is then ranked on the figures it has)."""

    @property
    def rows(self) -> List[Dict[str, Any]]:
        return self._data["ranked"]

    def best(self, scenario: Scenario | str | os.PathLike | Mapping[str, Any]) -> Scenario:
        """A copy of `scenario` (the one the search ran on, or its file) running the best layout, on the search's
        devices (a search with devices=N sets cluster.nodes)."""
        if scenario is None or not isinstance(scenario, (Scenario, str, os.PathLike, Mapping)):
            raise TypeError(f"Tuning.best(scenario): expected the dtsim.Scenario the search ran on (or its file), "
                            f"got {scenario!r}")
        if not self.rows:
            raise ValueError("Tuning.best(): no layout fits, so there is no best")
        s = _scenario(scenario).copy()
        for text in [t for t in self._data["set"] if t not in s.overrides] + self.rows[0]["set"]:
            key, value = text.split("=", 1)
            s.set(key, value)
        return s

    def to_pandas(self):
        """The rows as a pandas DataFrame (each row's --set texts joined by spaces)."""
        return _pandas().DataFrame([dict(r, set=" ".join(r["set"])) for r in self.rows])

    def __repr__(self) -> str:
        return f"<dtsim.Tuning {self.scenario}: {len(self.rows)} of {self.layouts} layouts fit on {self.devices} devices>"


def tune(scenario: Scenario | str | os.PathLike | Mapping[str, Any], top: int = 5, screen: int = 0,
         jobs: int = 1, objective: str = "time", devices: int = 0,
         tokens: Optional[Sequence[float]] = None) -> Tuning:
    """The best hybrid layouts of the scenario's transformer job on its devices, as `dtsim tune` finds them:
    all ranked in closed form (within its tune.* limits), the best `screen` (0: max(32, 4 x top)) on the
    analytical engine, the best `top` of those on SimGrid, `jobs` engine runs at once. `objective`: "time"
    (the fastest on exactly its devices), "throughput" or "cost" (the most samples/s or the fewest
    device-seconds per sample on 1, 2, 4, ... of its nodes). `devices`: search on that many devices (whole
    nodes) instead of the scenario's, as `dtsim tune --devices` (0: the scenario's). `tokens`: (min, max) tokens a
    step, the global batch searched too, as `dtsim tune --tokens MIN:MAX` (tune.*_tokens_per_step)."""
    top = _whole("tune", "top", top, 0, 1000, "dtsim tune --top")
    screen = _whole("tune", "screen", screen, 0, 100000, "dtsim tune --screen (0: the default)")
    jobs = _whole("tune", "jobs", jobs, 1, 1024, "dtsim tune --jobs")
    devices = _whole("tune", "devices", devices, 0, 1 << 24, "dtsim tune --devices (0: the scenario's)")
    s = _scenario(scenario)
    if tokens is not None:
        if isinstance(tokens, (str, bytes)) or not isinstance(tokens, Sequence) or len(tokens) != 2:
            raise TypeError(f"tune: tokens={tokens!r}: expected (min, max) tokens a step, as --tokens MIN:MAX takes")
        s = s.copy().set("tune.max_tokens_per_step", tokens[1]).set("tune.min_tokens_per_step", tokens[0])
    return Tuning(_dtsim.tune(s._source, top, screen, jobs, objective, devices))


def models() -> List[Dict[str, Any]]:
    """The model zoo (`dtsim models list`): name, parameters, gflop_per_sample_fwd, input, layers, source."""
    return _dtsim.models()


def kernels(scenario: Scenario | str | os.PathLike | Mapping[str, Any], rank: Optional[int] = None) -> Dict[str, Any]:
    """One rank's kernels and collectives in one iteration, as `dtsim kernels` prints them: scenario, device, rank,
    stage, step_seconds (the analytical engine's mean iteration) and rows, one dict per kernel (name, kind, stream,
    phase, calls, seconds, total_seconds, share_of_step, flops, bytes, shape (m, n, k, batch) or None, causal, waves,
    compute_seconds, memory_seconds, fixed_seconds, bound); pandas.DataFrame(k["rows"]) makes a table of them.
    rank: None for the first worker."""
    r = -1 if rank is None else _whole("kernels", "rank", rank, 0, 1 << 30, "dtsim kernels --rank")
    return _dtsim.kernels(_scenario(scenario)._source, r)


def devices() -> List[Dict[str, Any]]:
    """The device zoo (`dtsim devices`): peaks in FLOP/s (None: no such mode), memory, efficiency figures."""
    return _dtsim.devices()


def keys() -> List[Dict[str, Any]]:
    """The scenario keys (`dtsim keys`): path, type, default, required, doc."""
    return _dtsim.keys()
