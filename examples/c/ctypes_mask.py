#!/usr/bin/env python3
"""The C API (include/rndnn.h, docs/c_api.md) from Python's ctypes, with no
pybind11 and no compiler: draws the 64 x 1024 bit mask of examples/mask.cpp
(bernoulli(0.9), Philox4x32-10, seed 42) through librndnn.so and, where
the rndnn Python package is importable, checks it against rndnn.bernoulli.

Usage: ctypes_mask.py [PATH_TO_LIBRNDNN_SO]
(default: what ctypes.util.find_library("rndnn") finds: the installed one)
"""
import ctypes
import ctypes.util
import sys

MAX_NDIMS = 8
SUCCESS, BIT, BERNOULLI_AUTO = 0, 9, 2  # rndnn_success, rndnn_bit, ...


class MemoryDesc(ctypes.Structure):
    """rndnn_memory_desc_t."""
    _fields_ = [("ndims", ctypes.c_int),
                ("dims", ctypes.c_int64 * MAX_NDIMS),
                ("strides", ctypes.c_int64 * MAX_NDIMS),
                ("offset0", ctypes.c_int64),
                ("data_type", ctypes.c_int)]


class Distribution(ctypes.Structure):
    """rndnn_distribution_t."""
    _fields_ = [("name", ctypes.c_char_p),
                ("values", ctypes.POINTER(ctypes.c_double)),
                ("nvalues", ctypes.c_int),
                ("integers", ctypes.POINTER(ctypes.c_int64)),
                ("nintegers", ctypes.c_int),
                ("method", ctypes.c_int),
                ("bits", ctypes.c_int)]


def load(path):
    lib = ctypes.CDLL(path)
    lib.rndnn_last_error_message.restype = ctypes.c_char_p
    lib.rndnn_status2str.restype = ctypes.c_char_p
    lib.rndnn_memory_desc_init.argtypes = [
        ctypes.POINTER(MemoryDesc), ctypes.c_int,
        ctypes.POINTER(ctypes.c_int64), ctypes.c_int]
    lib.rndnn_memory_desc_get_size.argtypes = [
        ctypes.POINTER(MemoryDesc), ctypes.POINTER(ctypes.c_size_t)]
    lib.rndnn_rng_create.argtypes = [
        ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p,
        ctypes.POINTER(MemoryDesc), ctypes.POINTER(Distribution)]
    lib.rndnn_rng_execute.argtypes = [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
        ctypes.c_uint64, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
    lib.rndnn_rng_destroy.argtypes = [ctypes.c_void_p]
    return lib


def check(lib, status, call):
    if status != SUCCESS:
        raise RuntimeError("%s: %s: %s" % (
            call, lib.rndnn_status2str(status).decode(),
            lib.rndnn_last_error_message().decode()))


def draw_mask(lib, rows=64, cols=1024, p=0.9, seed=42):
    """The packed bits (bytes) of bernoulli(p) over rows x cols."""
    md = MemoryDesc()
    dims = (ctypes.c_int64 * 2)(rows, cols)
    check(lib, lib.rndnn_memory_desc_init(ctypes.byref(md), 2, dims, BIT),
          "rndnn_memory_desc_init")
    size = ctypes.c_size_t()
    check(lib, lib.rndnn_memory_desc_get_size(ctypes.byref(md),
                                              ctypes.byref(size)),
          "rndnn_memory_desc_get_size")
    value = ctypes.c_double(p)
    dist = Distribution(b"bernoulli", ctypes.pointer(value), 1, None, 0,
                        BERNOULLI_AUTO, 1)
    rng = ctypes.c_void_p()
    check(lib, lib.rndnn_rng_create(ctypes.byref(rng), None, ctypes.byref(md),
                                    ctypes.byref(dist)), "rndnn_rng_create")
    try:
        buf = ctypes.create_string_buffer(size.value)
        next_offset = ctypes.c_int64()
        check(lib, lib.rndnn_rng_execute(rng, buf, seed, 0, 0, 0,
                                         ctypes.byref(next_offset)),
              "rndnn_rng_execute")
        assert next_offset.value == rows * cols, next_offset.value
        return buf.raw
    finally:
        lib.rndnn_rng_destroy(rng)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else ctypes.util.find_library(
        "rndnn")
    if not path:
        sys.exit("librndnn.so not found: pass its path")
    bits = draw_mask(load(path))
    ones = sum(bin(b).count("1") for b in bits)
    print("first byte %02x, %d of %d kept (through the C API)"
          % (bits[0], ones, 64 * 1024))
    try:
        import rndnn
    except ImportError:
        print("(the rndnn package is not importable: not compared)")
        return
    want = rndnn.bernoulli(0.9, (64, 1024), packed=True, seed=42)
    if bytes(want) != bits:
        sys.exit("the C API's mask differs from rndnn.bernoulli's")
    print("== rndnn.bernoulli(0.9, (64, 1024), packed=True, seed=42)")


if __name__ == "__main__":
    main()
