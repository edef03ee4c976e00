"""rndnn.torch.Dropout's fixed cost against torch.nn.Dropout's, small
tensors first (docs/python.md, "rndnn.torch in C++"): the C++ operators
(rndnn/_torch_ops.so) and the Python path (what rndnn.torch did before
them, rt._use_ops = False) in one run, side by side with torch.

    PYTHONPATH=build/python /usr/bin/python3 \\
        python/benchmarks/bench_torch_ops.py [--sizes 8 12 16 20]

Rows, for f32 tensors of 2^k elements, p = 0.1, on 1 thread
(torch.set_num_threads(1)): the training forward under torch.no_grad,
the same in place, and forward + y.sum().backward() of an input that
requires grad; then rndnn.torch.MultiheadAttention(64, 4, dropout=0.1)
against torch.nn.MultiheadAttention, training forward + backward at
batch 4, sequence 16. Each figure is the best of --repeats timings of a
loop of calls (about 0.2 s each), in µs a call; the ratios are torch's
time over rndnn's. The header names the CPU and the load average.
"""
import argparse
import time

import torch

import rndnn.torch as rt
from bench_common import cpu, load


def best(run, repeats, budget=0.2):
    """The best time of one call of @run, in µs, over @repeats loops."""
    run()
    n, t = 1, 0.0
    while t < budget / 10:  # a loop of about budget / 10 s at least
        n *= 2
        t0 = time.perf_counter()
        for _ in range(n):
            run()
        t = time.perf_counter() - t0
    n = max(1, int(n * budget / 10 / t))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            run()
        times.append((time.perf_counter() - t0) / n)
    return min(times) * 1e6


def with_path(use_ops, run):
    def call():
        old = rt._use_ops
        rt._use_ops = use_ops
        try:
            run()
        finally:
            rt._use_ops = old
    return call


def dropout_rows(k, repeats):
    n = 1 << k
    theirs, ours = torch.nn.Dropout(0.1), rt.Dropout(0.1)
    theirs_in, ours_in = (torch.nn.Dropout(0.1, inplace=True),
                          rt.Dropout(0.1, inplace=True))
    x = torch.randn(n)
    xi = torch.ones(n)
    xg = torch.randn(n, requires_grad=True)

    def no_grad(m, t):
        def run():
            with torch.no_grad():
                m(t)
        return run

    def backward(m):
        def run():
            m(xg).sum().backward()
        return run

    rows = []
    for name, torch_run, rndnn_run in (
            ("forward, no grad", no_grad(theirs, x), no_grad(ours, x)),
            ("in place, no grad", no_grad(theirs_in, xi),
             no_grad(ours_in, xi)),
            ("forward + backward", backward(theirs), backward(ours))):
        t = best(torch_run, repeats)
        cpp = best(with_path(True, rndnn_run), repeats) if rt._OPS else None
        py = best(with_path(False, rndnn_run), repeats)
        rows.append((f"2^{k}", name, t, py, cpp))
        if name.startswith("in place"):
            xi.fill_(1.0)
    return rows


def attention_row(repeats):
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(64, 4, dropout=0.1)
    ours = rt.MultiheadAttention(64, 4, dropout=0.1)
    ours.load_state_dict(theirs.state_dict())
    q = torch.randn(16, 4, 64, requires_grad=True)

    def run(m):
        def call():
            out, _ = m(q, q, q)
            out.sum().backward()
        return call

    t = best(run(theirs), repeats)
    cpp = best(with_path(True, run(ours)), repeats) if rt._OPS else None
    py = best(with_path(False, run(ours)), repeats)
    return ("b4 s16", "MultiheadAttention(64, 4) fwd + bwd", t, py, cpp)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[8, 12, 16, 20], help="k of 2^k elements")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"# {cpu()}; load {load()}; torch {torch.__version__}, 1 thread; "
          f"C++ operators: {'yes' if rt._OPS else 'no (not built)'}")
    print("| size | row | torch µs | rndnn Python path µs (ratio) | "
          "rndnn C++ µs (ratio) |")
    print("|---|---|---|---|---|")
    rows = []
    for k in args.sizes:
        rows += dropout_rows(k, args.repeats)
    rows.append(attention_row(args.repeats))
    for size, name, t, py, cpp in rows:
        c = "-" if cpp is None else f"{cpp:.1f} ({t / cpp:.2f}x)"
        print(f"| {size} | {name} | {t:.1f} | {py:.1f} ({t / py:.2f}x) | "
              f"{c} |")


if __name__ == "__main__":
    main()
