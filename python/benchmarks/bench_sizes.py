"""rndnn against NumPy's Generator and torch at every size from 2^4 to 2^24
elements, on 1 and 2 threads (docs/python.md and docs/performance.md,
"Small tensors").

    OMP_WAIT_POLICY=passive PYTHONPATH=build/python /usr/bin/python3 \\
        python/benchmarks/bench_sizes.py --csv bench_sizes.csv \\
        --plot docs/bench_sizes.png --markdown
    # the summary, tables and plot again from the CSV, measuring nothing:
    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/bench_sizes.py \\
        --from-csv bench_sizes.csv --markdown --plot docs/bench_sizes.png

Rows (ROWS below), each against its baseline, with the same dtype on both
sides: the array functions rndnn.uniform, normal, integers, bernoulli and
dropout against NumPy's Generator(PCG64) (float32 where NumPy has it: its
random and standard_normal take dtype=float32; integers are int64 on both
sides, bernoulli bool on both sides, dropout float32 with its mask), and
rndnn.torch.Dropout (forward on a tensor that does not require grad,
forward + backward by torch.autograd.grad, and in place),
rndnn.torch.softmax_dropout (forward, forward + backward; scores of
shape (n / L, L), L = min(n, 256)) and rndnn.torch.init.normal_ against
torch's own, all float32, p = 0.1. Only the public API is called; rndnn's
values come from its default generator (no seed=), as NumPy's from one
Generator that moves on.

Timing: for each thread count, every size's rows, both sides of each,
run once per round in an order shuffled each round (bench_common.medians;
all sizes in the same rounds, so that a burst of load on a shared machine
falls on one round of many rows rather than on every round of one size),
the median of --rounds rounds after a warm-up round. Each side's run is
a loop of k calls, k chosen before the rounds so that one run lasts about
--round-ms (k = 1 for calls longer than that), and the time per call is
the run's median over k. rndnn-speedup = baseline time / rndnn time, so
above 1 rndnn is faster.

Threads: torch.set_num_threads(t) in this process, once before each
thread count's rounds (not inside them: torch 1.13's set_num_threads
takes about 25 ms a call, even to the count it already has). It sets
OpenMP's thread count, which torch's operators and rndnn's kernels share
(both use libgomp's ICV of the calling thread); the header of each
thread count checks it where /proc is there: the CPU time of threads
other than the main one during large calls of rndnn and of torch (both
must be nonzero above 1 thread, zero at 1). NumPy's Generator is
single-threaded: its times do not depend on the thread count.

OMP_WAIT_POLICY: as the environment gives it (the header prints it). On a
machine whose cores other processes share, run with
OMP_WAIT_POLICY=passive: with libgomp's default, which spins in its
barriers, a parallel region there can wait a scheduler slice for a thread
that is not running (~8 ms a call instead of 0.2, for rndnn's and
torch's parallel kernels alike).

Output: a table on stdout (µs per call of each side and the speedup),
then where rndnn pays off (the smallest size from which it is at least
as fast at every larger size) per row and thread count, and rndnn's own
1-thread time over its 2-thread time (from the two thread counts'
blocks of this run, not interleaved); --csv PATH the rows (function,
variant, threads, elements, rndnn_us, baseline_us, ratio, cpu);
--plot PATH a PNG (matplotlib, Agg) of the speedup against size, one
panel per thread count (and one of rndnn's 1-thread time over its
2-thread time); --markdown the tables of the docs; --from-csv PATH
those and the plot from a CSV written before. --quick: one
round of about 1 ms runs, every other power of two. --smoke-test: the
ctest check (a tiny range into a temporary directory, every CSV row
checked).
"""
import argparse
import csv
import math
import os
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

import rndnn
import rndnn.torch as rt
from bench_common import cpu, load, medians

P = 0.1              # dropout's p
BERNOULLI_P = 0.5    # bernoulli's probability of a one
SOFTMAX_LAST = 256   # softmax_dropout's last dim (fewer when n is smaller)
F32 = np.float32

# (function, variant, baseline): every row, in the tables' order.
ROWS = [
    ("uniform", "f32", "Generator.random(n, dtype=float32)"),
    ("normal", "f32", "Generator.standard_normal(n, dtype=float32)"),
    ("integers", "int64 [0, 1000)", "Generator.integers(0, 1000, n)"),
    ("bernoulli", "bool p=0.5",
     "Generator.random(n, dtype=float32) < 0.5"),
    ("dropout", "f32 p=0.1",
     "keep = Generator.random(n, dtype=float32) >= p; "
     "y = x * keep * float32(1 / (1 - p))"),
    ("torch.Dropout", "forward", "torch.nn.Dropout(0.1)(x)"),
    ("torch.Dropout", "forward+backward",
     "autograd.grad(torch.nn.Dropout(0.1)(x), x, dy)"),
    ("torch.Dropout", "in place", "torch.nn.Dropout(0.1, inplace=True)(x)"),
    ("softmax_dropout", "forward", "F.dropout(F.softmax(x, -1), 0.1)"),
    ("softmax_dropout", "forward+backward",
     "autograd.grad(F.dropout(F.softmax(x, -1), 0.1), x, dy)"),
    ("init.normal_", "f32", "torch.nn.init.normal_(t)"),
]


def row_name(function, variant):
    return f"{function} {variant}"


def cases(n, wanted):
    """([(row, {"rndnn": call, "baseline": call})], refill): each call is
    one call of n elements; refill, run before each round, resets the
    in-place tensor (each call scales its kept values by 1 / (1 - p))."""
    g = np.random.default_rng(1)
    x_np = g.standard_normal(n, dtype=F32)
    scale = F32(1.0 / (1.0 - P))
    x = torch.randn(n)
    x_grad = torch.randn(n, requires_grad=True)
    dy = torch.randn(n)
    x_inplace = torch.ones(n)
    last = min(n, SOFTMAX_LAST)
    scores = torch.randn(n // last, last)
    scores_grad = torch.randn(n // last, last, requires_grad=True)
    dscores = torch.randn(n // last, last)
    t = torch.empty(n)
    ours, theirs = rt.Dropout(P), torch.nn.Dropout(P)
    ours_inplace = rt.Dropout(P, inplace=True)
    theirs_inplace = torch.nn.Dropout(P, inplace=True)

    def numpy_dropout():
        keep = g.random(n, dtype=F32) >= P
        return x_np * keep * scale, keep

    calls = {
        ("uniform", "f32"): (
            lambda: rndnn.uniform(0.0, 1.0, size=n, dtype=F32),
            lambda: g.random(n, dtype=F32)),
        ("normal", "f32"): (
            lambda: rndnn.normal(0.0, 1.0, size=n, dtype=F32),
            lambda: g.standard_normal(n, dtype=F32)),
        ("integers", "int64 [0, 1000)"): (
            lambda: rndnn.integers(0, 1000, size=n, dtype=np.int64),
            lambda: g.integers(0, 1000, n, dtype=np.int64)),
        ("bernoulli", "bool p=0.5"): (
            lambda: rndnn.bernoulli(BERNOULLI_P, size=n, dtype=np.bool_),
            lambda: g.random(n, dtype=F32) < BERNOULLI_P),
        ("dropout", "f32 p=0.1"): (
            lambda: rndnn.dropout(x_np, P),
            numpy_dropout),
        ("torch.Dropout", "forward"): (
            lambda: ours(x),
            lambda: theirs(x)),
        ("torch.Dropout", "forward+backward"): (
            lambda: torch.autograd.grad(ours(x_grad), x_grad, dy),
            lambda: torch.autograd.grad(theirs(x_grad), x_grad, dy)),
        ("torch.Dropout", "in place"): (
            lambda: ours_inplace(x_inplace),
            lambda: theirs_inplace(x_inplace)),
        ("softmax_dropout", "forward"): (
            lambda: rt.softmax_dropout(scores, P, training=True),
            lambda: F.dropout(F.softmax(scores, -1), P)),
        ("softmax_dropout", "forward+backward"): (
            lambda: torch.autograd.grad(
                rt.softmax_dropout(scores_grad, P, training=True),
                scores_grad, dscores),
            lambda: torch.autograd.grad(
                F.dropout(F.softmax(scores_grad, -1), P), scores_grad,
                dscores)),
        ("init.normal_", "f32"): (
            lambda: rt.init.normal_(t),
            lambda: torch.nn.init.normal_(t)),
    }
    out = [(row, {"rndnn": calls[row][0], "baseline": calls[row][1]})
           for row in wanted]
    return out, lambda: x_inplace.fill_(1.0)


def looped(call, k):
    """A run of k calls of @call."""
    def run():
        for _ in range(k):
            call()
    return run


def repetitions(call, seconds):
    """k such that k calls of @call last about @seconds (at least 1),
    after one call that warms up."""
    call()
    k = 1
    while True:
        start = time.perf_counter()
        looped(call, k)()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds / 8 or k >= 1 << 20:
            return max(1, round(k * seconds / elapsed))
        k *= 2


def measure(sizes, wanted, rounds, seconds, emit):
    """{(n, row, side): median seconds a call} at the thread count set:
    every size's rows in the same rounds, so that a burst of load on a
    shared machine falls on one round of many rows rather than on every
    round of one size."""
    runs, ks, refills = [], {}, []
    for n in sizes:
        table, refill = cases(n, wanted)
        refills.append(refill)
        for row, by in table:
            for side, call in by.items():
                refill()
                key = (n, row, side)
                ks[key] = repetitions(call, seconds)
                runs.append((key, looped(call, ks[key])))
    done = []

    def before_round():
        for refill in refills:
            refill()
        if done:
            emit(f"  round {len(done)} of {rounds} "
                 f"(after one that warms up): load {load()}")
        done.append(1)

    median = medians(runs, rounds, before_round)
    return {key: median[key] / ks[key] for key in median}


def other_threads_cpu():
    """Seconds of CPU that this process's threads other than the calling
    one have used, or None without /proc."""
    total = 0
    try:
        me = str(os.getpid())
        for tid in os.listdir("/proc/self/task"):
            if tid == me:
                continue
            with open(f"/proc/self/task/{tid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    except (OSError, IndexError, ValueError):
        return None
    return total / os.sysconf("SC_CLK_TCK")


def thread_check(threads):
    """A line saying how much CPU OpenMP's other threads spent during
    large calls of rndnn and of torch (each must use them above 1
    thread), and whether that matches @threads."""
    n = 1 << 23
    x = torch.randn(n)
    probes = [("rndnn.uniform", lambda: rndnn.uniform(size=n, dtype=F32)),
              ("torch x * 2", lambda: x.mul(2.0))]
    spent = {}
    for name, call in probes:
        call()
        before = other_threads_cpu()
        if before is None:
            return "threads check: no /proc (skipped)"
        for _ in range(8):
            call()
        spent[name] = other_threads_cpu() - before
    ok = all((s > 0) == (threads > 1) for s in spent.values())
    said = ", ".join(f"{name} {s * 1e3:.0f} ms" for name, s in spent.items())
    return (f"threads check: torch.get_num_threads() = "
            f"{torch.get_num_threads()}; CPU of the other threads during "
            f"8 calls of 2^23: {said}: "
            + ("as expected" if ok else
               "WARNING: not what this thread count should give"))


def wait_policy():
    """OpenMP's wait policy as the environment set it for both libraries
    (libgomp reads it once, at load)."""
    return os.environ.get("OMP_WAIT_POLICY", "") or "(unset: libgomp spins)"


def log2(n):
    return f"2^{n.bit_length() - 1}"


def payoff(points):
    """The smallest size from which ratio >= 1 at every larger size of
    @points ([(elements, ratio)] by size): a string."""
    if not points:
        return "-"
    start = None
    for n, ratio in reversed(points):
        if ratio < 1.0:
            break
        start = n
    if start is None:
        return "never (slower at the largest size)"
    if start == points[0][0]:
        return f"always (from {log2(start)}, the smallest size run)"
    return f"from {log2(start)}"


def run_all(args, wanted, sizes, emit):
    """Measures; returns the CSV rows as dicts. @emit prints a line."""
    results = []
    machine = cpu()
    for threads in args.threads:
        torch.set_num_threads(threads)
        emit(f"\n{threads} thread(s) (torch.set_num_threads({threads}); "
             f"NumPy's Generator: 1 thread always)")
        emit(thread_check(threads))
        median = measure(sizes, wanted, args.rounds, args.round_ms / 1e3,
                         emit)
        emit(f"{'elements':>8} {'function':<16} {'variant':<17} "
             f"{'rndnn us':>10} {'baseline us':>11} {'speedup':>8}")
        for n in sizes:
            for row in wanted:
                r = median[(n, row, "rndnn")] * 1e6
                b = median[(n, row, "baseline")] * 1e6
                results.append({
                    "function": row[0], "variant": row[1],
                    "threads": threads, "elements": n,
                    "rndnn_us": f"{r:.4g}", "baseline_us": f"{b:.4g}",
                    "ratio": f"{b / r:.4g}", "cpu": machine})
                emit(f"{log2(n):>8} {row[0]:<16} {row[1]:<17} {r:10.2f} "
                     f"{b:11.2f} {b / r:7.2f}x")
    return results


def by_row(results):
    """{(function, variant, threads): [(elements, rndnn_us, baseline_us,
    ratio)]} in size order."""
    out = {}
    for r in results:
        out.setdefault((r["function"], r["variant"], r["threads"]), []).append(
            (r["elements"], float(r["rndnn_us"]), float(r["baseline_us"]),
             float(r["ratio"])))
    return out


def summary(results, wanted, threads, emit):
    rows = by_row(results)
    emit("\nWhere rndnn pays off (speedup >= 1 from that size on):")
    for t in threads:
        for f, v in wanted:
            points = [(n, ratio) for n, _, _, ratio in rows[(f, v, t)]]
            worst = min(points, key=lambda p: p[1])
            emit(f"  {t} thr  {row_name(f, v):<34} "
                 f"{payoff(points)}; lowest {worst[1]:.2f}x at "
                 f"{log2(worst[0])}")
    if 1 in threads and 2 in threads:
        emit("\nrndnn on 2 threads against 1 (1-thread time / 2-thread "
             "time; the two thread counts' blocks of this run):")
        for f, v in wanted:
            one = {n: r for n, r, _, _ in rows[(f, v, 1)]}
            two = {n: r for n, r, _, _ in rows[(f, v, 2)]}
            ratios = [(n, one[n] / two[n]) for n in one if n in two]
            worst = min(ratios, key=lambda p: p[1])
            emit(f"  {row_name(f, v):<34} lowest {worst[1]:.2f}x at "
                 f"{log2(worst[0])}, {ratios[-1][1]:.2f}x at "
                 f"{log2(ratios[-1][0])}")


def markdown(results, wanted, threads, emit):
    """The markdown of the docs: a summary (per row and thread count,
    where rndnn pays off and its speedup at a few sizes: docs/python.md),
    then the speedups at every size (one table per thread count, sizes
    down, rows across) and rndnn's 2 threads against 1
    (docs/performance.md)."""
    rows = by_row(results)
    present = sorted({r["elements"] for r in results})
    marks = [n for n in (1 << 4, 1 << 10, 1 << 16, 1 << 20, 1 << 24)
             if n in present] or present[:1] + present[-1:]
    emit("\n**Summary**: where rndnn pays off (speedup >= 1 from that "
         "size on) and its speedup (baseline time / rndnn time) at "
         + ", ".join(log2(n) for n in marks) + "\n")
    emit("| call | " + " | ".join(
        f"{t} thread{'s' if t > 1 else ''}: pays off" for t in threads)
        + " | " + " | ".join(f"{t} thr, {log2(n)}" for t in threads
                             for n in marks) + " |")
    emit("|---" * (1 + len(threads) * (1 + len(marks))) + "|")
    for f, v in wanted:
        cells = [payoff([(n, ratio) for n, _, _, ratio in rows[(f, v, t)]])
                 .split(" (")[0] for t in threads]
        for t in threads:
            ratio = {n: q for n, _, _, q in rows[(f, v, t)]}
            cells += [f"{ratio[n]:.2f}x" for n in marks]
        emit(f"| {row_name(f, v)} | " + " | ".join(cells) + " |")
    head = "| elements | " + " | ".join(row_name(f, v) for f, v in wanted)
    sep = "|---" * (len(wanted) + 1) + "|"
    for t in threads:
        emit(f"\n**{t} thread{'s' if t > 1 else ''}**: rndnn-speedup = "
             f"baseline time / rndnn time (above 1: rndnn faster; below, "
             f"in bold)\n")
        emit(head + " |")
        emit(sep)
        sizes = [n for n, _, _, _ in rows[(wanted[0][0], wanted[0][1], t)]]
        for i, n in enumerate(sizes):
            cells = []
            for f, v in wanted:
                ratio = rows[(f, v, t)][i][3]
                cell = f"{ratio:.2f}"
                cells.append(f"**{cell}**" if ratio < 1.0 else cell)
            emit(f"| {log2(n)} | " + " | ".join(cells) + " |")
        emit("| pays off | " + " | ".join(
            payoff([(n, ratio) for n, _, _, ratio in rows[(f, v, t)]])
            .split(" (")[0] for f, v in wanted) + " |")
    if 1 in threads and 2 in threads:
        emit("\n**rndnn, 2 threads against 1** (1-thread time / 2-thread "
             "time, from the two thread counts' blocks of the run; below "
             "0.95, in bold)\n")
        emit(head + " |")
        emit(sep)
        one = {(f, v): rows[(f, v, 1)] for f, v in wanted}
        two = {(f, v): rows[(f, v, 2)] for f, v in wanted}
        for i, (n, _, _, _) in enumerate(one[wanted[0]]):
            cells = []
            for row in wanted:
                ratio = one[row][i][1] / two[row][i][1]
                cell = f"{ratio:.2f}"
                cells.append(f"**{cell}**" if ratio < 0.95 else cell)
            emit(f"| {log2(n)} | " + " | ".join(cells) + " |")


def write_csv(path, results):
    fields = ["function", "variant", "threads", "elements", "rndnn_us",
              "baseline_us", "ratio", "cpu"]
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=fields)
        writer.writeheader()
        writer.writerows(results)


def plot(path, results, wanted, threads, machine, policy=""):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    rows = by_row(results)
    panels = [(f"{t} thread{'s' if t > 1 else ''}: baseline time / rndnn "
               "time", t)
              for t in threads]
    if 1 in threads and 2 in threads:
        panels.append(("rndnn: 1-thread time / 2-thread time", "2v1"))
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 6),
                             sharex=True, squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = ["-", "--", ":"]
    functions = list(dict.fromkeys(f for f, _ in wanted))
    for ax, (title, t) in zip(axes[0], panels):
        for f, v in wanted:
            color = colors[functions.index(f) % len(colors)]
            style = styles[[v2 for f2, v2 in wanted if f2 == f].index(v)
                           % len(styles)]
            if t == "2v1":
                one, two = rows[(f, v, 1)], rows[(f, v, 2)]
                xs = [math.log2(a[0]) for a in one]
                ys = [a[1] / b[1] for a, b in zip(one, two)]
            else:
                xs = [math.log2(p[0]) for p in rows[(f, v, t)]]
                ys = [p[3] for p in rows[(f, v, t)]]
            ax.plot(xs, ys, style, color=color, marker=".",
                    label=row_name(f, v))
        ax.axhline(1.0, color="black", linewidth=1)
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(
            matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:.3g}x"))
        ticks = sorted({math.log2(r["elements"]) for r in results})
        ticks = ticks[::max(1, len(ticks) // 11)]
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"$2^{{{int(k)}}}$" for k in ticks])
        ax.set_xlabel("elements")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("speedup (log scale)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9)
    fig.suptitle(f"rndnn {rndnn.__version__} against NumPy's Generator and "
                 f"torch {torch.__version__}, f32 (integers int64), "
                 f"p = 0.1\nCPU: {machine}{policy}")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--min-log2", type=int, default=4,
                        help="the smallest size, 2^N elements (default 4)")
    parser.add_argument("--max-log2", type=int, default=24,
                        help="the largest size, 2^N elements (default 24)")
    parser.add_argument("--step", type=int, default=None,
                        help="log2 step between sizes (default 1; 2 with "
                        "--quick)")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=None,
                        help="rounds after the warm-up (default 5; 1 with "
                        "--quick)")
    parser.add_argument("--round-ms", type=float, default=None,
                        help="milliseconds a side's run lasts at least "
                        "(default 3; 1 with --quick)")
    parser.add_argument("--only", default="",
                        help="the rows whose 'function variant' contains "
                        "this text (e.g. torch.Dropout, normal, forward)")
    parser.add_argument("--csv", metavar="PATH", help="write the rows there")
    parser.add_argument("--plot", metavar="PATH",
                        help="write a PNG plot there (needs matplotlib)")
    parser.add_argument("--markdown", action="store_true",
                        help="also print the markdown tables of the docs")
    parser.add_argument("--quick", action="store_true",
                        help="1 round of about 1 ms runs, every other "
                        "power of two (unless given otherwise)")
    parser.add_argument("--from-csv", metavar="PATH",
                        help="measure nothing: the summary, --markdown and "
                        "--plot of a CSV this script wrote")
    parser.add_argument("--smoke-test", action="store_true",
                        help="the ctest check: 2^4..2^6, 1 round, 1 thread, "
                        "into a temporary directory; every CSV row checked")
    args = parser.parse_args(argv)
    quick = args.quick
    if args.step is None:
        args.step = 2 if quick else 1
    if args.rounds is None:
        args.rounds = 1 if quick else 5
    if args.round_ms is None:
        args.round_ms = 1.0 if quick else 3.0
    if not 0 <= args.min_log2 <= args.max_log2 or args.step < 1:
        parser.error("expected 0 <= --min-log2 <= --max-log2, --step >= 1")
    if args.rounds < 1 or args.round_ms <= 0 or min(args.threads) < 1:
        parser.error("--rounds, --round-ms and --threads must be positive")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plot needs matplotlib (Debian: python3-matplotlib,"
                         " installed by scripts/install-deps.sh --bench)")
    return parser, args


def main(argv=None):
    parser, args = parse(argv)
    if args.smoke_test:
        return smoke_test()
    wanted = [(f, v) for f, v, _ in ROWS if args.only in row_name(f, v)]
    if not wanted:
        parser.error(f"--only {args.only!r} matches no row")
    sizes = [1 << e for e in range(args.min_log2, args.max_log2 + 1,
                                   args.step)]

    def emit(line):
        print(line, flush=True)

    if args.from_csv:
        with open(args.from_csv, newline="") as f:
            results = list(csv.DictReader(f))
        for r in results:
            r["threads"], r["elements"] = int(r["threads"]), int(r["elements"])
        wanted = [row for row in wanted if any(
            (r["function"], r["variant"]) == row for r in results)]
        threads = list(dict.fromkeys(r["threads"] for r in results))
        emit(f"{args.from_csv}: CPU: {results[0]['cpu']}")
        summary(results, wanted, threads, emit)
        if args.markdown:
            markdown(results, wanted, threads, emit)
        if args.plot:
            plot(args.plot, results, wanted, threads, results[0]["cpu"])
            emit(f"wrote {args.plot}")
        return 0
    start = time.perf_counter()
    emit(f"rndnn {rndnn.__version__} against NumPy {np.__version__}'s "
         f"Generator (1 thread) and torch {torch.__version__}: "
         f"{log2(sizes[0])}..{log2(sizes[-1])} elements, threads "
         f"{' '.join(map(str, args.threads))}, medians of {args.rounds} "
         f"round(s) of runs of about {args.round_ms:g} ms")
    emit(f"CPU: {cpu()}; load average before {load()}; "
         f"OMP_WAIT_POLICY={wait_policy()}")
    emit("baselines:")
    for f, v, baseline in ROWS:
        if (f, v) in wanted:
            emit(f"  {row_name(f, v):<34} {baseline}")
    results = run_all(args, wanted, sizes, emit)
    summary(results, wanted, args.threads, emit)
    if args.markdown:
        markdown(results, wanted, args.threads, emit)
    emit(f"\nload average after {load()}; "
         f"{time.perf_counter() - start:.0f} s")
    if args.csv:
        write_csv(args.csv, results)
        emit(f"wrote {args.csv}")
    if args.plot:
        plot(args.plot, results, wanted, args.threads, cpu(),
             f"; OMP_WAIT_POLICY={wait_policy()}")
        emit(f"wrote {args.plot}")
    return 0


def smoke_test():
    """Runs the quick mode on 2^4..2^6, 1 thread, into a temporary
    directory (removed after), and checks the CSV has one row per row,
    thread count and size, with positive times and their ratio; the
    plot too where matplotlib is importable."""
    try:
        import matplotlib  # noqa: F401
        has_plot = True
    except ImportError:
        has_plot = False
    with tempfile.TemporaryDirectory(prefix="bench_sizes.") as tmp:
        path = os.path.join(tmp, "sizes.csv")
        argv = ["--quick", "--step", "1", "--min-log2", "4", "--max-log2",
                "6", "--rounds", "1", "--threads", "1", "--markdown",
                "--csv", path]
        if has_plot:
            argv += ["--plot", os.path.join(tmp, "sizes.png")]
        main(argv)
        with open(path, newline="") as f:
            got = list(csv.DictReader(f))
        expected = {(fn, v, "1", str(1 << e)) for fn, v, _ in ROWS
                    for e in (4, 5, 6)}
        keys = [(r["function"], r["variant"], r["threads"], r["elements"])
                for r in got]
        problems = []
        if sorted(keys) != sorted(expected):
            problems.append(f"rows {sorted(set(keys) ^ expected)} missing "
                            f"or extra, or repeated ({len(keys)} rows, "
                            f"{len(expected)} expected)")
        for r in got:
            ours, theirs = float(r["rndnn_us"]), float(r["baseline_us"])
            if not (ours > 0 and theirs > 0 and r["cpu"]
                    and math.isclose(float(r["ratio"]), theirs / ours,
                                     rel_tol=1e-2)):
                problems.append(f"bad row {r}")
        if has_plot and os.path.getsize(os.path.join(tmp, "sizes.png")) == 0:
            problems.append("empty plot")
    if problems:
        print("bench_sizes smoke test FAILED:\n  " + "\n  ".join(problems),
              file=sys.stderr)
        return 1
    print(f"bench_sizes smoke test: {len(got)} rows"
          + (" and the plot" if has_plot else " (no matplotlib: no plot)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
