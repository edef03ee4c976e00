"""examples/torch_parallel.py under torch.distributed.run (gloo) on 1, 2
(tp2, dp2) and 4 (tp2 x dp2) processes: the initial weights and every
step's dropout masks equal the one-process ones bit for bit; the losses
and final weights agree within the rounding of the all-reduces' order; a
checkpoint of 1 process resumed on 4 continues its masks exactly."""
import os
import pathlib
import signal
import socket
import subprocess
import sys

import numpy as np
import pytest
import torch.distributed as dist

if not (dist.is_available() and dist.is_gloo_available()):
    pytest.skip("torch.distributed with the gloo backend is unavailable",
                allow_module_level=True)

EXAMPLE = (pathlib.Path(__file__).resolve().parents[2] / "examples" /
           "torch_parallel.py")
# Tolerances, relative: the sums of partial products over the tensor
# ranks and of gradients over the data groups round in another order than
# one process's matmuls (measured on AMD EPYC Zen 5: 2.4e-7 of a weight's
# largest magnitude, 1.1e-7 of the loss, after 3 steps).
RTOL_WEIGHTS = 1e-5
RTOL_LOSS = 1e-5


def free_port():
    """A TCP port of localhost that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def launcher():
    """torch.distributed.run's command line: one node, its rendezvous on a
    free port (--standalone's is always 29400, so two runs at once, as two
    test suites on one machine, collide: "Address already in use"). torch
    1.13's launcher under Python 3.11 reads its default --redirects and
    --tee ("0") as None (enum.Flag no longer lists the 0 member) and fails:
    a mapping naming no local rank of ours means "none" as well."""
    from torch.distributed.elastic.multiprocessing.api import Std
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes=1",
           "--rdzv_backend=c10d", f"--rdzv_endpoint=localhost:{free_port()}",
           "--monitor_interval", "0.2"]
    if Std.from_str("0") is None:
        cmd += ["--redirects", "9:1", "--tee", "9:1"]
    return cmd


def run(k, *args, timeout=120):
    """The example on @k processes. A rank that fails fails the test (the
    launcher stops the others); a run past @timeout is killed, launcher
    and ranks, as the process group it leads."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.Popen(launcher() + [f"--nproc_per_node={k}",
                                       str(EXAMPLE), *map(str, args)],
                         env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        pytest.fail(f"the example on {k} processes ran past {timeout} s:\n"
                    + out)
    assert p.returncode == 0, out
    return out


LAYOUTS = {"tp2": (2, ["--tp", 2]), "dp2": (2, ["--tp", 1]),
           "tp2dp2": (4, ["--tp", 2])}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{name: the directory of its dump}: one process, the three layouts,
    and 2 steps on one process resumed on 4 for a third."""
    tmp = tmp_path_factory.mktemp("parallel")
    out = {}
    run(1, "--steps", 3, "--dump", tmp / "w1")
    out["w1"] = tmp / "w1"
    for name, (k, args) in LAYOUTS.items():
        run(k, *args, "--steps", 3, "--dump", tmp / name)
        out[name] = tmp / name
    ckpt = tmp / "two_steps.pt"
    run(1, "--steps", 2, "--save", ckpt)
    run(4, "--tp", 2, "--steps", 3, "--resume", ckpt, "--dump",
        tmp / "resumed")
    out["resumed"] = tmp / "resumed"
    return out


def load(d, name):
    return dict(np.load(d / f"{name}.npz"))


def assert_weights_close(got, ref):
    assert set(got) == set(ref)
    for name in ref:
        scale = np.abs(ref[name]).max()
        assert np.abs(got[name] - ref[name]).max() <= RTOL_WEIGHTS * scale, \
            name


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_initial_weights_and_masks_are_one_processs(runs, layout):
    for what in ("init", "masks"):
        ref, got = load(runs["w1"], what), load(runs[layout], what)
        assert set(got) == set(ref) and ref
        for name in ref:
            assert np.array_equal(got[name], ref[name]), (what, name)
    masks = load(runs["w1"], "masks")
    assert masks["step0_attn"].shape == (4, 4, 8, 8)
    assert masks["step2_drop2"].shape == (4, 8, 16)
    # Masks that differ step to step and keep about 1 - p = 0.8.
    assert not np.array_equal(masks["step0_drop1"], masks["step1_drop1"])
    assert 0.7 < np.mean([m.mean() for m in masks.values()]) < 0.9


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_losses_and_final_weights_agree_within_rounding(runs, layout):
    ref = np.load(runs["w1"] / "losses.npy")
    got = np.load(runs[layout] / "losses.npy")
    assert np.array_equal(got[:, 0], [0, 1, 2])
    np.testing.assert_allclose(got[:, 1], ref[:, 1], rtol=RTOL_LOSS)
    final, init = load(runs[layout], "final"), load(runs["w1"], "init")
    assert_weights_close(final, load(runs["w1"], "final"))
    assert not np.array_equal(final["wq"], init["wq"])  # it trained


def test_a_checkpoint_resumes_on_another_world_size(runs):
    masks = load(runs["resumed"], "masks")
    ref = load(runs["w1"], "masks")
    assert sorted(masks) == ["step2_attn", "step2_drop1", "step2_drop2"]
    for name in masks:
        assert np.array_equal(masks[name], ref[name]), name
    losses = np.load(runs["resumed"] / "losses.npy")
    assert losses[:, 0].tolist() == [2]
    np.testing.assert_allclose(losses[:, 1],
                               np.load(runs["w1"] / "losses.npy")[2:, 1],
                               rtol=RTOL_LOSS)
    assert_weights_close(load(runs["resumed"], "final"),
                         load(runs["w1"], "final"))


def test_a_layout_that_does_not_divide_is_named():
    r = subprocess.run([sys.executable, str(EXAMPLE), "--tp", "3"],
                       env=dict(os.environ, WORLD_SIZE="2"),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "--tp 3 does not divide the world size 2" in r.stderr
    r = subprocess.run([sys.executable, str(EXAMPLE), "--tp", "2",
                        "--heads", "3", "--hidden", "12"],
                       env=dict(os.environ, WORLD_SIZE="2"),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "--heads 3 is not a multiple of --tp 2" in r.stderr
