"""New outputs advised for transparent huge pages (docs/python.md, "Speed
against torch"): the 2 MiB-aligned interior of an output of 4 MiB or more
that the package allocates carries MADV_HUGEPAGE (VmFlags "hg" in
/proc/self/smaps) before the kernel first writes it."""
import os

import numpy as np
import pytest
import torch

import rndnn
from rndnn import _rndnn

HUGE = 1 << 21

pytestmark = pytest.mark.skipif(
    not os.path.exists("/sys/kernel/mm/transparent_hugepage/enabled"),
    reason="no transparent huge pages in this kernel")


def vm_flags(address):
    """The VmFlags of the mapping of /proc/self/smaps holding @address."""
    inside = False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(v, 16) for v in head.split("-"))
                inside = lo <= address < hi
            elif inside and head == "VmFlags:":
                return line.split()[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


def interior(address):
    return (address + HUGE - 1) & ~(HUGE - 1)


def test_advise_returns_the_aligned_interior():
    a = np.empty(16 << 20, np.uint8)
    address = a.ctypes.data
    advised = _rndnn.advise_huge_pages(address, a.nbytes)
    assert advised == ((address + a.nbytes) & ~(HUGE - 1)) - interior(address)
    assert advised >= a.nbytes - 2 * HUGE
    assert "hg" in vm_flags(interior(address))


def test_small_buffers_are_left_alone():
    a = np.empty((4 << 20) - 1, np.uint8)
    assert _rndnn.advise_huge_pages(a.ctypes.data, a.nbytes) == 0
    assert _rndnn.advise_huge_pages(0, 0) == 0


def test_torch_dropout_output_is_advised():
    # 2^24 f32 (64 MiB): glibc maps each such block afresh, without the
    # advice unless rndnn gives it; the values are dropout's all the same.
    x = torch.ones(1 << 24)
    y, _ = rndnn.dropout(x, 0.1, seed=1)
    assert "hg" in vm_flags(interior(y.data_ptr()))
    assert "hg" not in vm_flags(interior(x.data_ptr()))
    kept = int((y != 0).sum())
    assert 0.89 * y.numel() < kept < 0.91 * y.numel()
    assert torch.allclose(y[y != 0], torch.tensor(1 / 0.9))


def test_torch_backward_output_is_advised():
    # rndnn.torch's backward allocates dx so.
    dy = torch.ones(1 << 23)
    dx = rndnn.dropout_backward(dy, 0.5, seed=3)
    assert "hg" in vm_flags(interior(dx.data_ptr()))


def test_numpy_outputs_are_advised_by_numpy():
    y = rndnn.uniform(1 << 23, seed=1)
    assert "hg" in vm_flags(interior(y.ctypes.data))
