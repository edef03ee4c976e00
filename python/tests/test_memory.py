"""New outputs advised for transparent huge pages (docs/python.md, "Speed
against torch"): the 2 MiB-aligned interior of an output of 32 MiB or
more that the package allocates carries MADV_HUGEPAGE (VmFlags "hg" in
/proc/self/smaps) before the kernel first writes it, where that memory is
fresh (not yet in memory); smaller blocks, which malloc's heap gives again,
do not."""
import ctypes
import mmap
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


def fresh_mapping(nbytes):
    """An anonymous mapping of @nbytes, none of it in memory yet, and its
    address."""
    m = mmap.mmap(-1, nbytes)
    return m, ctypes.addressof(ctypes.c_char.from_buffer(m))


def test_advise_returns_the_aligned_interior():
    nbytes = 64 << 20
    m, address = fresh_mapping(nbytes)
    advised = _rndnn.advise_huge_pages(address, nbytes)
    assert advised == ((address + nbytes) & ~(HUGE - 1)) - interior(address)
    assert advised >= nbytes - 2 * HUGE
    assert "hg" in vm_flags(interior(address))
    del m


def test_memory_already_in_use_is_left_alone():
    # Memory already written (a block an allocator gives again) is not
    # advised: the advice would outlive the block.
    nbytes = 64 << 20
    m, address = fresh_mapping(nbytes)
    m[interior(address) - address] = 1  # the interior's first page
    assert _rndnn.advise_huge_pages(address, nbytes) == 0
    assert "hg" not in vm_flags(interior(address))
    del m


def test_small_buffers_are_left_alone():
    # Under 32 MiB malloc's heap gives blocks again, and the advice there
    # slowed the kernel's faults (docs/python.md).
    nbytes = (32 << 20) - 1
    m, address = fresh_mapping(nbytes)
    assert _rndnn.advise_huge_pages(address, nbytes) == 0
    assert "hg" not in vm_flags(interior(address))
    assert _rndnn.advise_huge_pages(0, 0) == 0
    del m


def test_torch_outputs_under_32_mib_are_not_advised():
    x = torch.ones(1 << 22)  # 16 MiB
    y, _ = rndnn.dropout(x, 0.1, seed=1)
    assert "hg" not in vm_flags(interior(y.data_ptr()))


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
    y = rndnn.uniform(size=1 << 23, seed=1)
    assert "hg" in vm_flags(interior(y.ctypes.data))
