#!/usr/bin/env bash
# Fresh machine to demo: installs dependencies, builds, and runs the main
# job (writes a Bernoulli bitmask, a normal tensor and its dropout with a bit
# mask to out/*.npy, checks backward, and prints their statistics).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/install-deps.sh"
"$here/scripts/build.sh" "$here/build" -DRNDNN_BUILD_TESTS=OFF
"$here/build/tools/rndnn-demo" --out-dir "$here/out"
