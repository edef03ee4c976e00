"""Attention's softmax and dropout: torch's (torch.softmax, then
F.dropout) against rndnn.torch.softmax_dropout (one fused pass), training
forward and backward, in one process (docs/python.md, "Attention
dropout").

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/bench_attention.py

The scores are f32 [batch, heads, seq, seq] that require grad, as
nn.MultiheadAttention's are; a step is the forward of both and the
backward of a gradient of ones. Only these parts are timed: Debian's torch
multiplies matrices with the reference BLAS, which would hide them. Each
row runs once per round, in an order shuffled each round; the table gives
medians and torch's time over rndnn's, all from this one run, with the CPU
and the load average.
"""
import argparse

import torch
import torch.nn.functional as F

import rndnn
import rndnn.torch as rt
from bench_common import cpu, load, medians


def steps(shape, p):
    """{who: (forward, forward and backward)} of scores of @shape."""
    scores = torch.randn(shape, requires_grad=True)
    ones = torch.ones(shape)

    def theirs():
        return F.dropout(torch.softmax(scores, -1), p, True)

    def ours():
        return rt.softmax_dropout(scores, p, True)

    def backward(forward):
        def run():
            forward().backward(ones)
            scores.grad = None
        return run

    return {"torch": (theirs, backward(theirs)),
            "rndnn": (ours, backward(ours))}


def measure(shape, threads, p, rounds):
    torch.set_num_threads(threads)
    by = steps(shape, p)
    return medians([((who, kind), run) for who, pair in by.items()
                    for kind, run in zip(("forward", "fwd+bwd"), pair)],
                   rounds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shape", type=int, nargs=4,
                        default=[8, 8, 256, 256],
                        help="batch heads seq seq (default 8 8 256 256)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--p", type=float, default=0.1)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    shape = tuple(args.shape)
    print(f"softmax + dropout of f32 scores {'x'.join(map(str, shape))}, "
          f"p={args.p}, medians of {args.rounds} rounds; torch "
          f"{torch.__version__}, rndnn {rndnn.__version__}")
    print(f"CPU: {cpu()}; load average before "
          f"{load()}")
    print(f"{'thr':>3} {'step':<8} {'torch ms':>9} {'rndnn ms':>9} "
          f"{'torch/rndnn':>11}")
    for threads in args.threads:
        median = measure(shape, threads, args.p, args.rounds)
        for kind in ("forward", "fwd+bwd"):
            t, r = median[("torch", kind)], median[("rndnn", kind)]
            print(f"{threads:>3} {kind:<8} {t * 1e3:9.2f} {r * 1e3:9.2f} "
                  f"{t / r:10.1f}x")
    print(f"load average after "
          f"{load()}")


if __name__ == "__main__":
    main()
