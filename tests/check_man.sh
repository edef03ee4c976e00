#!/usr/bin/env bash
# The man page of rndnn (tools/cli/rndnn.1) against the command itself: groff
# formats it without a warning, it has a NAME line that apropos reads, and
# its title line names the command's version, and it names every command
# of `rndnn --help` and every option of each `rndnn COMMAND --help`, so
# that a new option cannot go undocumented.
# Usage: check_man.sh RNDNN MAN_PAGE (the page in roff, or gzipped)
set -euo pipefail
rndnn=$1 page=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case "$page" in
    *.gz) gzip -dc "$page" > "$tmp/rndnn.1" ;;
    *) cp "$page" "$tmp/rndnn.1" ;;
esac
fail=0
warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$tmp/rndnn.1" 2>&1)
if [ -n "$warnings" ]; then
    echo "FAIL: groff warns: $warnings"
    fail=1
fi
if ! lexgrog "$tmp/rndnn.1" | grep -q 'rndnn - '; then
    echo "FAIL: no NAME line that lexgrog reads"
    fail=1
fi
# Its title line names the command's version.
version=$("$rndnn" --version | awk '{print $2}')
if ! grep -q "^\.TH RNDNN 1 \"[0-9-]*\" \"rndnn $version\"" "$tmp/rndnn.1"; then
    echo "FAIL: the title line is not of rndnn $version: $(grep '^\.TH' "$tmp/rndnn.1")"
    fail=1
fi
# The page as text, where roff's \- is a plain dash.
text=$(LC_ALL=C.UTF-8 MANWIDTH=200 groff -man -Tascii -P-cbou "$tmp/rndnn.1")
commands=$("$rndnn" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$commands" ] || { echo "FAIL: no command in rndnn --help"; exit 1; }
for c in $commands; do
    if ! grep -Eq "^ +$c( |$)" <<< "$text"; then
        echo "FAIL: command $c is not described"
        fail=1
    fi
    # Option lines start with two spaces; wrapped descriptions with more.
    for o in $("$rndnn" "$c" --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p'); do
        [ "$o" = --help ] && continue
        if ! grep -Eq -- "(^|[^a-z-])$o([^a-z-]|$)" <<< "$text"; then
            echo "FAIL: option $o of rndnn $c is not in the page"
            fail=1
        fi
    done
done
[ $fail -eq 0 ] && echo "man page: OK"
exit $fail
