#!/usr/bin/env bash
# The Debian packages of a build (docs/build.md, "Debian packages"): made
# by cpack into a temporary directory and checked:
# - librndnn0, librndnn-dev, rndnn and, where the build has the Python
#   package, python3-rndnn, each with its files and no other's: the shared
#   library (in the multiarch directory, with a shlibs file) alone in
#   librndnn0; the man page in rndnn;
# - no package but librndnn-dev depends on a -dev package, and
#   librndnn-dev on librndnn0 of its own version;
# - each has a maintainer address and /usr/share/doc/<package>/copyright
#   in Debian's machine-readable format;
# - lintian's errors, where lintian is installed (it is not by default).
# With --install (scripts/test.sh's package stage; root or sudo): then
# installs them all with dpkg, checks the install as another project and a
# Python user use it (tests/check_install.sh --python --installed /usr) and
# that man finds the page, purges all but rndnn and checks that the
# command still runs, and purges it: nothing of rndnn's stays installed.
# Usage: check_debs.sh [--install] BUILD_DIR SOURCE_DIR
set -euo pipefail
install=no
if [ "$1" = --install ]; then install=yes; shift; fi
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # DESCRIPTION COMMAND...
    local what=$1; shift
    if ! "$@"; then echo "FAIL: $what"; fail=1; fi
}
no_line_matches() { ! grep -Eq -- "$1" <<< "$2"; } # ERE TEXT

cpack -G DEB -B "$tmp/debs" --config "$build/CPackConfig.cmake" \
    > "$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; exit 1; }
if grep -qi warning "$tmp/cpack.log"; then
    cat "$tmp/cpack.log"; echo "FAIL: cpack warns"; fail=1
fi
multiarch=$(gcc -print-multiarch)
packages=(librndnn0 librndnn-dev rndnn)
if [ -d "$build/python/rndnn" ]; then packages+=(python3-rndnn); fi
debs=()
for p in "${packages[@]}"; do
    deb=$(ls "$tmp"/debs/"${p}"_*.deb 2>/dev/null || true)
    if [ -z "$deb" ]; then echo "FAIL: no package $p"; fail=1; continue; fi
    debs+=("$deb")
    field() { dpkg-deb -f "$deb" "$1"; }
    files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
    check "$p: maintainer '$(field Maintainer)' has no address" \
        grep -Eq '^[^<>]+ <[^@ ]+@[^> ]+>$' <<< "$(field Maintainer)"
    check "$p: no /usr/share/doc/$p/copyright" \
        grep -qx "/usr/share/doc/$p/copyright" <<< "$files"
    dpkg-deb --fsys-tarfile "$deb" \
        | tar -xOf - "./usr/share/doc/$p/copyright" > "$tmp/copyright" || true
    check "$p: copyright is not in Debian's format" grep -qx \
        'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
        "$tmp/copyright"
    depends=$(field Depends)
    if [ "$p" != librndnn-dev ]; then
        check "$p depends on a -dev package: $depends" \
            no_line_matches '(^|[ ,|])[a-z0-9.+-]+-dev([ ,(]|$)' "$depends"
    fi
    # Only librndnn0 holds the shared library, and only in the multiarch
    # directory.
    so=$(grep -E '/librndnn\.so\.' <<< "$files" || true)
    case $p in
        librndnn0)
            check "librndnn0: no library in /usr/lib/$multiarch: $files" \
                grep -Eq "^/usr/lib/$multiarch/librndnn\.so\.0\.[0-9.]+$" <<< "$so"
            other=$(grep -Ev "^/usr/(lib/$multiarch/librndnn\.so\.[0-9.]+|share/doc/librndnn0/copyright)$|/$" \
                <<< "$files" || true)
            check "librndnn0: files besides the library and its docs: $other" \
                test -z "$other"
            dpkg-deb -e "$deb" "$tmp/control"
            check "librndnn0: shlibs is not 'librndnn 0 librndnn0 (= $(field Version))'" \
                grep -qx "librndnn 0 librndnn0 (= $(field Version))" "$tmp/control/shlibs"
            ;;
        *) check "$p holds the shared library: $so" test -z "$so" ;;
    esac
    case $p in
        librndnn-dev)
            check "librndnn-dev does not depend on librndnn0 (= $(field Version)): $depends" \
                grep -q "librndnn0 (= $(field Version))" <<< "$depends"
            for f in "/usr/lib/$multiarch/librndnn.so" "/usr/lib/$multiarch/librndnn.a" \
                    "/usr/lib/$multiarch/pkgconfig/rndnn.pc" \
                    "/usr/lib/$multiarch/cmake/rndnn/rndnnConfig.cmake" \
                    /usr/include/rndnn/rndnn.hpp /usr/include/rndnn/version.hpp \
                    /usr/include/rndnn.h; do
                check "librndnn-dev: no $f" grep -qx "$f" <<< "$files"
            done ;;
        rndnn)
            for f in /usr/bin/rndnn /usr/share/man/man1/rndnn.1.gz; do
                check "rndnn: no $f" grep -qx "$f" <<< "$files"
            done ;;
        python3-rndnn)
            check "python3-rndnn: no rndnn/__init__.py" \
                grep -q '/dist-packages/rndnn/__init__.py$' <<< "$files" ;;
    esac
done
if command -v lintian > /dev/null; then
    # Errors only: warnings (a native package without a changelog, ...)
    # are reported, not failed.
    lintian --no-tag-display-limit "${debs[@]}" > "$tmp/lintian.log" 2>&1 || true
    cat "$tmp/lintian.log"
    check "lintian reports errors" no_line_matches '^E: ' "$(cat "$tmp/lintian.log")"
else
    echo "(lintian is not installed: not run)"
fi
[ $fail -eq 0 ] || exit 1
echo "packages: ${packages[*]}: OK"
[ $install = yes ] || exit 0

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
remove_all() {
    "${sudo_cmd[@]}" dpkg -P "${packages[@]}" > /dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap remove_all EXIT
"${sudo_cmd[@]}" dpkg -i "${debs[@]}" > /dev/null
python=()
if [[ " ${packages[*]} " == *" python3-rndnn "* ]]; then python=(--python); fi
"$src/tests/check_install.sh" "${python[@]}" --installed /usr "$src"
check "man does not find rndnn(1)" \
    test "$(man -w rndnn 2>/dev/null)" = /usr/share/man/man1/rndnn.1.gz
# The command alone: it links the static library.
others=()
for p in "${packages[@]}"; do [ "$p" = rndnn ] || others+=("$p"); done
"${sudo_cmd[@]}" dpkg -P "${others[@]}" > /dev/null
left=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null \
    | awk '$4 == "installed" {print $1}' | tr '\n' ' ' || true)
check "after removing the others, installed: '$left', not 'rndnn '" \
    test "$left" = "rndnn "
check "rndnn does not run alone" \
    bash -c '/usr/bin/rndnn gen --shape 8 --out - | od -An -tx4 | grep -q .'
"${sudo_cmd[@]}" dpkg -P rndnn > /dev/null
left=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null \
    | awk '$4 == "installed" {print $1}' || true)
check "still installed: $left" test -z "$left"
[ $fail -eq 0 ] || exit 1
echo "packages installed, used and removed: OK"
