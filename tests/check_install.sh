#!/usr/bin/env bash
# The package as another project uses it (docs/build.md, "Installing"):
# installs the build into a temporary prefix, then builds examples/ against
# it as an outside project, once through find_package(rndnn) and once
# through pkg-config, and runs each program (each checks its own result;
# the C API's examples, examples/c/, built as C99, must print what the C++
# ones print).
# With --python, also imports the installed Python package (rndnn and
# rndnn.torch) from outside the tree and runs dropout on a torch tensor,
# and draws a mask through the C API with ctypes (examples/c/ctypes_mask.py).
# Usage: check_install.sh [--python] BUILD_DIR SOURCE_DIR
#        check_install.sh [--python] --installed PREFIX SOURCE_DIR
#   --installed: rndnn is installed there already (/usr: the .deb of
#   scripts/test.sh); nothing is installed.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python=no
if [ "$1" = --python ]; then python=yes; shift; fi
if [ "$1" = --installed ]; then
    prefix=$2 src=$3
else
    build=$1 src=$2 prefix=$tmp/prefix
    cmake --install "$build" --prefix "$prefix" >/dev/null
fi
src=$(cd "$src" && pwd) # the Python checks run from elsewhere

echo "--- find_package(rndnn)"
cmake -S "$src/examples" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    >/dev/null
cmake --build "$tmp/cmake" -j 2 >/dev/null
for e in mask dropout attention; do "$tmp/cmake/example_$e"; done
# The C API's examples (C99) print what the C++ ones print.
for e in mask dropout; do
    "$src/tests/check_same_output.sh" "$tmp/cmake/example_c_$e" \
        "$tmp/cmake/example_$e"
done
# The sharded generation, where MPI was found: two ranks.
if [ -x "$tmp/cmake/example_sharded" ]; then
    "$src/tests/mpirun.sh" mpirun -np 2 "$tmp/cmake/example_sharded"
fi

echo "--- pkg-config"
pc=$(dirname "$(find "$prefix/lib" "$prefix/share" -name rndnn.pc 2>/dev/null \
    | head -n 1)")
export PKG_CONFIG_PATH=$pc
libdir=$(pkg-config --variable=libdir rndnn)
pc_build() { # COMPILER EXAMPLE
    # shellcheck disable=SC2046 # pkg-config's words are separate flags
    "$1" -std=c++17 "$src/examples/$2.cpp" -o "$tmp/pc_$2" \
        $(pkg-config --cflags --libs rndnn)
}
for e in mask dropout attention; do
    pc_build c++ "$e"
    LD_LIBRARY_PATH=$libdir "$tmp/pc_$e"
done
# The C API's examples as strict C99, by the C compiler.
for e in mask dropout; do
    # shellcheck disable=SC2046 # pkg-config's words are separate flags
    cc -std=c99 -Wall -Wextra -Wpedantic -Werror "$src/examples/c/$e.c" \
        -o "$tmp/pc_c_$e" $(pkg-config --cflags --libs rndnn)
    LD_LIBRARY_PATH=$libdir "$src/tests/check_same_output.sh" \
        "$tmp/pc_c_$e" "$tmp/pc_$e"
done
# The sharded generation with MPI's compiler wrapper, where find_package
# found MPI too.
if [ -x "$tmp/cmake/example_sharded" ] && command -v mpicxx >/dev/null; then
    pc_build mpicxx sharded
    LD_LIBRARY_PATH=$libdir "$src/tests/mpirun.sh" mpirun -np 2 \
        -x LD_LIBRARY_PATH "$tmp/pc_sharded"
fi

if [ $python = yes ]; then
    echo "--- Python"
    pydir=$prefix/$(/usr/bin/python3 -c \
        'import sys; print("lib/python%d.%d/dist-packages" % sys.version_info[:2])')
    # From an empty directory, so that nothing but the install is found;
    # no bytecode is written into the install.
    (cd "$tmp" && PYTHONPATH=$pydir PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c '
import sys
import torch
import rndnn, rndnn.torch
assert rndnn.__file__.startswith(sys.argv[1]), rndnn.__file__
y = rndnn.torch.Dropout(0.5)(torch.ones(1000))
assert 400 < int((y == 0).sum()) < 600, y
print("rndnn", rndnn.__version__, "from", rndnn.__file__)
' "$pydir")
    # The C API through ctypes, from the runtime library, against the
    # installed package's rndnn.bernoulli.
    (cd "$tmp" && PYTHONPATH=$pydir PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 \
        "$src/examples/c/ctypes_mask.py" "$libdir/librndnn.so.0")
fi
echo "installed package: OK"
