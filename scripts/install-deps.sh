#!/usr/bin/env bash
# Installs rndnn's build and test dependencies from Debian's packages.
# Packages already present are skipped; nothing is downloaded at build time.
#
# Usage: scripts/install-deps.sh [--bench]
#   --bench  also tcmalloc, the allocator of
#            python/benchmarks/bench_torch.py's second run (docs/python.md),
#            and matplotlib, the plot of python/benchmarks/bench_sizes.py
#            --plot (docs/python.md, "Small tensors"); nothing else needs
#            them, CI included (the smoke test of bench_sizes.py plots only
#            where matplotlib is).
set -euo pipefail

bench=0
for arg in "$@"; do
    case "$arg" in
        --bench) bench=1 ;;
        *) echo "install-deps: unknown argument '$arg' (expected --bench)" >&2
           exit 2 ;;
    esac
done

packages=(
    build-essential cmake ninja-build
    # pkg-config: the examples built against the installed package
    # (tests/check_install.sh), C and C++.
    pkgconf
    libdnnl-dev libxbyak-dev libboost-program-options-dev
    libgtest-dev libgmock-dev libbenchmark-dev libomp-dev
    librandom123-dev
    # tests/docs/doc_blocks.py (the docs' code blocks), standard library only
    python3
    # Debian builds oneDNN with its OpenCL GPU runtime, so dnnl-config.cmake
    # looks for OpenCL even though rndnn only uses the CPU engine.
    ocl-icd-opencl-dev opencl-headers
    # The fuzzers (scripts/fuzz.sh): Clang 14, its libFuzzer and sanitizer
    # runtimes (not pulled in without recommends), OpenMP for Clang
    # (libomp-dev, above) and llvm-symbolizer for the findings' stacks.
    # GCC's ThreadSanitizer runtime (libtsan2) comes with build-essential.
    clang libclang-rt-14-dev llvm
    # The Python package (docs/python.md): Debian's interpreter, NumPy,
    # pybind11, PyTorch (rndnn.torch), and pytest for its tests.
    python3-numpy python3-pybind11 python3-dev python3-torch python3-pytest
    # libtorch-dev (about 160 packages): torch's C++ headers and CMake
    # package, for rndnn.torch's C++ operators (python/torch_ops.cpp, built
    # and tested by CI where CMake finds it; without it rndnn.torch keeps
    # its Python path) and the benchmark program rndnn_bench_torch
    # (docs/performance.md).
    libtorch-dev
    # `pip install .` of the Python package offline (pyproject.toml,
    # setup.py; tests/check_pip.sh): a virtual environment over Debian's
    # packages, pip, and setuptools and wheel for --no-build-isolation.
    python3-venv python3-pip python3-setuptools python3-wheel
    # The distributions' statistics (scripts/stats.py, not run by the
    # tests) and the accuracy references of the tests that use them when
    # present: SciPy and mpmath.
    python3-scipy python3-mpmath
    # The man page's test (tests/check_man.sh): groff, and lexgrog of
    # man-db.
    groff-base man-db
    # MPI: `mpirun -np K rndnn gen|dropout` and the distributed training
    # example (docs/distributed.md), tested with K = 1..4.
    openmpi-bin libopenmpi-dev
)
if [ "$bench" -eq 1 ]; then
    packages+=(libtcmalloc-minimal4 python3-matplotlib)
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null \
            | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all dependencies present"
    exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
