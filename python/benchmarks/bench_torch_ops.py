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
batch 4, sequence 16. Each figure is the best time of a
window of calls, windows of every row's variants taken in turns (--repeats
rounds), in µs a call; the ratios are torch's time over rndnn's. The
attention's Python path runs in a second process (RNDNN_TORCH_OPS=0),
scaled by torch's time there against here. The header names the CPU and
the load average.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import torch

import rndnn.torch as rt
from bench_common import cpu, load


def best(runs, rounds, window=0.005):
    """{name: the best time of one call, in µs} of the callables @runs,
    timed in turns: @rounds rounds, each timing every run over a window of
    about @window s (the same call count for all in a round), so that a
    shared machine's load, which comes and goes, weighs on all alike and
    the best windows are the quiet ones."""
    for run in runs.values():
        run()
    counts = {}
    for name, run in runs.items():
        n, t = 1, 0.0
        while t < window:
            n *= 2
            t0 = time.perf_counter()
            for _ in range(n):
                run()
            t = time.perf_counter() - t0
        counts[name] = max(1, int(n * window / t))
    out = {name: float("inf") for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            n = counts[name]
            t0 = time.perf_counter()
            for _ in range(n):
                run()
            out[name] = min(out[name], (time.perf_counter() - t0) / n)
    return {name: t * 1e6 for name, t in out.items()}


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
        runs = {"torch": torch_run, "python": with_path(False, rndnn_run)}
        if rt._OPS:
            runs["cpp"] = with_path(True, rndnn_run)
        t = best(runs, repeats)
        rows.append((f"2^{k}", name, t["torch"], t["python"], t.get("cpp")))
        if name.startswith("in place"):
            xi.fill_(1.0)
    return rows


def attention_times(repeats):
    """{torch, rndnn}: MultiheadAttention's training forward + backward,
    µs, in this process (rndnn's path: the C++ operators where loaded)."""
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

    return best({"torch": run(theirs), "rndnn": run(ours)}, repeats,
                window=0.02)


def attention_row(repeats):
    """The attention row: torch and the C++ path here; the Python path in
    a process without the C++ operators (RNDNN_TORCH_OPS=0: the attention's
    softmax-dropout operator is called from TorchScript, which the
    in-process switch does not reach), with torch timed there again."""
    here = attention_times(repeats)
    py = None
    if rt._OPS:
        out = subprocess.run(
            [sys.executable, __file__, "--attention-only", "--repeats",
             str(repeats)], env=dict(os.environ, RNDNN_TORCH_OPS="0"),
            check=True, capture_output=True, text=True).stdout
        there = json.loads(out)
        # The Python path's time, scaled to this process's torch time.
        py = there["rndnn"] * here["torch"] / there["torch"]
    else:
        py = here["rndnn"]
    return ("b4 s16", "MultiheadAttention(64, 4) fwd + bwd", here["torch"],
            py, here["rndnn"] if rt._OPS else None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[8, 12, 16, 20], help="k of 2^k elements")
    parser.add_argument("--repeats", type=int, default=200,
                        help="rounds of timing windows")
    parser.add_argument("--attention-only", action="store_true",
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.attention_only:
        print(json.dumps(attention_times(args.repeats)))
        return
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
