#!/usr/bin/env bash
# Fresh machine to test results: installs dependencies, then builds and runs
# every test in three configurations: the default build (JIT on, MPI with
# mpirun tests for K = 1..4; its Debian package is then installed and the
# examples built against it), the reference-only build (JIT and MPI off),
# and the default build under
# AddressSanitizer and UndefinedBehaviorSanitizer; then the concurrency
# suite under ThreadSanitizer, and each fuzz target for about a minute
# (docs/build.md).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/install-deps.sh"

run() { # name, cmake options...
    local name=$1
    shift
    echo "=== $name"
    "$here/scripts/build.sh" "$here/build-test-$name" "$@"
    ctest --test-dir "$here/build-test-$name" -j "$(nproc)" \
        --output-on-failure --timeout 900
}

run jit -DRNDNN_ENABLE_JIT=ON
# The reference build is also the build without MPI: everything else builds
# and runs, and rndnn says that MPI is absent when mpirun starts several.
run ref -DRNDNN_ENABLE_JIT=OFF -DRNDNN_ENABLE_MPI=OFF
# Debug info (NDEBUG stays, as in release), and the sanitizers stop at the
# first report.
run sanitize -DRNDNN_SANITIZE=address,undefined \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo

# The Debian package of the JIT build: built, installed, the examples built
# against it as an outside project (find_package and pkg-config) and run,
# its Python package imported and run,
# then removed; then rndnn built inside another project
# (add_subdirectory).
echo "=== package"
(cd "$here/build-test-jit" && cpack -G DEB >/dev/null)
deb=$(ls "$here"/build-test-jit/rndnn_*.deb)
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" dpkg -i "$deb" >/dev/null
trap '"${sudo_cmd[@]}" dpkg -r rndnn >/dev/null || true' EXIT
"$here/tests/check_install.sh" --python --installed /usr "$here"
"${sudo_cmd[@]}" dpkg -r rndnn >/dev/null
trap - EXIT
# rndnn added to another project: the libraries alone, no test
# dependency looked for.
"$here/tests/check_subdirectory.sh" "$here"

# ThreadSanitizer: only the suite of callers on many threads, one OpenMP
# thread per primitive (GCC's libgomp is not instrumented; tests/CMakeLists
# sets OMP_NUM_THREADS=1 in this build). Suppressions: tests/tsan.supp.
echo "=== tsan"
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
echo "=== fuzz"
FUZZ_BUILD_DIR=$here/build-test-fuzz "$here/scripts/fuzz.sh" 60
