#!/usr/bin/env bash
# Two programs that must print the same (an example through the C API and
# the C++ example it mirrors, examples/c/): runs both, each must succeed,
# and compares their standard outputs.
# Usage: check_same_output.sh PROGRAM_A PROGRAM_B
set -euo pipefail
a=$("$1") b=$("$2")
if [ "$a" != "$b" ]; then
    printf '%s printed:\n%s\n%s printed:\n%s\n' "$1" "$a" "$2" "$b"; exit 1
fi
echo "$a"
