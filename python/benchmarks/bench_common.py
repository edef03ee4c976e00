"""What the benchmarks of python/benchmarks share: the CPU's name and the
timing of rows in rounds, each round in its own shuffled order."""
import os
import platform
import random
import statistics
import time


def cpu():
    """'family F model M (name)' from /proc/cpuinfo, or the platform's."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
                if not line.strip():
                    break
    except OSError:
        return platform.processor() or "unknown CPU"
    return (f"family {fields.get('cpu family', '?')} model "
            f"{fields.get('model', '?')} ({fields.get('model name', '?')})")


def load():
    """The load average, as printed before and after a table."""
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def medians(runs, rounds, before_round=None):
    """{key: median seconds} of @runs ([(key, run)], each run one call)
    over @rounds rounds after one that warms up. Each round runs every row
    once, in another order each round (the same orders in every run), so
    the noise of a shared machine, and what one row leaves in the heap for
    the next, spread over all of them; @before_round, if given, runs
    before each round, untimed."""
    times = {key: [] for key, _ in runs}
    for r in range(rounds + 1):
        if before_round is not None:
            before_round()
        order = list(runs)
        random.Random(r).shuffle(order)
        for key, run in order:
            start = time.perf_counter()
            run()
            times[key].append(time.perf_counter() - start)
    return {key: statistics.median(t[1:]) for key, t in times.items()}
