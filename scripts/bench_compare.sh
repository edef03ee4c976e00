#!/usr/bin/env bash
# Times a batch of `rndnn bench` problems with this tree's build and with a
# build of another revision, alternately, and prints per row both medians
# and their ratio (docs/performance.md, "Comparing two revisions").
#
# Usage: scripts/bench_compare.sh [-r ROUNDS] [-n RUNS] REV [BATCH]
#
#   REV     a commit, tag or branch of this repository (e.g. aee9367)
#   BATCH   a `rndnn bench --batch` file; by default the goal rows of issue
#           44: the default dropout (f32, bit mask, rates 0.1 and 0.5), the
#           data pass alone (bitsliced:1), backward recomputing the mask,
#           threshold32, two threads, and the RNG's bernoulli rows, 2^25
#           elements (the memcpy of each dropout row's data is bench's
#           t_memcpy, printed as its own rows)
#   -r      rounds, each running every row once with each build, back to
#           back, the order of the two alternating (default 3)
#   -n      --runs of each `rndnn bench` (default 7)
#
# REV's CLI is built in a temporary git worktree and build directory
# outside the repository (Release, the CLI target, rndnn_cli, only, ccache when
# found), then copied to a cache keyed by REV's commit
# ($BENCH_COMPARE_CACHE, default ${XDG_CACHE_HOME:-~/.cache}/rndnn-bench-compare);
# the worktree and the build directory are removed however the script
# ends. This tree's CLI is $BENCH_COMPARE_BUILD/tools/rndnn (default:
# build/ of the repository), brought up to date with `cmake --build`.
# The medians are of each row's median_s over the rounds; ratio is
# REV / this tree (> 1: this tree is faster), and "paired" the median of
# the rounds' own ratios (a row's two runs in a round are back to back, so
# a shared machine's load falls on both alike).
set -euo pipefail

die() {
    echo "bench_compare.sh: $*" >&2
    exit 1
}

rounds=3
runs=7
while getopts "r:n:h" opt; do
    case $opt in
        r) rounds=$OPTARG ;;
        n) runs=$OPTARG ;;
        h)
            sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) die "usage: scripts/bench_compare.sh [-r ROUNDS] [-n RUNS] REV [BATCH]" ;;
    esac
done
shift $((OPTIND - 1))
[[ $# -ge 1 && $# -le 2 ]] \
    || die "usage: scripts/bench_compare.sh [-r ROUNDS] [-n RUNS] REV [BATCH]"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "-r wants a positive integer, got '$rounds'"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n wants a positive integer, got '$runs'"
rev=$1
batch=${2:-}

repo=$(cd "$(dirname "$0")/.." && git rev-parse --show-toplevel) \
    || die "scripts/ is not inside a git repository"
sha=$(git -C "$repo" rev-parse --verify --quiet "$rev^{commit}") \
    || die "'$rev' names no commit of $repo"
short=$(git -C "$repo" rev-parse --short "$sha")
if [[ -n $batch ]]; then
    [[ -r $batch ]] || die "cannot read the batch file '$batch'"
    batch=$(cd "$(dirname "$batch")" && pwd)/$(basename "$batch")
fi
for tool in cmake git python3; do
    command -v "$tool" >/dev/null || die "$tool not found"
done

build=${BENCH_COMPARE_BUILD:-$repo/build}
[[ -f $build/CMakeCache.txt ]] \
    || die "no build of this tree at $build (scripts/build.sh $build, or set BENCH_COMPARE_BUILD)"
cache=${BENCH_COMPARE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rndnn-bench-compare}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rndnn-bench-compare.XXXXXX")
worktree=
cleanup() {
    if [[ -n $worktree ]]; then
        git -C "$repo" worktree remove --force "$worktree" 2>/dev/null || true
        git -C "$repo" worktree prune 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== this tree: cmake --build $build --target rndnn_cli" >&2
cmake --build "$build" --target rndnn_cli >/dev/null \
    || die "building this tree's CLI in $build failed"
new=$build/tools/rndnn
[[ -x $new ]] || die "no CLI at $new after the build"

old=$cache/$sha/rndnn
if [[ -x $old ]]; then
    echo "== $short: the CLI built before, $old" >&2
else
    echo "== $short: building the CLI in $tmp (Release, target rndnn_cli)" >&2
    worktree=$tmp/src
    git -C "$repo" worktree add --detach --quiet "$worktree" "$sha" \
        || die "git worktree add of $short failed"
    launcher=()
    if command -v ccache >/dev/null; then
        launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
            -DCMAKE_C_COMPILER_LAUNCHER=ccache)
        export CCACHE_BASEDIR=$worktree CCACHE_NOHASHDIR=true
    fi
    gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    cmake -S "$worktree" -B "$tmp/build" "${gen[@]}" \
        -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
        -DRNDNN_BUILD_TESTS=OFF -DRNDNN_BUILD_BENCHMARKS=OFF \
        -DRNDNN_BUILD_PYTHON=OFF -DRNDNN_BUILD_FUZZERS=OFF \
        >"$tmp/configure.log" 2>&1 \
        || { tail -n 30 "$tmp/configure.log" >&2; die "configuring $short failed"; }
    cmake --build "$tmp/build" --target rndnn_cli -j "$(nproc)" \
        >"$tmp/build.log" 2>&1 \
        || { tail -n 30 "$tmp/build.log" >&2; die "building $short's CLI failed"; }
    [[ -x $tmp/build/tools/rndnn ]] || die "no CLI at $tmp/build/tools/rndnn"
    mkdir -p "$cache/$sha"
    cp "$tmp/build/tools/rndnn" "$old.part"
    mv "$old.part" "$old"
    git -C "$repo" worktree remove --force "$worktree"
    worktree=
    rm -rf "$tmp/build" "$tmp/src"
fi

if [[ -z $batch ]]; then
    batch=$tmp/goals.batch
    cat >"$batch" <<'EOF'
# issue 44's goal rows: 2^25 f32, bit mask, one thread unless said
--prim dropout --rate 0.1 --method bitsliced:1 --dtype f32 --shape 1x33554432 --mask-dtype bit --threads 1
--prim dropout --rate 0.1 --dtype f32 --shape 1x33554432 --mask-dtype bit --threads 1
--prim dropout --rate 0.5 --dtype f32 --shape 1x33554432 --mask-dtype bit --threads 1
--prim dropout --backward --rate 0.1 --dtype f32 --shape 1x33554432 --mask-dtype none --threads 1
--prim dropout --backward --rate 0.1 --dtype f32 --shape 1x33554432 --mask-dtype none --inplace --threads 1
--prim dropout --rate 0.1 --method threshold32 --dtype f32 --shape 1x33554432 --mask-dtype bit --threads 1
--prim dropout --rate 0.1 --dtype f32 --shape 1x33554432 --mask-dtype bit --threads 2
--prim rng --alg philox4x32_10 --dist bernoulli --p 0.9 --method bitsliced:32 --dtype bit --shape 33554432 --threads 1
--prim rng --alg philox4x32_10 --dist bernoulli --p 0.9 --method threshold32 --dtype bit --shape 33554432 --threads 1
EOF
fi

cpu=$(python3 - <<'EOF'
info = {}
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if ":" in line:
                k, v = (s.strip() for s in line.split(":", 1))
                info.setdefault(k, v)
            elif info:
                break
except OSError:
    pass
print("%s, vendor %s, cpu family %s, model %s, %s" % (
    info.get("model name", "?"), info.get("vendor_id", "?"),
    info.get("cpu family", "?"), info.get("model", "?"),
    "avx512" if "avx512f" in info.get("flags", "") else "no avx512"))
EOF
)

# Each round runs every row with both builds back to back (the order of
# the two alternating from row to row and round to round), so that the
# pair of a row's runs sees the same load; each build's CSV of a round
# holds all its rows.
grep -v '^[[:space:]]*\(#\|$\)' "$batch" >"$tmp/rows" || true
nrows=$(wc -l <"$tmp/rows")
((nrows > 0)) || die "no problem in $batch"
echo "== $rounds rounds of $nrows rows, --runs $runs; $(uptime | sed 's/.*load/load/')" >&2
for ((r = 1; r <= rounds; ++r)); do
    echo "   round $r/$rounds" >&2
    : >"$tmp/old.$r.csv"
    : >"$tmp/new.$r.csv"
    for ((i = 1; i <= nrows; ++i)); do
        sed -n "${i}p" "$tmp/rows" >"$tmp/row.batch"
        if (((r + i) % 2)); then order=(old new); else order=(new old); fi
        for which in "${order[@]}"; do
            bin=$old
            [[ $which == new ]] && bin=$new
            "$bin" bench --batch "$tmp/row.batch" --runs "$runs" --csv \
                >"$tmp/out.csv" 2>"$tmp/err" \
                || { cat "$tmp/err" >&2; die "$which ($bin) failed on: $(cat "$tmp/row.batch")"; }
            if [[ ! -s $tmp/$which.$r.csv ]]; then
                cat "$tmp/out.csv" >"$tmp/$which.$r.csv"
            else
                tail -n +2 "$tmp/out.csv" >>"$tmp/$which.$r.csv"
            fi
        done
    done
done

python3 - "$tmp" "$rounds" "$short" "$(git -C "$repo" describe --always --dirty)" "$cpu" <<'EOF'
import csv, statistics, sys

tmp, rounds, old_name, new_name, cpu = sys.argv[1:6]
rounds = int(rounds)

def read(which):
    rows = {}
    order = []
    for r in range(1, rounds + 1):
        with open(f"{tmp}/{which}.{r}.csv") as f:
            for row in csv.DictReader(f):
                key = (row["problem"], row["threads"])
                if key not in rows:
                    rows[key] = {"t": [], "memcpy": [], "impl": row["impl"]}
                    order.append(key)
                t = float(row["median_s"])
                rows[key]["t"].append(t)
                ratio = float(row["ratio_to_memcpy"])
                rows[key]["memcpy"].append(t * ratio)
    return rows, order

old, order = read("old")
new, _ = read("new")
print(f"CPU: {cpu}")
print(f"{old_name} (old) against {new_name} (this tree): medians over {rounds} "
      "rounds, ms; ratio = old / new (> 1: this tree is faster); paired: the "
      "median, min and max of the rounds' old / new, each round's two runs "
      "back to back")
print(f"{'row':<80} {'old ms':>7} {'new ms':>7} {'ratio':>6} "
      f"{'paired (min-max)':>18} {'old x':>6} {'new x':>6}  impl (new)")
print(f"{'':<80} {'':>7} {'':>7} {'':>6} {'':>18} {'memcpy':>6} {'memcpy':>6}")
slower = []
for key in order:
    if key not in new:
        print(f"{key[0]:<80} missing from the new build's output")
        continue
    o, n = old[key], new[key]
    to = statistics.median(o["t"]) * 1e3
    tn = statistics.median(n["t"]) * 1e3
    mo = statistics.median(o["memcpy"]) * 1e3
    mn = statistics.median(n["memcpy"]) * 1e3
    paired = [a / b for a, b in zip(o["t"], n["t"])]
    pm = statistics.median(paired)
    problem = key[0].strip('"').replace("--shape 1x33554432 ", "").replace(
        "--shape 33554432 ", "").replace("--dtype f32 ", "").replace(
        "--prim ", "")
    print(f"{problem:<80} {to:7.2f} {tn:7.2f} {to / tn:6.3f} "
          f"{pm:6.3f} ({min(paired):4.2f}-{max(paired):4.2f}) "
          f"{mo / to:6.2f} {mn / tn:6.2f}  {n['impl']}")
    if pm < 1:
        slower.append(problem)
# memcpy rows: the copy of each distinct data size and thread count
seen = {}
for key in order:
    if key in new:
        seen.setdefault(("memcpy", key[1], key[0].startswith("--prim rng")),
                        (old[key]["memcpy"], new[key]["memcpy"]))
for (name, thr, rng), (o, n) in seen.items():
    what = "memcpy of the rng rows' dst" if rng else "memcpy of the dropout rows' data (src)"
    to = statistics.median(o) * 1e3
    tn = statistics.median(n) * 1e3
    print(f"{what + ', threads ' + thr:<80} {to:7.2f} {tn:7.2f} {to / tn:6.3f}")

# Issue 44's goals, where the batch has their rows (the default batch).
P = "--prim dropout "
S = " --dtype f32 --shape 1x33554432"
data_pass = (P + "--rate 0.1 --method bitsliced:1" + S + " --mask-dtype bit --threads 1", "1")
goals = [
    ("default rate 0.1 / bitsliced:1 (>= 0.9)", P + "--rate 0.1" + S + " --mask-dtype bit --threads 1", "1", "pass"),
    ("default rate 0.5 / bitsliced:1 (>= 0.9)", P + "--rate 0.5" + S + " --mask-dtype bit --threads 1", "1", "pass"),
    ("backward recomputed / bitsliced:1 (>= 0.9)", P + "--backward --rate 0.1" + S + " --mask-dtype none --threads 1", "1", "pass"),
    ("backward recomputed in place / bitsliced:1 (>= 0.9)", P + "--backward --rate 0.1" + S + " --mask-dtype none --inplace --threads 1", "1", "pass"),
    ("threshold32 x memcpy (>= 0.65)", P + "--rate 0.1 --method threshold32" + S + " --mask-dtype bit --threads 1", "1", "memcpy", 0.65),
    ("2 threads x memcpy (>= 1.1)", P + "--rate 0.1" + S + " --mask-dtype bit --threads 2", "2", "memcpy", 1.1),
]
lines = []
for g in goals:
    key = (g[1], g[2])
    if key not in new or key not in old:
        continue
    def ratio(build):
        t = statistics.median(build[key]["t"])
        if g[3] == "pass":
            if data_pass not in build:
                return None
            return statistics.median(build[data_pass]["t"]) / t
        return statistics.median(build[key]["memcpy"]) / t
    ro, rn = ratio(old), ratio(new)
    if ro is None or rn is None:
        continue
    bar = 0.9 if g[3] == "pass" else g[4]
    paired = statistics.median(
        [a / b for a, b in zip(old[key]["t"], new[key]["t"])])
    lines.append(f"{g[0]:<52} old {ro:5.2f}  new {rn:5.2f}  "
                 f"{'met' if rn >= bar else 'MISSED'}; old / new paired "
                 f"{paired:5.3f}{' (slower than old)' if paired < 1 else ''}")
if lines:
    print()
    print("goals (issue 44), ratios within each build's own rounds:")
    print("\n".join(lines))
print()
print("rows slower than old (paired median < 1): "
      + ("; ".join(slower) if slower else "none"))
EOF
