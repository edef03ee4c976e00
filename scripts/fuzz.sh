#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with Clang into build-fuzz and runs
# each on a copy of its seed corpus for a bounded time; exits non-zero on
# any finding (crash, sanitizer report, leak, timeout, out of memory).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   SECONDS_PER_TARGET  default 60
#   TARGET              fuzz_npy, fuzz_problem, fuzz_batch (default: all)
# Environment: FUZZ_BUILD_DIR (default build-fuzz in the source tree),
# FUZZ_JOBS (build parallelism, default: the number of CPUs).
#
# The committed corpus (fuzz/corpus/TARGET) is only read: each run works
# on a fresh copy in BUILD/fuzz-run/TARGET/corpus, where libFuzzer adds
# what it finds; findings go to BUILD/fuzz-run/TARGET/artifacts.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(fuzz_npy fuzz_problem fuzz_batch)
fi
case "$seconds" in
    '' | *[!0-9]*)
        echo "fuzz.sh: SECONDS_PER_TARGET '$seconds' is not a number" >&2
        exit 2 ;;
esac
build=${FUZZ_BUILD_DIR:-$here/build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc)}

# Per target: the dictionary and the largest single allocation allowed.
# A .npy input is at most 4 KiB (libFuzzer's default -max_len), so the
# loader needs far less than 64 MiB; the problem targets run at most 2^16
# elements (1 MiB buffers) and create primitives for any size.
dict_of() {
    case "$1" in
        fuzz_npy) echo "$here/fuzz/npy.dict" ;;
        *) echo "$here/fuzz/cli.dict" ;;
    esac
}
malloc_limit_of() {
    case "$1" in
        fuzz_npy) echo 64 ;;
        *) echo 256 ;;
    esac
}

echo "=== fuzz: building ${targets[*]} in $build"
CC=clang CXX=clang++ cmake -S "$here" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRNDNN_BUILD_FUZZERS=ON \
    -DRNDNN_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

# UBSan and ASan stop at the first report (-fno-sanitize-recover=all)
# with a stack; libFuzzer then saves the input.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}

failed=0
summary=()
for t in "${targets[@]}"; do
    run="$build/fuzz-run/$t"
    rm -rf "$run"
    mkdir -p "$run/artifacts"
    cp -r "$here/fuzz/corpus/$t" "$run/corpus"
    echo "=== fuzz: $t for ${seconds}s"
    start=$(date +%s)
    rc=0
    # Absolute paths: fuzz_problem changes into a scratch directory.
    "$build/fuzz/$t" "$run/corpus" \
        -max_total_time="$seconds" -timeout=30 \
        -rss_limit_mb=2048 -malloc_limit_mb="$(malloc_limit_of "$t")" \
        -dict="$(dict_of "$t")" -artifact_prefix="$run/artifacts/" \
        -print_final_stats=1 >"$run/log" 2>&1 || rc=$?
    elapsed=$(($(date +%s) - start))
    # Inputs run: libFuzzer's final stats (also printed after a finding),
    # else "Done N runs", else the last "#N" status line.
    runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' \
        "$run/log" | tail -n 1)
    if [ -z "$runs" ]; then
        runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$run/log" | tail -n 1)
    fi
    if [ -z "$runs" ]; then
        runs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$run/log" | tail -n 1)
    fi
    findings=$(find "$run/artifacts" -type f | wc -l)
    if [ "$rc" -ne 0 ] && [ "$findings" -eq 0 ]; then findings=1; fi
    summary+=("$(printf '%-14s %12s inputs %6ss %3s findings' \
        "$t" "${runs:-?}" "$elapsed" "$findings")")
    if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
        failed=1
        echo "--- $t: finding (exit $rc); the end of $run/log:"
        tail -n 60 "$run/log"
        for a in "$run/artifacts"/*; do
            [ -e "$a" ] || continue
            echo "--- reproduce: $build/fuzz/$t $a"
        done
    fi
done

echo "=== fuzz: summary (${seconds}s per target)"
printf '%s\n' "${summary[@]}"
exit "$failed"
