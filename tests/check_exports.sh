#!/usr/bin/env bash
# The shared library exports only the public API (docs/build.md,
# "Installing"): every defined dynamic symbol is in namespace rndnn (its
# classes' members, typeinfo and vtables), an instantiation of a standard
# template, or a function of the C API (include/rndnn.h); none is internal
# (rndnn::impl), Xbyak's or oneDNN's; the C functions are exactly those of
# the checked-in list (tests/c_api_symbols.txt, so that removing or
# renaming one is a deliberate act); and the SONAME carries the major
# version.
# Usage: check_exports.sh LIBRNDNN_SO MAJOR C_API_SYMBOLS_TXT
set -euo pipefail
lib=$1 major=$2 c_list=$3
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" != "librndnn.so.$major" ]; then
    echo "SONAME is '$soname', not librndnn.so.$major"; exit 1
fi
raw=$(nm -D --defined-only "$lib" | cut -d' ' -f3-)
# The C functions: unmangled names with the rndnn_ prefix, against the list.
c_syms=$(printf '%s\n' "$raw" | grep -E '^rndnn_' | LC_ALL=C sort || true)
c_diff=$(diff <(grep -v '^#' "$c_list" | LC_ALL=C sort) - <<< "$c_syms" || true)
if [ -n "$c_diff" ]; then
    echo "the C functions exported differ from $c_list (< listed only, > exported only):"
    echo "$c_diff"; exit 1
fi
syms=$(printf '%s\n' "$raw" | grep -vE '^rndnn_' | c++filt)
bad=$(printf '%s\n' "$syms" | grep -E 'rndnn::impl|Xbyak|dnnl|^\.gomp' || true)
if [ -n "$bad" ]; then echo "internal symbols exported:"; echo "$bad" | head; exit 1; fi
other=$(printf '%s\n' "$syms" | grep -vE '^(rndnn::|typeinfo for rndnn::|typeinfo name for rndnn::|vtable for rndnn::)' \
    | grep -vE '^([a-z_:<>*&, ]+ )?std::' || true)
if [ -n "$other" ]; then echo "symbols outside rndnn:: and the C API exported:"; echo "$other" | head; exit 1; fi
count=$(printf '%s\n' "$syms" | grep -c '^rndnn::' || true)
if [ "$count" -lt 50 ]; then echo "only $count rndnn:: symbols: the API is missing"; exit 1; fi
c_count=$(printf '%s\n' "$c_syms" | grep -c . || true)
echo "librndnn.so.$major: $count public C++ symbols, $c_count C functions, nothing internal"
