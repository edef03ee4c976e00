#!/usr/bin/env bash
# Fresh machine to test results: installs dependencies, then builds and runs
# every test in three configurations: the default build (JIT on, MPI with
# mpirun tests for K = 1..4; run again as an AVX2-only CPU and its kernel
# suites as an SSE4.1-only CPU, and its MPI tests that do file I/O once
# more under ROMIO; its Debian packages are then installed and
# the examples built against them, and the Python package is installed
# with pip), the reference-only build (JIT and MPI off),
# and the default build under
# AddressSanitizer and UndefinedBehaviorSanitizer; then the concurrency
# suite under ThreadSanitizer, and each fuzz target for about a minute
# (docs/build.md).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/install-deps.sh"

# Each stage's time, as a line "--- NAME: S s" (docs/build.md's table).
stage_start=$SECONDS
stage_name=
stage() { # name: ends the stage before it, starts this one
    if [ -n "$stage_name" ]; then
        echo "--- $stage_name: $((SECONDS - stage_start)) s"
    fi
    stage_name=$1
    stage_start=$SECONDS
    [ -z "$1" ] || echo "=== $1"
}

run() { # name, [ctest options...] --, cmake options...
    local name=$1 ctest_options=()
    shift
    while [ "$1" != "--" ]; do ctest_options+=("$1"); shift; done
    shift
    stage "$name"
    "$here/scripts/build.sh" "$here/build-test-$name" "$@"
    ctest --test-dir "$here/build-test-$name" -j "$(nproc)" \
        "${ctest_options[@]}" --output-on-failure --timeout 900
}

run jit -- -DRNDNN_ENABLE_JIT=ON
# The suites parametrised over the tiers (their instances are named
# Tiers/..., Covered/... and Uncovered/..., one a tier, tests/test_utils.hpp)
# run each tier as itself whatever else the CPU has: a rerun with features
# hidden would repeat them exactly, so the reruns leave them out.
per_tier='^(Tiers|Covered|Uncovered)/'
# The JIT build once more as a CPU without AVX-512 (an AVX2-only CPU such
# as AMD Zen 3), and its kernels' suites as an SSE4.1-only CPU: detection
# hides the features (RNDNN_HIDE_CPU_ISA, and oneDNN's own cap), so a
# machine with AVX-512 runs what the others would (docs/build.md): what
# reads the detected CPU (dispatch, declines, plans, the CLI, the graph
# with oneDNN's kernels), not what ran per tier, nor what cannot differ
# with the CPU's features (the installed package, the docs' blocks, the
# examples, Python's package over the same kernels, MPI's file layers).
stage "jit, as an AVX2-only CPU"
RNDNN_HIDE_CPU_ISA=avx512 ONEDNN_MAX_CPU_ISA=AVX2 \
    ctest --test-dir "$here/build-test-jit" -j "$(nproc)" \
    -E "$per_tier|^(Install|Docs|Examples|Python|Ranks|Layers)[./]" \
    --no-tests=error --output-on-failure --timeout 900
stage "jit kernels, as an SSE4.1-only CPU"
RNDNN_HIDE_CPU_ISA=avx2 ONEDNN_MAX_CPU_ISA=SSE41 \
    ctest --test-dir "$here/build-test-jit" -j "$(nproc)" -L kernels \
    -E "$per_tier" --no-tests=error --output-on-failure --timeout 900
# The MPI tests that write and read files, once more under ROMIO, Open
# MPI's other MPI-IO layer (and MPICH's): OMPI_MCA_io selects it for every
# mpirun. The suites Layers/MpiIo and Layers/MpiLayer run both layers
# themselves; here the files of gen and dropout for K = 3 (every split,
# pieces of 40 bytes, so that ranks make calls of no bytes) and the
# failures (docs/distributed.md, "MPI-IO"). About a minute.
stage "jit MPI tests under ROMIO"
OMPI_MCA_io=romio321 ctest --test-dir "$here/build-test-jit" -j "$(nproc)" \
    -R '^(Ranks/Mpi\.(Gen|Dropout)FilesEqualOneProcess/K3|Cli\.Mpi(FailureStops|RelativePaths|FullDisk))' \
    --no-tests=error --output-on-failure --timeout 900
# The reference build is also the build without MPI: everything else builds
# and runs, and rndnn says that MPI is absent when mpirun starts several.
run ref -- -DRNDNN_ENABLE_JIT=OFF -DRNDNN_ENABLE_MPI=OFF
# Debug info (NDEBUG stays, as in release), and the sanitizers stop at the
# first report. The sanitizers cannot see inside generated code, so the
# suites parametrised over the tiers run the reference and one JIT tier,
# the best this CPU has (the library's detection, as `rndnn bench` names
# the implementation that serves), not each tier.
best=$("$here/build-test-jit/tools/rndnn" bench --dist uniform --shape 16 \
    --runs 1 | awk 'NR == 2 { sub("^jit:", "", $1); print $1 }')
others=$(for t in sse41 avx2 avx512; do [ "$t" = "$best" ] || echo "$t"; done \
    | paste -sd '|')
# (A parametrised test's name ends "  # GetParam() = ...".)
run sanitize -E "$per_tier.*[/_]($others)( |\$)" -- \
    -DRNDNN_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo

# The Debian packages of the JIT build (librndnn0, librndnn-dev, rndnn,
# python3-rndnn): made, checked (no -dev package among the runtime,
# command and Python packages' Depends, copyright files, the man page, the
# multiarch directory), installed, the examples built against them as an
# outside project (find_package and pkg-config) and run, the Python
# package imported and run, the command run alone, then purged
# (tests/check_debs.sh --install). Then `pip install .` as README.md gives
# it, into a fresh virtual environment (setup.py builds the extension with
# CMake: the library compiled once more), imported from an empty directory
# (tests/check_pip.sh); then rndnn built inside another project
# (add_subdirectory).
stage package
"$here/tests/check_debs.sh" --install "$here/build-test-jit" "$here"
"$here/tests/check_pip.sh" "$here"
# rndnn added to another project: the libraries alone, no test
# dependency looked for.
"$here/tests/check_subdirectory.sh" "$here"

# ThreadSanitizer: only the suite of callers on many threads, one OpenMP
# thread per primitive (GCC's libgomp is not instrumented; tests/CMakeLists
# sets OMP_NUM_THREADS=1 in this build). Suppressions: tests/tsan.supp.
stage tsan
tsan=$here/build-test-tsan
cmake -S "$here" -B "$tsan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRNDNN_SANITIZE=thread >/dev/null
cmake --build "$tsan" -j "$(nproc)" --target test_concurrency
# Twice: as built (JIT kernels, whose own loads and stores TSan does not
# see), and on the reference kernels, which it sees.
for isa in all none; do
    echo "--- tsan, RNDNN_MAX_CPU_ISA=$isa"
    RNDNN_MAX_CPU_ISA=$isa \
    TSAN_OPTIONS="suppressions=$here/tests/tsan.supp second_deadlock_stack=1" \
        ctest --test-dir "$tsan" -R '^Concurrency\.' --no-tests=error \
        --output-on-failure --timeout 900
done

# libFuzzer with Clang, ASan and UBSan: 60 s per target on a copy of the
# committed corpus; any finding fails the run.
stage fuzz
FUZZ_BUILD_DIR=$here/build-test-fuzz "$here/scripts/fuzz.sh" 60
stage ""
