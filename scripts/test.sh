#!/usr/bin/env bash
# Fresh machine to test results: installs dependencies, then builds and runs
# every test in three configurations: the default build (JIT on), the
# reference-only build (JIT off), and the default build under
# AddressSanitizer and UndefinedBehaviorSanitizer.
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
run ref -DRNDNN_ENABLE_JIT=OFF
# Debug info, no NDEBUG, and the sanitizers stop at the first report.
run sanitize -DRNDNN_SANITIZE=address,undefined \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
