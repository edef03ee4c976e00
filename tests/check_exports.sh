#!/usr/bin/env bash
# The shared library exports only the public API (docs/build.md,
# "Installing"): every defined dynamic symbol is in namespace rndnn (its
# classes' members, typeinfo and vtables) or an instantiation of a standard
# template, none is internal (rndnn::impl), Xbyak's or oneDNN's, and the
# SONAME carries the major version.
# Usage: check_exports.sh LIBRNDNN_SO MAJOR
set -euo pipefail
lib=$1 major=$2
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" != "librndnn.so.$major" ]; then
    echo "SONAME is '$soname', not librndnn.so.$major"; exit 1
fi
syms=$(nm -D --defined-only "$lib" | c++filt | cut -d' ' -f3-)
bad=$(printf '%s\n' "$syms" | grep -E 'rndnn::impl|Xbyak|dnnl|^\.gomp' || true)
if [ -n "$bad" ]; then echo "internal symbols exported:"; echo "$bad" | head; exit 1; fi
other=$(printf '%s\n' "$syms" | grep -vE '^(rndnn::|typeinfo for rndnn::|typeinfo name for rndnn::|vtable for rndnn::)' \
    | grep -vE '^([a-z_:<>*&, ]+ )?std::' || true)
if [ -n "$other" ]; then echo "symbols outside rndnn:: exported:"; echo "$other" | head; exit 1; fi
count=$(printf '%s\n' "$syms" | grep -c '^rndnn::' || true)
if [ "$count" -lt 50 ]; then echo "only $count rndnn:: symbols: the API is missing"; exit 1; fi
echo "librndnn.so.$major: $count public symbols, nothing internal"
