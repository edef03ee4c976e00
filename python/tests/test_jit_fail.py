"""RNDNN_JIT_FAIL=1, the hook that makes the generation of every JIT kernel
fail (as a W^X policy that refuses executable memory would): the package
still draws and drops out, with the same bytes, raising nothing; each JIT
kernel that served without the hook declines, saying why (RNDNN_VERBOSE),
and none of rndnn's serves. Where none served (a CPU without JIT tiers),
nothing changes. Each run is a fresh interpreter: the library reads the
variables once."""
import os
import subprocess
import sys

import numpy as np

import rndnn

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(rndnn.__file__)))

DRAW = """
import sys
import numpy as np
import rndnn
x = rndnn.uniform(low=-2.0, high=2.0, size=(4, 1001), seed=3, dtype="f32")
h = rndnn.normal(size=(4, 1001), seed=4, dtype="bf16")
out = {
    "uniform": rndnn.uniform(low=-1.0, high=3.0, size=(3, 1000), seed=5,
                             dtype="f32"),
    "normal_bf16": h,
    "bits": rndnn.bits(size=(3, 333), seed=6, alg="threefry4x32_20"),
    "bernoulli": rndnn.bernoulli(0.3, size=(3, 1000), seed=7, packed=True),
}
for name, src in (("f32", x), ("bf16", h)):
    for mask in ("bit", "u8", None):
        y, m = rndnn.dropout(src, 0.3, seed=8, offset=5, mask=mask)
        out[f"y_{name}_{mask}"] = y
        if m is not None:
            out[f"m_{name}_{mask}"] = m
            out[f"dx_{name}_{mask}"] = rndnn.dropout_backward(
                src, 0.3, mask=m)
        out[f"dxr_{name}_{mask}"] = rndnn.dropout_backward(
            src, 0.3, seed=8, offset=5)
np.savez(sys.argv[1], **out)
"""

REASON = "declined: code generation failed: can't protect " \
         "(RNDNN_JIT_FAIL is set)"


def draw(tmp_path, name, **env):
    """Runs DRAW in a fresh interpreter with env; returns its arrays and
    its verbose lines (stdout and stderr, wherever they go)."""
    env = dict(os.environ, PYTHONPATH=PACKAGE, RNDNN_VERBOSE="dispatch",
               **env)
    path = tmp_path / f"{name}.npz"
    run = subprocess.run([sys.executable, "-c", DRAW, str(path)],
                         cwd=tmp_path, env=env, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    return arrays, run.stdout + run.stderr


def rndnn_jit(lines):
    """The JIT kernels of rndnn's that the creation lines name ("jit:avx2",
    "fused:jit:avx2", ...; not oneDNN's own, "onednn:jit:...")."""
    names = set()
    for line in lines.splitlines():
        if not line.startswith("rndnn_verbose,create,"):
            continue
        for part in line.split(",")[2].split("+"):
            if "jit:" in part and not part.startswith("onednn:"):
                names.add(part)
    return names


def test_jit_fail_declines_to_the_next_implementation(tmp_path):
    want, plain = draw(tmp_path, "plain")
    got, hooked = draw(tmp_path, "hooked", RNDNN_JIT_FAIL="1")
    assert sorted(got) == sorted(want)
    for name, array in want.items():
        assert got[name].dtype == array.dtype, name
        assert got[name].tobytes() == array.tobytes(), name
    assert "rndnn_verbose,create," in hooked
    assert not rndnn_jit(hooked), hooked
    if rndnn_jit(plain):
        assert REASON in hooked, hooked
    else:
        assert "code generation failed" not in hooked, hooked
