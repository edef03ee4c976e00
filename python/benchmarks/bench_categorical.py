"""Categorical sampling: torch's (torch.multinomial of torch.softmax)
against rndnn.categorical (Gumbel-max, the noise never stored), over a
vocabulary of --vocab words and --elements logits in all (rows =
elements / vocab), in one process (docs/python.md, "Categorical
sampling").

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/bench_categorical.py

The logits are f32 [rows, vocab]. Each row of the table runs once per
round, in an order shuffled each round; the table gives medians and
torch's time over rndnn's, all from this one run, with the CPU and the
load average.
"""
import argparse

import torch

import rndnn
from bench_common import cpu, load, medians


def measure(logits, threads, rounds):
    torch.set_num_threads(threads)
    return medians(
        [("torch", lambda: torch.multinomial(torch.softmax(logits, -1), 1)),
         ("rndnn", lambda: rndnn.categorical(logits, seed=1))], rounds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    rows = max(1, args.elements // args.vocab)
    logits = torch.randn(rows, args.vocab)
    print(f"categorical of f32 logits {rows}x{args.vocab}, medians of "
          f"{args.rounds} rounds; torch {torch.__version__}, rndnn "
          f"{rndnn.__version__}")
    print(f"CPU: {cpu()}; load average before "
          f"{load()}")
    print(f"{'thr':>3} {'torch ms':>9} {'rndnn ms':>9} {'torch/rndnn':>11}")
    for threads in args.threads:
        m = measure(logits, threads, args.rounds)
        print(f"{threads:>3} {m['torch'] * 1e3:9.2f} {m['rndnn'] * 1e3:9.2f} "
              f"{m['torch'] / m['rndnn']:10.1f}x")
    print(f"load average after "
          f"{load()}")


if __name__ == "__main__":
    main()
