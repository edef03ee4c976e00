#!/usr/bin/env bash
# `pip install` of the Python package (pyproject.toml, setup.py;
# docs/python.md, "Installing with pip"), offline, as a user runs it: the
# source tree copied into a temporary directory, a fresh virtual
# environment over Debian's packages (--system-site-packages: NumPy and
# torch), then rndnn imported and run from an empty directory. The wheel
# must hold the extension and the .py files, and the extension no
# library of rndnn's nor a run path (it links the static library).
# Usage: check_pip.sh SOURCE_DIR
#          README's command, `pip install --no-build-isolation .`, in the
#          copy: setup.py configures and builds the extension with CMake
#          (minutes: the library is compiled);
#        check_pip.sh --build-tree BUILD_DIR SOURCE_DIR
#          `pip wheel`, then `pip install` of that wheel, the extension
#          built in BUILD_DIR, a tree already configured and built for
#          /usr/bin/python3 (RNDNN_CMAKE_BUILD_DIR; ctest
#          Python.PipInstallFromBuildTree).
# Writes nothing outside its temporary directory (pip's cache and temporary
# files included).
set -euo pipefail
tree=
if [ "$1" = --build-tree ]; then tree=$(cd "$2" && pwd); shift 2; fi
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp PIP_CACHE_DIR=$tmp/pip-cache PIP_NO_INDEX=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1 \
    XDG_CONFIG_HOME=$tmp/config

# The working tree as it is (uncommitted changes included), without git's
# directory and build trees.
mkdir "$tmp/src"
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude='*.egg-info' \
    -cf - . | tar -C "$tmp/src" -xf -
/usr/bin/python3 -m venv --system-site-packages "$tmp/v"
pip=("$tmp/v/bin/python3" -m pip)

if [ -n "$tree" ]; then
    echo "--- pip wheel (extension from $tree), pip install of the wheel"
    RNDNN_CMAKE_BUILD_DIR=$tree "${pip[@]}" wheel --no-build-isolation \
        --no-deps -w "$tmp/wheels" "$tmp/src" > "$tmp/pip.log" 2>&1 \
        || { cat "$tmp/pip.log"; exit 1; }
    wheel=$(ls "$tmp"/wheels/rndnn-*.whl)
    "${pip[@]}" install "$wheel" > "$tmp/pip.log" 2>&1 \
        || { cat "$tmp/pip.log"; exit 1; }
else
    echo "--- pip install --no-build-isolation . (setup.py runs CMake)"
    (cd "$tmp/src" && CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)} \
        "${pip[@]}" install --no-build-isolation . > "$tmp/pip.log" 2>&1) \
        || { cat "$tmp/pip.log"; exit 1; }
    wheel=
fi

mkdir "$tmp/empty"
cd "$tmp/empty"
# rndnn.torch's C++ operators are expected where the build tree has them,
# or, building from source, where CMake finds Debian's torch package.
expect_ops=0
if [ -n "$tree" ]; then
    [ -f "$tree/python/rndnn/_torch_ops.so" ] && expect_ops=1
elif [ -f /usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake ]; then
    expect_ops=1
fi
export RNDNN_EXPECT_TORCH_OPS=$expect_ops
"$tmp/v/bin/python3" - "$tmp/v" "$wheel" <<'PY'
import glob
import os
import subprocess
import sys
import sysconfig
import zipfile

venv, wheel = sys.argv[1], sys.argv[2]
import numpy as np
import torch

import rndnn
import rndnn.torch

site = sysconfig.get_paths()["purelib"]
assert site.startswith(venv) and rndnn.__file__.startswith(site), \
    (rndnn.__file__, site)
ext = glob.glob(os.path.join(os.path.dirname(rndnn.__file__), "_rndnn.*.so"))
assert len(ext) == 1 and ext[0].endswith(sysconfig.get_config_var("EXT_SUFFIX")), ext
# Statically linked: no librndnn.so needed, no run path into a build tree.
dyn = subprocess.run(["readelf", "-d", ext[0]], capture_output=True,
                     text=True, check=True).stdout
assert "librndnn" not in dyn and "RPATH" not in dyn and "RUNPATH" not in dyn, dyn
if wheel:
    names = zipfile.ZipFile(wheel).namelist()
    for f in ("rndnn/__init__.py", "rndnn/_arrays.py",
              "rndnn/torch/__init__.py", "rndnn/torch/init.py",
              "rndnn/torch/__init__.pyi", "rndnn/torch/init.pyi"):
        assert f in names, names
    assert [n for n in names if n.startswith("rndnn/_rndnn.") and n.endswith(".so")], names
    assert "-cp%d%d-" % sys.version_info[:2] in os.path.basename(wheel), wheel
# Its version is the project's.
from importlib.metadata import version
assert version("rndnn") == rndnn.__version__, (version("rndnn"), rndnn.__version__)
r = rndnn.dropout(np.ones(10000, np.float32), 0.5, seed=1)
y = r[0] if isinstance(r, tuple) else r
assert 4500 < int((y == 0).sum()) < 5500, y
out = rndnn.torch.Dropout(0.5)(torch.ones(10000))
assert 4500 < int((out == 0).sum()) < 5500, out
import rndnn.torch.init
assert rndnn.torch.init.normal_(torch.zeros(100)).abs().sum() > 0
# rndnn.torch's C++ operators, where this build has them: in the wheel,
# loaded, with no run path either.
ops = os.path.join(os.path.dirname(rndnn.__file__), "_torch_ops.so")
if os.environ.get("RNDNN_EXPECT_TORCH_OPS") == "1":
    assert os.path.exists(ops), ops
if os.path.exists(ops):
    assert rndnn.torch._OPS, ops
    dyn = subprocess.run(["readelf", "-d", ops], capture_output=True,
                         text=True, check=True).stdout
    assert "librndnn" not in dyn and "RPATH" not in dyn \
        and "RUNPATH" not in dyn, dyn
    if wheel:
        assert "rndnn/_torch_ops.so" in names, names
print("rndnn", rndnn.__version__, "from", rndnn.__file__)
PY
"$tmp/v/bin/python3" -m pip uninstall -y rndnn > /dev/null
if "$tmp/v/bin/python3" -c 'import rndnn' 2>/dev/null; then
    echo "FAIL: rndnn still imports after pip uninstall"; exit 1
fi
echo "pip install: OK"
