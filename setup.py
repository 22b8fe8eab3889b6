"""Builds the `dtsim` Python module for pip (pyproject.toml): `_dtsim`, its compiled half, by CMake's own target in
the build tree (build/, or $DTSIM_BUILD_DIR: an existing tree is reused and only what changed is rebuilt), then
`dtsim.py` and its types `dtsim.pyi` beside it. Nothing is downloaded: CMake finds Debian's packages as `scripts/setup`
installs them, and pip runs with --no-build-isolation (Debian's setuptools and wheel) and --no-index."""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def build_dir():
    return os.path.abspath(os.environ.get("DTSIM_BUILD_DIR", os.path.join(HERE, "build")))


class CMakeModule(build_ext):
    """_dtsim from CMake's target of that name, copied where the wheel takes it."""

    def build_extension(self, ext):
        tree = build_dir()
        if not os.path.exists(os.path.join(tree, "CMakeCache.txt")):
            subprocess.check_call(["cmake", "-S", HERE, "-B", tree, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                                   f"-DPython3_EXECUTABLE={sys.executable}"])
        jobs = os.environ.get("DTSIM_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", tree, "--target", "_dtsim", "--parallel", jobs])
        built = [f for f in os.listdir(os.path.join(tree, "python")) if f.startswith("_dtsim") and f.endswith(".so")]
        if len(built) != 1:
            raise RuntimeError(f"{tree}/python holds {built or 'no _dtsim module'}: the build did not make one module "
                               "(is it configured without Python? cmake reports 'found: Python module')")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(tree, "python", built[0]), target)


class WithStubs(build_py):
    """dtsim.py, and dtsim.pyi beside it (a single module's types)."""

    def run(self):
        super().run()
        shutil.copyfile(os.path.join(HERE, "python", "dtsim.pyi"), os.path.join(self.build_lib, "dtsim.pyi"))


# setuptools' own files (its build/ and egg-info) go under the CMake tree, not beside the sources.
SETUPTOOLS_DIR = os.path.join(build_dir(), "setuptools")
os.makedirs(SETUPTOOLS_DIR, exist_ok=True)

setup(
    options={"build": {"build_base": SETUPTOOLS_DIR}, "egg_info": {"egg_base": SETUPTOOLS_DIR}},
    package_dir={"": "python"},
    py_modules=["dtsim", "dtsim_layers", "dtsim_torch"],
    ext_modules=[Extension("_dtsim", sources=[])],
    cmdclass={"build_ext": CMakeModule, "build_py": WithStubs},
    zip_safe=False,
)
