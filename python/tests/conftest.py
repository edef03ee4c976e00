"""Shared by the tests: the rndnn command (RNDNN_CLI, set by ctest), whose
files the Python package must equal byte for byte."""
import os
import subprocess

import numpy as np
import pytest


@pytest.fixture
def cli(tmp_path):
    """cli(command, *args, **inputs): runs `rndnn command args` in tmp_path,
    the arrays in inputs saved first as NAME.npy (pass "@NAME" in args for
    the path), and returns the loader of an output: load("y")."""
    def run(command, *args, **inputs):
        for name, array in inputs.items():
            np.save(tmp_path / f"{name}.npy", array)
        args = [str(tmp_path / f"{a[1:]}.npy") if a.startswith("@") else a
                for a in args]
        subprocess.run([os.environ["RNDNN_CLI"], command, *args], check=True)
        return lambda name: np.load(tmp_path / f"{name}.npy")
    return run
