"""rndnn.torch.Dropout against torch.nn.Dropout on the CPU, in one process
(docs/python.md, "Speed against torch").

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/bench_torch.py

For each thread count and f32 size (by default 2^22, 2^24 and 2^25
elements on 1 and 2 threads), the training forward of both modules out of
place (a new output each call, from the allocator the process has: glibc's
malloc unless LD_PRELOAD says otherwise) and in place; rndnn's out of
place once more without the huge-page advice of its new outputs (what it
was before: rndnn._rndnn.advise_huge_pages replaced by a function that
advises nothing), and a copy into new memory (x.clone()), the floor of any
new output that is not advised. Every row runs once
per round, in an order shuffled each round (so the noise of a shared
machine, and what one row leaves in the heap for the next, spread over
all of them), and the table gives each row's median
and torch's time over rndnn's in the same mode, all from this one run.
The header names the CPU, the load average and LD_PRELOAD.
"""
import argparse
import os

import torch

import rndnn
import rndnn.torch as rt
from rndnn import _rndnn
from bench_common import cpu, load, medians

advise_huge_pages = _rndnn.advise_huge_pages


def unadvised(run):
    """@run with rndnn's new outputs left unadvised: on rndnn.torch's
    Python path (the C++ operators advise in C++)."""
    def call():
        _rndnn.advise_huge_pages = lambda address, nbytes: 0
        use_ops, rt._use_ops = rt._use_ops, False
        try:
            run()
        finally:
            _rndnn.advise_huge_pages = advise_huge_pages
            rt._use_ops = use_ops
    return call


def cases(n, p):
    """(mode, {"torch": run, "rndnn": run}, clone run) of @n elements; each
    run is one call of the module."""
    x = torch.randn(n)
    x_inplace = x.clone()
    theirs = torch.nn.Dropout(p)
    theirs_inplace = torch.nn.Dropout(p, inplace=True)
    ours = rt.Dropout(p)
    ours_inplace = rt.Dropout(p, inplace=True)
    # In place the same tensor is dropped again and again: each kept value
    # grows by 1 / (1 - p) a call, so it starts at 1 and is refilled each
    # round (outside the timing) before it can overflow.
    x_inplace.fill_(1.0)
    return [
        ("out of place", {"torch": lambda: theirs(x),
                          "rndnn": lambda: ours(x),
                          "rndnn, no advice": unadvised(lambda: ours(x))}),
        ("in place", {"torch": lambda: theirs_inplace(x_inplace),
                      "rndnn": lambda: ours_inplace(x_inplace)}),
        ("x.clone()", {"torch": lambda: x.clone()}),
    ], x_inplace


def measure(n, threads, p, rounds):
    """{(mode, who): median seconds} of @rounds rounds after one warm-up;
    the in-place tensor refilled before each round. The rows in another
    order each round: a row's time depends on what the one before it left
    in malloc's heap (after torch's out of place, which frees its output
    and its mask, glibc trims the heap and the next new output faults its
    pages again), so no row always comes after the same one."""
    torch.set_num_threads(threads)
    table, x_inplace = cases(n, p)
    runs = [((mode, who), run) for mode, by in table for who, run in by.items()]
    return medians(runs, rounds, lambda: x_inplace.fill_(1.0))


def log2(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--elements", type=int, nargs="+",
                        default=[1 << 22, 1 << 24, 1 << 25])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--p", type=float, default=0.1,
                        help="dropout probability (default 0.1)")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"torch.nn.Dropout against rndnn.torch.Dropout, training forward, "
          f"f32, p={args.p}, medians of {args.rounds} rounds; "
          f"torch {torch.__version__}, rndnn {rndnn.__version__}")
    print(f"CPU: {cpu()}; load average before "
          f"{load()}; "
          f"LD_PRELOAD={os.environ.get('LD_PRELOAD', '') or '(none)'}")
    print(f"{'elements':>8} {'thr':>3} {'mode':<12} {'torch ms':>9} "
          f"{'rndnn ms':>9} {'torch/rndnn':>11}")
    for threads in args.threads:
        for n in args.elements:
            median = measure(n, threads, args.p, args.rounds)
            for mode in ("out of place", "in place"):
                t, r = median[(mode, "torch")], median[(mode, "rndnn")]
                print(f"{log2(n):>8} {threads:>3} {mode:<12} {t * 1e3:9.2f} "
                      f"{r * 1e3:9.2f} {t / r:10.1f}x")
            t = median[("out of place", "torch")]
            r = median[("out of place", "rndnn, no advice")]
            print(f"{log2(n):>8} {threads:>3} {'(no advice)':<12} "
                  f"{'':>9} {r * 1e3:9.2f} {t / r:10.1f}x")
            print(f"{log2(n):>8} {threads:>3} {'x.clone()':<12} "
                  f"{median[('x.clone()', 'torch')] * 1e3:9.2f}")
    print(f"load average after "
          f"{load()}")


if __name__ == "__main__":
    main()
