# python/dtsim.pyi describes the module as built: every public name, and every method of each class.
import ast

import dtsim
from conftest import ROOT


def stub_names():
    tree = ast.parse((ROOT / "python/dtsim.pyi").read_text())
    names, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)} | {
                n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
    return names, members


def test_stubs_name_every_public_name_and_member():
    names, members = stub_names()
    assert names == set(dtsim.__all__)
    quickstart = dtsim.load(ROOT / "scenarios/quickstart.yaml")
    try:
        dtsim.load(ROOT / "scenarios")
    except dtsim.ScenarioError as e:
        error = e
    result = dtsim.run(quickstart, engine="analytical", trace=False)
    instances = {
        "ScenarioError": error, "DoesNotFit": dtsim.DoesNotFit("x", result), "Scenario": quickstart, "Record": result, "Result": result,
        "Table": dtsim.sweep(quickstart, {"cluster.nodes": [1]}, engine="analytical"),
        "Tuning": dtsim.tune(ROOT / "scenarios/hybrid_pipeline_cpu.yaml", top=0),
    }
    assert set(members) == set(instances)
    for cls, attrs in members.items():
        assert isinstance(instances[cls], getattr(dtsim, cls))
        for attr in attrs - {"__init__"}:
            assert hasattr(instances[cls], attr), (cls, attr)
