#!/usr/bin/env bash
# Statistical checks of Bernoulli masks at scale: 2^31 bits (256 MiB) at
# p = 0.9, 0.7 and 0.01, with the default method (auto: bitsliced:32 for
# philox4x32_10), with threshold32 for comparison and with bytewise (tools/
# programs/stats_bernoulli.cpp says what each line measures; docs/semantics.md
# quotes a run). Not part of the tests: it takes about a minute.
#
# Usage: scripts/stats.sh [BUILD_DIR] [LOG2_BITS]
#   BUILD_DIR  a configured build (default: build; built here if needed)
#   LOG2_BITS  bits per check as a power of two (default 31)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
log2=${2:-31}
if [ ! -f "$build/CMakeCache.txt" ]; then
    "$here/scripts/build.sh" "$build" -DRNDNN_BUILD_TESTS=OFF
else
    cmake --build "$build" --target rndnn_stats_bernoulli >/dev/null
fi
for method in auto threshold32 bytewise; do
    for p in 0.9 0.7 0.01; do
        "$build/tools/rndnn-stats-bernoulli" --p "$p" --method "$method" \
            --log2-bits "$log2"
    done
done
