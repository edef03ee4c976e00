"""rndnn.torch.Dropout against torch.nn.functional.dropout on the CPU, in
one process (docs/python.md, "Speed against torch").

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/bench_torch.py

Every row runs once per round, the rounds interleave the rows (so the
noise of a shared machine spreads over all of them), and the table gives
each row's median and torch's out-of-place dropout time over the row's.
"""
import argparse
import os
import statistics
import time

import torch
import torch.nn.functional as F

import rndnn
import rndnn.torch as rt


def rows(n, p):
    """(name, function) pairs; each function runs the row once."""
    x = torch.randn(n)
    x_inplace = x.clone()
    y = torch.empty_like(x)
    xg = x.clone().requires_grad_()
    dy = torch.randn(n)
    ours = rt.Dropout(p, generator=rndnn.Generator(1))
    ours_none = rt.Dropout(p, mask=None, generator=rndnn.Generator(1))
    ours_inplace = rt.Dropout(p, inplace=True, generator=rndnn.Generator(1))

    def forward_backward(dropout):
        def run():
            xg.grad = None
            dropout(xg).backward(dy)
        return run

    return [
        ("torch F.dropout", lambda: F.dropout(x, p)),
        ("torch F.dropout inplace", lambda: F.dropout(x_inplace, p, inplace=True)),
        ("torch F.dropout fwd+bwd", forward_backward(lambda t: F.dropout(t, p))),
        ("rndnn Dropout (bit mask)", lambda: ours(x)),
        ("rndnn Dropout (no mask)", lambda: ours_none(x)),
        ("rndnn Dropout inplace", lambda: ours_inplace(x_inplace)),
        ("rndnn Dropout fwd+bwd", forward_backward(ours)),
        ("memcpy: y.copy_(x)", lambda: y.copy_(x)),
        ("x.clone() (new memory)", lambda: x.clone()),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--elements", type=int, default=1 << 25)
    parser.add_argument("--p", type=float, default=0.5,
                        help="dropout probability (torch.nn.Dropout's default)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    table = rows(args.elements, args.p)
    times = {name: [] for name, _ in table}
    for _ in range(args.rounds + 1):  # the first round warms up
        for name, run in table:
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t[1:]) for name, t in times.items()}
    base = median["torch F.dropout"]
    print(f"{args.elements} f32, p={args.p}, {args.threads} thread(s), "
          f"medians of {args.rounds}; load average "
          f"{os.getloadavg()[0]:.2f}; LD_PRELOAD={os.environ.get('LD_PRELOAD', '')}")
    print(f"{'row':<28} {'ms':>9} {'torch F.dropout / row':>22}")
    for name, _ in table:
        print(f"{name:<28} {median[name] * 1e3:9.2f} {base / median[name]:21.1f}x")


if __name__ == "__main__":
    main()
