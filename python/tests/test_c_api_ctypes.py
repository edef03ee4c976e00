"""The C API (include/rndnn.h) through ctypes: examples/c/ctypes_mask.py
draws a mask from librndnn.so with no pybind11 and it equals
rndnn.bernoulli's. The library: RNDNN_LIBRARY (set by ctest), else the
build tree's, beside the rndnn command of RNDNN_CLI."""
import importlib.util
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import rndnn

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples/c/ctypes_mask.py"


@pytest.fixture(scope="module")
def library():
    path = os.environ.get("RNDNN_LIBRARY") or str(
        pathlib.Path(os.environ["RNDNN_CLI"]).resolve().parents[1]
        / "librndnn.so")
    assert os.path.exists(path), path
    return path


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("ctypes_mask", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_runs_and_agrees(library):
    out = subprocess.run([sys.executable, str(EXAMPLE), library], check=True,
                         capture_output=True, text=True).stdout
    assert "first byte fe, 58908 of 65536 kept" in out, out
    assert "== rndnn.bernoulli" in out, out


@pytest.mark.parametrize("rows,cols,p,seed", [(3, 5, 0.5, 7), (1, 1000, 0.01, -3)])
def test_masks_equal_rndnn_bernoulli(library, example, rows, cols, p, seed):
    bits = example.draw_mask(example.load(library), rows, cols, p, seed)
    want = rndnn.bernoulli(p, (rows, cols), packed=True, seed=seed)
    assert np.array_equal(np.frombuffer(bits, np.uint8), want)


def test_errors_carry_the_cpp_message(library, example):
    with pytest.raises(RuntimeError, match=r"invalid_arguments: .*1\.5"):
        example.draw_mask(example.load(library), 2, 2, 1.5)
