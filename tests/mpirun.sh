#!/usr/bin/env bash
# mpirun as the tests run it (test_mpi, Examples.sharded, check_install.sh):
# - more ranks than cores (--oversubscribe), and as root where the tests
#   run as root;
# - Open MPI's session directory in a temporary directory of this run's
#   own, not in /tmp's root: mpirun creates /tmp/ompi.HOST.UID at start and
#   removes it at exit, so two at once (ctest -j) can race on it and one
#   fails ("A call to mkdir was unable to create the desired directory ...
#   File exists", seen once in CI);
# - under AddressSanitizer, LeakSanitizer told of Open MPI's allocations
#   that live until exit (lsan.supp, full unwinding so that their frames
#   name the library).
# - a signal to this script (a timeout's TERM, a Ctrl-C) goes on to mpirun,
#   which stops its ranks; the script waits for it before it removes the
#   session directory, so that no rank is left running.
# Usage: mpirun.sh MPIRUN ARGS...   runs `MPIRUN --oversubscribe ARGS...`
# (ARGS may be mpirun's MPMD form, `-np 2 a : -np 1 b`); exits with its
# status.
set -u
here=$(cd "$(dirname "$0")" && pwd)
session=$(mktemp -d) || exit 1
trap 'rm -rf "$session"' EXIT
# In the background so that the traps below run while it does; stdin
# passed on explicitly (a background command's is /dev/null otherwise).
TMPDIR=$session OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    ASAN_OPTIONS=fast_unwind_on_malloc=0 \
    LSAN_OPTIONS=suppressions=$here/lsan.supp \
    "$1" --oversubscribe "${@:2}" <&0 &
child=$!
for sig in TERM INT HUP QUIT USR1 USR2; do
    trap "kill -$sig $child 2>/dev/null" "$sig"
done
# wait returns early when a trapped signal arrives: wait again until
# mpirun has exited.
while :; do
    wait "$child"
    status=$?
    kill -0 "$child" 2>/dev/null || break
done
exit "$status"
