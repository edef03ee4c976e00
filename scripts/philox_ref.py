"""Philox4x32-10 and rndnn's word layouts of it in plain Python, written
from the published algorithm (Salmon et al., SC'11), for the known-answer
scripts (scripts/*_known_answers.py): it shares no code with the library,
so the answers they compute check the library from outside."""

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox4x32_10(ctr, key):
    """The four words of Philox4x32-10 at counter @ctr (4 words) under
    @key (2 words)."""
    c, k = list(ctr), list(key)
    for r in range(10):
        if r:
            k = [(k[0] + W0) & MASK, (k[1] + W1) & MASK]
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & MASK,
             (p0 >> 32) ^ c[3] ^ k[1], p0 & MASK]
    return c


def key_of(seed):
    """The key of a seed (read as a u64): its low and high halves."""
    return [seed & MASK, (seed >> 32) & MASK]


def word(alg, seed, stream, i):
    """W(i) of rndnn's layouts of Philox4x32-10 (docs/semantics.md)."""
    if alg == "philox4x32_10":
        n = i // 4
        ctr = [n & MASK, n >> 32, stream & MASK, (stream >> 32) & MASK]
    else:  # philox4x32_10_onednn
        n = i & ~3
        ctr = [stream & MASK, (stream >> 32) & MASK, n & MASK, n >> 32]
    return philox4x32_10(ctr, key_of(seed))[i % 4]
