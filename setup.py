"""pip's build of the Python package rndnn (pyproject.toml; docs/python.md,
"Installing with pip"): the .py files of python/rndnn, and the extension
rndnn._rndnn built by CMake.

build_ext configures this source tree with CMake into its own build
directory (the libraries and the extension only: no tools, tests,
benchmarks or MPI) for the interpreter that runs pip, builds the target
_rndnn with as many jobs as CMAKE_BUILD_PARALLEL_LEVEL says (default: the
CPU count) and copies the extension into the wheel. The extension links
rndnn's static library, so the wheel holds no other library of rndnn's and
imports from any directory; it needs the system's oneDNN and OpenMP
(scripts/install-deps.sh).

Where CMake found torch's package (libtorch-dev), the target
rndnn_torch_ops (rndnn.torch's C++ operators, rndnn/_torch_ops.so) is
built too and goes into the wheel beside the extension; without it,
rndnn.torch keeps its Python path.

RNDNN_CMAKE_BUILD_DIR=DIR instead builds _rndnn in DIR, an rndnn build
tree already configured for this interpreter (ctest's
Python.PipInstallFromBuildTree does this, so as not to compile the
library a second time).
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

here = os.path.dirname(os.path.abspath(__file__))


def version():
    """project()'s version in CMakeLists.txt, the one version number."""
    with open(os.path.join(here, "CMakeLists.txt")) as f:
        m = re.search(r"project\(rndnn VERSION ([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("no version in CMakeLists.txt's project()")
    return m.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        tree = os.environ.get("RNDNN_CMAKE_BUILD_DIR")
        if not tree:
            tree = os.path.abspath(os.path.join(self.build_temp, "cmake"))
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(
                ["cmake", "-S", here, "-B", tree, *generator,
                 "-DCMAKE_BUILD_TYPE=Release",
                 "-DRNDNN_BUILD_TOOLS=OFF", "-DRNDNN_BUILD_TESTS=OFF",
                 "-DRNDNN_BUILD_BENCHMARKS=OFF", "-DRNDNN_ENABLE_MPI=OFF",
                 "-DRNDNN_BUILD_PYTHON=ON", f"-DRNDNN_PYTHON3={sys.executable}",
                 # A newer compiler's new warning must not stop a user's
                 # install; the project's own builds keep -Werror.
                 "-DRNDNN_WERROR=OFF"],
                check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL",
                              str(os.cpu_count() or 1))
        targets = ["_rndnn"] + (["rndnn_torch_ops"] if has_torch(tree)
                                else [])
        build = subprocess.run(["cmake", "--build", tree, "--target",
                                *targets, "-j", jobs])
        if build.returncode != 0:
            sys.exit(f"rndnn: building the extension in {tree} failed (the "
                     "target _rndnn exists where CMake found pybind11 and "
                     "Python's headers: scripts/install-deps.sh installs "
                     "python3-pybind11 and python3-dev)")
        suffix = ext.name.rpartition(".")[2]
        built = [f for f in os.listdir(os.path.join(tree, "python", "rndnn"))
                 if f.startswith(suffix + ".") and f.endswith(".so")]
        if len(built) != 1:
            sys.exit(f"rndnn: expected one {suffix}*.so in {tree}/python/"
                     f"rndnn, found {built}")
        target = self.get_ext_fullpath(ext.name)
        if not target.endswith(built[0][len(suffix):]):
            sys.exit(f"rndnn: {built[0]} in {tree} was built for another "
                     f"interpreter than {sys.executable} "
                     f"({os.path.basename(target)})")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(tree, "python", "rndnn", built[0]),
                        target)
        if "rndnn_torch_ops" in targets:
            shutil.copyfile(
                os.path.join(tree, "python", "rndnn", "_torch_ops.so"),
                os.path.join(os.path.dirname(target), "_torch_ops.so"))


def has_torch(tree):
    """Whether CMake found torch's package in the build tree @tree (its
    cache's Torch_DIR), so that the target rndnn_torch_ops exists."""
    with open(os.path.join(tree, "CMakeCache.txt")) as f:
        m = re.search(r"^Torch_DIR:PATH=(.*)$", f.read(), re.M)
    return bool(m) and not m.group(1).endswith("NOTFOUND")


setup(
    version=version(),
    packages=["rndnn", "rndnn.torch"],
    package_dir={"": "python"},
    package_data={"rndnn": ["py.typed", "*.pyi"], "rndnn.torch": ["*.pyi"]},
    ext_modules=[Extension("rndnn._rndnn", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build directory apart from CMake's build*/ trees.
    options={"build": {"build_base": "build-pip"}},
    zip_safe=False,
)
