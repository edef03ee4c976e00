#!/usr/bin/env bash
# Configures and builds rndnn into a build directory.
# Usage: scripts/build.sh BUILD_DIR [extra cmake -D options...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
shift
cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
