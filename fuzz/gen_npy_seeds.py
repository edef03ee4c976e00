#!/usr/bin/env python3
# Writes the seed corpus of fuzz_npy (fuzz/corpus/fuzz_npy/): small .npy
# files of every dtype rndnn reads, versions 1.0, 2.0 and 3.0, 0-d and empty
# arrays, and a few malformed ones. Plain Python, no NumPy; run it from
# anywhere: python3 fuzz/gen_npy_seeds.py
import os
import struct

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus",
                    "fuzz_npy")


def npy(descr, shape, data, major=1, fortran=False, pad_to=64, dict_=None):
    shape_s = "(" + ",".join(str(d) for d in shape)
    shape_s += ("," if len(shape) == 1 else "") + ")"
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_s)
    if dict_ is not None:  # the header's dict as given
        d = dict_
    len_bytes = 2 if major == 1 else 4
    unpadded = 6 + 2 + len_bytes + len(d) + 1
    d += " " * ((pad_to - unpadded % pad_to) % pad_to) + "\n"
    h = b"\x93NUMPY" + bytes([major, 0])
    h += struct.pack("<H" if major == 1 else "<I", len(d))
    return h + d.encode("latin-1") + data


seeds = {
    "f32_2x3.npy": npy("<f4", (2, 3),
                       struct.pack("<6f", 0, 1, -1, 0.5, 3e38, -2.5)),
    "f16_4.npy": npy("<f2", (4,),
                     struct.pack("<4H", 0x3c00, 0xbc00, 0x7bff, 1)),
    "bf16_2x2.npy": npy("<u2", (2, 2),
                        struct.pack("<4H", 0x3f80, 0xbf80, 0x7f7f, 0)),
    "s8_3.npy": npy("|i1", (3,), bytes([0x80, 0, 0x7f])),
    "u8_mask_v2.npy": npy("|u1", (2,), bytes([0xa5, 0x0f]), major=2),
    "s32_1x2x2.npy": npy("<i4", (1, 2, 2),
                         struct.pack("<4i", -1, 0, 1, 2**31 - 1)),
    "u32_3_v3.npy": npy("<u4", (3,), struct.pack("<3I", 0, 1, 2**32 - 1),
                        major=3),
    "s64_2.npy": npy("<i8", (2,), struct.pack("<2q", -2**63, 2**63 - 1)),
    "f32_0d.npy": npy("<f4", (), struct.pack("<f", 1.5)),
    "f32_empty_0x3.npy": npy("<f4", (0, 3), b""),
    "u8_pad16.npy": npy("|u1", (5,), bytes(range(5)), pad_to=16),
    # Malformed: Fortran order, big-endian, truncated data, bad magic, a
    # header that claims more bytes than the file has, a negative dim.
    "bad_fortran.npy": npy("<f4", (2, 2), bytes(16), fortran=True),
    "bad_big_endian.npy": npy(">f4", (2,), bytes(8)),
    "bad_truncated.npy": npy("<f4", (4,), bytes(10)),
    "bad_magic.npy": b"\x93NUMPX\x01\x00" + npy("<f4", (1,), bytes(4))[8:],
    "bad_huge_shape.npy": npy("<f4", (1 << 20, 1 << 20), bytes(16)),
    "bad_negative_dim.npy": npy("<f4", (2, -1), bytes(8)),
    # No elements, but dense strides past 2^63.
    "bad_stride_overflow.npy": npy("<f4", (0, 1 << 32, 1 << 32), b""),
    # The header grammar: double quotes, any key order, spaces and line
    # breaks; then what NumPy refuses or reads otherwise: duplicated and
    # extra keys, a key inside a string, bytes after the dict, a NUL byte,
    # a minor version, a shape NumPy cannot hold.
    "f16_3x2_double_quotes.npy": npy(None, (), bytes(12), dict_=(
        '{"descr": "<f2", "fortran_order": False, "shape": (3, 2)}')),
    "s8_2x3_spaced.npy": npy(None, (), bytes(6), dict_=(
        "\n{ 'shape' : ( 2 , 3 , ) ,\t'fortran_order':False,\r\n"
        "'descr':'|i1' , }")),
    "bad_duplicate_descr.npy": npy(None, (), bytes(8), dict_=(
        "{'descr': '<f4', 'descr': '<f2', 'fortran_order': False, "
        "'shape': (2,)}")),
    "bad_duplicate_shape.npy": npy(None, (), bytes(16), dict_=(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
        "'shape': (4,)}")),
    "bad_extra_key.npy": npy(None, (), bytes(8), dict_=(
        "{'x': \"'descr': '<f2'\", 'descr': '<f4', 'fortran_order': False, "
        "'shape': (2,)}")),
    "bad_trailing.npy": npy(None, (), bytes(8), dict_=(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x")),
    "bad_nul.npy": npy(None, (), bytes(8), dict_=(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\0")),
    "bad_minor_version.npy": (lambda f: f[:7] + b"\x01" + f[8:])(
        npy("<f4", (2,), bytes(8))),
    "bad_numpy_size.npy": npy("<u4", (0, 2**63 - 1), b""),
}

os.makedirs(here, exist_ok=True)
for name, content in seeds.items():
    with open(os.path.join(here, name), "wb") as f:
        f.write(content)
