#!/usr/bin/env bash
# rndnn inside another CMake project (docs/build.md, "Installing"):
# add_subdirectory() with no option builds the libraries only, finding
# neither Boost, GoogleTest, Google Benchmark nor Random123, and an example
# linked to rndnn::rndnn builds and runs.
# Usage: check_subdirectory.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/outer"
cat > "$tmp/outer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(outer LANGUAGES CXX)
add_subdirectory("$src" rndnn)
add_executable(mask "$src/examples/mask.cpp")
target_link_libraries(mask PRIVATE rndnn::rndnn)
CMAKE
cmake -S "$tmp/outer" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    >"$tmp/configure.log"
for dep in Boost_DIR GTest_DIR benchmark_DIR RANDOM123_INCLUDE_DIR; do
    if grep -q "^$dep:" "$tmp/build/CMakeCache.txt"; then
        echo "add_subdirectory looked for $dep"; exit 1
    fi
done
cmake --build "$tmp/build" -j "$(nproc)" --target mask >/dev/null
"$tmp/build/mask"
echo "add_subdirectory: OK"
