// CLI output under faults (docs/cli.md, "Reliability"): devices, FIFOs,
// the process's own descriptors (/dev/stdout) and bind-mounted files
// written in place and never replaced, links followed, a file system that
// fills up mid-write or is read-only, a closed stdout, the mode of a
// replaced file, signals during the commit, long names, one file named
// twice, and inputs that lie.
//
// Devices, full and read-only file systems are made without root in a
// private user and mount namespace (`unshare -rm`): /dev/full and /dev/null
// bind-mounted over files of the test's own directory, and small tmpfs
// mounts there. Nothing outside the test's directory is ever written: a
// rename onto a bind mount fails (EBUSY), so even a regression could not
// replace the real devices.
#include <cstdlib>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/cli_fixture.hpp"

namespace {

using namespace rndnn::test;

class CliFaults : public Cli {
protected:
    // Runs @p script (bash, in dir_, $RNDNN the CLI) as root of a private
    // user and mount namespace; the script's checks print "FAIL: ..." and
    // it ends by printing "ok". Skips the test where the kernel allows no
    // unprivileged user namespaces.
    void in_namespace(const std::string &script) {
        if (sh("unshare -rm true").status != 0)
            GTEST_SKIP() << "unshare -rm: no user namespaces here";
        const result_t r = sh("export RNDNN\nunshare -rm bash -c "
                + quote("set -u\n" + checks + script + "\necho ok"));
        EXPECT_EQ(r.status, 0) << r.out << r.err;
        EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out << r.err;
        EXPECT_NE(r.out.find("ok"), std::string::npos) << r.out << r.err;
    }

    // Runs @p script (bash, in dir_, $RNDNN the CLI, with check() and
    // expect()) as this process's user; its checks print "FAIL: ..." and it
    // ends by printing "done".
    void as_user(const std::string &script) {
        const result_t r = sh(checks + script + "\necho done");
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out, "done\n") << r.err;
    }

    // Shell helpers of the scripts: `expect STATUS PATTERN CMD...` runs CMD
    // and checks its exit status and that stderr matches PATTERN (an
    // extended regular expression; "" for no message at all).
    const std::string checks = R"sh(
expect() {
    local want=$1 pattern=$2; shift 2
    "$@" 2> err.txt; local got=$?
    [ "$got" = "$want" ] || echo "FAIL: $* exited $got, not $want: $(cat err.txt)"
    if [ -z "$pattern" ]; then
        [ -s err.txt ] && echo "FAIL: $* printed: $(cat err.txt)"
    else
        grep -Eq "$pattern" err.txt || echo "FAIL: $* printed '$(cat err.txt)', not /$pattern/"
    fi
    rm -f err.txt
}
check() { eval "$1" || echo "FAIL: $1"; }
)sh";
};

// A device that exists is written in place: /dev/full reports ENOSPC with
// exit 1, /dev/null swallows the data, and both stay devices; a link to a
// device is followed, not replaced.
TEST_F(CliFaults, DevicesAreWrittenInPlace) {
    in_namespace(R"sh(
touch full null
mount --bind /dev/full full && mount --bind /dev/null null || echo "FAIL: bind"
ln -s full full_link
expect 1 "cannot write 'full': No space left on device" \
    "$RNDNN" gen --shape 262144 --out full
expect 0 "" "$RNDNN" gen --shape 8 --out null
expect 1 "cannot write 'full_link': No space left on device" \
    "$RNDNN" gen --shape 8 --out full_link
"$RNDNN" gen --dist normal --shape 64 --out x.npy
expect 0 "" "$RNDNN" dropout --in x.npy --out null --rate 0.5 --mask-out m.npy
expect 1 "cannot write 'full': No space left on device" \
    "$RNDNN" dropout --in x.npy --out y.npy --rate 0.5 --mask-out full
expect 1 "cannot write to stdout: No space left on device" \
    sh -c '"$RNDNN" gen --shape 8 --out - > full'
check "[ -c full ] && [ -c null ] && [ -L full_link ]"
check "[ ! -e y.npy ]"
)sh");
}

// A path that names one of the process's own descriptors (/dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N, a link to one) is written as
// the stream it is, at its offset, as `--out -` writes stdout: never
// replaced by a new file, so what the shell wrote before and after stays.
// A pipe works, a closed reader ends the command quietly, and a
// descriptor that is not open is refused.
TEST_F(CliFaults, DescriptorPathsAreWrittenAsStreams) {
    as_user(R"sh(
"$RNDNN" gen --shape 4 --out ref.bin || exit 1
{ echo header; cat ref.bin; } > want1
{ echo header; cat ref.bin ref.bin ref.bin ref.bin; echo trailer; } > want4
echo header > appended
"$RNDNN" gen --shape 4 --out /dev/stdout >> appended
check "cmp appended want1"
{ echo header
  "$RNDNN" gen --shape 4 --out /dev/stdout
  "$RNDNN" gen --shape 4 --out /dev/fd/1
  "$RNDNN" gen --shape 4 --out /proc/self/fd/1
  "$RNDNN" gen --shape 4 --out -
  echo trailer; } > framed
check "cmp framed want4"
"$RNDNN" gen --shape 4 --out /dev/stderr 2> err.bin
check "cmp err.bin ref.bin"
"$RNDNN" gen --shape 4 --out /dev/fd/3 3> three.bin
check "cmp three.bin ref.bin"
ln -s /dev/stdout link
"$RNDNN" gen --shape 4 --out link > linked.bin
check "cmp linked.bin ref.bin && [ -L link ]"
"$RNDNN" gen --shape 4 --out /dev/stdout | cat > piped.bin
check '[ "${PIPESTATUS[0]}" = 0 ] && cmp piped.bin ref.bin'
"$RNDNN" gen --shape 4194304 --out /dev/stdout | head -c 10 > /dev/null
check '[ "${PIPESTATUS[0]}" = 0 ]'
# dropout: --out and --mask-out as two descriptors, the same bytes as files.
"$RNDNN" gen --dist normal --shape 64 --out x.npy
"$RNDNN" dropout --in x.npy --out y.npy --rate 0.5 --mask-out m.npy
"$RNDNN" dropout --in x.npy --out /dev/stdout --rate 0.5 \
    --mask-out /dev/fd/3 > y2.npy 3> m2.npy
check "cmp y.npy y2.npy && cmp m.npy m2.npy"
"$RNDNN" gen --shape 4 --out /dev/fd/9 2> bad.txt
check '[ $? = 1 ] && grep -q "write ./dev/fd/9.: Bad file descriptor" bad.txt'
[ -z "$(ls -A | grep rndnn)" ] || echo "FAIL: left $(ls -A)")sh");
}

// A file that cannot be replaced, being a mount point of its own (a
// bind-mounted file: Docker's -v file:file, a Kubernetes subPath; rename
// fails with EBUSY), is written in place once complete, and cut to the new
// size; a failure there names the path and both causes, and leaves no
// temporary file.
TEST_F(CliFaults, BindMountedOutputsAreWrittenInPlace) {
    in_namespace(R"sh(
echo "old contents, longer than the new ones" > host.bin
touch y.bin && mount --bind host.bin y.bin || echo "FAIL: bind"
expect 0 "" "$RNDNN" gen --shape 4 --out y.bin
"$RNDNN" gen --shape 4 --out ref.bin
check "cmp host.bin ref.bin && mountpoint -q y.bin"
"$RNDNN" gen --dist normal --shape 64 --out x.npy
"$RNDNN" dropout --in x.npy --out y.npy --rate 0.5 --mask-out m.npy
# dropout in place, its input and both outputs bind-mounted.
cp x.npy hx.npy && touch hm.npy mx.npy mm.npy
mount --bind hx.npy mx.npy && mount --bind hm.npy mm.npy || echo "FAIL: bind"
expect 0 "" \
    "$RNDNN" dropout --in mx.npy --out mx.npy --rate 0.5 --mask-out mm.npy
check "cmp hx.npy y.npy && cmp hm.npy m.npy"
# No room in place: the new bytes do not fit the mounted file's file system.
mkdir small && mount -t tmpfs -o size=64k tmpfs small || echo "FAIL: mount"
echo old > small/h.bin && touch z.bin && mount --bind small/h.bin z.bin
in_place="cannot write 'z.bin' in place \(renaming over it failed:"
expect 1 "$in_place Device or resource busy\): No space left on device" \
    "$RNDNN" gen --dist normal --shape 100000 --out z.bin
check '[ -z "$(ls -A | grep rndnn)" ]'
)sh");
}

// A FIFO streams: its reader gets the bytes that a file would hold, and
// dropout reads one in pieces (in order, without seeking).
TEST_F(CliFaults, FifoStreams) {
    const result_t r = sh(R"sh(
mkfifo f.npy
cat f.npy > got.npy &
"$RNDNN" gen --dist normal --shape 100000 --out f.npy || exit 1
wait
"$RNDNN" gen --dist normal --shape 100000 --out want.npy || exit 1
cmp got.npy want.npy && [ -p f.npy ] || exit 1
cat want.npy > f.npy &
"$RNDNN" dropout --in f.npy --out y.npy --rate 0.3 --chunk-bytes 4096 || exit 1
wait
"$RNDNN" dropout --in want.npy --out z.npy --rate 0.3 || exit 1
cmp y.npy z.npy && echo same)sh");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "same\n");
    EXPECT_EQ(r.err, "");
}

// A file system that fills up mid-write: exit 1, the path and the cause,
// and nothing left behind; an existing file is not touched.
TEST_F(CliFaults, FullFileSystemLeavesNothing) {
    in_namespace(R"sh(
mkdir small && mount -t tmpfs -o size=64k tmpfs small || echo "FAIL: mount"
expect 1 "cannot write 'small/y.npy': No space left on device" \
    "$RNDNN" gen --dist normal --shape 100000 --out small/y.npy
check '[ -z "$(ls -A small)" ]'
echo old > small/keep.npy
expect 1 "cannot write 'small/keep.npy': No space left on device" \
    "$RNDNN" gen --dist normal --shape 100000 --out small/keep.npy
check '[ "$(cat small/keep.npy)" = old ] && [ "$(ls -A small)" = keep.npy ]'
"$RNDNN" gen --dist normal --shape 100000 --out x.npy
expect 1 "cannot write 'small/m.npy': No space left on device" \
    "$RNDNN" dropout --in x.npy --out y.npy --rate 0.5 --mask-out small/m.npy \
        --mask-dtype u8
check "[ ! -e y.npy ] && [ \"\$(ls -A small)\" = keep.npy ]"
)sh");
}

TEST_F(CliFaults, ReadOnlyDirectoryLeavesNothing) {
    in_namespace(R"sh(
mkdir ro && mount -t tmpfs -o ro tmpfs ro || echo "FAIL: mount"
expect 1 "cannot create a file beside 'ro/x.npy': Read-only file system" \
    "$RNDNN" gen --shape 8 --out ro/x.npy
check '[ -z "$(ls -A ro)" ]'
)sh");
}

// A reader that closes stdout early ends every command quietly with exit
// status 0.
TEST_F(CliFaults, ClosedStdoutEndsQuietly) {
    const result_t r = sh(R"sh(
"$RNDNN" gen --shape 4194304 --out - | head -c 1000 > /dev/null
echo "gen ${PIPESTATUS[0]}"
"$RNDNN" stream | head -c 1000 > /dev/null
echo "stream ${PIPESTATUS[0]}"
"$RNDNN" verify | head -n 1 > /dev/null
echo "verify ${PIPESTATUS[0]}")sh");
    EXPECT_EQ(r.out, "gen 0\nstream 0\nverify 0\n");
    EXPECT_EQ(r.err, "");
}

// A replaced file keeps its mode; a new one gets 0666 less the umask.
TEST_F(CliFaults, ModesAreKept) {
    const result_t r = sh(R"sh(
echo old > y.npy && chmod 600 y.npy
"$RNDNN" gen --shape 8 --out y.npy || exit 1
umask 027
"$RNDNN" gen --shape 8 --out new.npy || exit 1
stat -c %a y.npy new.npy)sh");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "600\n640\n");
}

// As root, a replaced file keeps its owner and group and loses setuid and
// setgid; a file without any write bit is refused, never replaced, and so
// is a file that another user cannot write (docs/cli.md, "Reliability").
TEST_F(CliFaults, ReplacingKeepsOwnerAndRefusesReadOnlyFiles) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to own files of others";
    as_user(R"sh(
echo old > other.npy && chown 12345:23456 other.npy && chmod 640 other.npy
"$RNDNN" gen --shape 8 --out other.npy || echo "FAIL: other.npy"
check '[ "$(stat -c %u:%g:%a other.npy)" = 12345:23456:640 ]'
echo old > suid.npy && chmod 6755 suid.npy
"$RNDNN" gen --shape 8 --out suid.npy || echo "FAIL: suid.npy"
check '[ "$(stat -c %a suid.npy)" = 755 ]'
echo old > ro.npy && chmod 444 ro.npy
"$RNDNN" gen --shape 8 --out ro.npy 2> err.txt; rc=$?
check '[ $rc = 1 ]'
check 'grep -q "cannot write .ro.npy.: it is read-only for this user (mode 0444)" err.txt'
check '[ "$(cat ro.npy)" = old ] && [ "$(stat -c %a ro.npy)" = 444 ]'
# Another user, in a directory it may write, cannot replace root's 0644.
chmod 711 . && mkdir shared && chmod 777 shared && echo old > shared/root.npy
setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$RNDNN" gen --shape 8 --out shared/root.npy 2> err.txt; rc=$?
check '[ $rc = 1 ] && grep -q "read-only for this user (mode 0644)" err.txt'
check '[ "$(cat shared/root.npy)" = old ]'
check '[ -z "$(ls -A shared | grep rndnn)" ]')sh");
}

// A signal that ends `gen --out` or an in-place `dropout` at any point
// leaves no temporary file, and gen's output only where it exits 0 (a
// signal in its commit is held: SignalsDuringTheCommitLeaveItWhole),
// with the file system's anonymous files and,
// /proc hidden so that rndnn cannot link them (not in sanitized builds,
// whose runtime needs /proc), with named ones that the signal handler
// removes; SIGKILL leaves none of the anonymous ones. The
// target is the old file or the whole new one.
TEST_F(CliFaults, SignalsLeaveNoTemporaryFile) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    const std::string sanitized = "sanitized=1\n";
#else
    const std::string sanitized = "sanitized=0\n";
#endif
    in_namespace(sanitized + R"sh(
mkdir t && mount -t tmpfs -o size=3g tmpfs t && cd t || exit 1
"$RNDNN" gen --dist normal --shape 33554432 --out x.npy --quiet || exit 1
# 1 GiB of bits and an in-place dropout of 128 MiB: each takes long
# enough to be stopped in the middle. The command replaces the subshell
# that `&` starts, so that $! is its pid.
run() {
    case $1 in
        gen) exec env --default-signal "$RNDNN" gen --dist bits --shape 268435456 \
                --out big.bin --quiet ;;
        dropout) exec env --default-signal "$RNDNN" dropout --in x.npy \
                --out x.npy --rate 0.5 --quiet ;;
    esac
}
stop() { # stop CMD SIGNAL
    rm -f big.bin
    run "$1" & local pid=$!
    sleep "0.$((RANDOM % 8 + 1))"
    kill -"$2" $pid 2>/dev/null; wait $pid; local rc=$?
    [ $rc = 0 ] || [ $rc = $((128 + $(kill -l "$2"))) ] \
        || echo "FAIL: $1 stopped by $2 exited $rc"
    [ -z "$(ls -A | grep rndnn)" ] || echo "FAIL: $1 stopped by $2 left $(ls -A)"
    # Killed: no file; exit status 0 (done, or stopped in its commit): the
    # whole file.
    if [ $1 = gen ] && [ $rc = 0 ]; then
        [ "$(stat -c %s big.bin 2>&1)" = 1073741824 ] \
            || echo "FAIL: gen exited 0, big.bin: $(stat -c %s big.bin 2>&1)"
    elif [ $1 = gen ]; then
        [ ! -e big.bin ] || echo "FAIL: gen killed by $2 left big.bin"
    fi
    [ "$(stat -c %s x.npy)" = 134217856 ] || echo "FAIL: x.npy cut"
}
for sig in INT TERM HUP QUIT ALRM USR1 USR2 XCPU XFSZ KILL; do stop gen $sig; done
stop dropout TERM
stop dropout KILL
# The sanitizers read their options and run LeakSanitizer through /proc:
# a sanitized rndnn without it exits 1. Named files are signalled there
# under mpirun (Cli.MpiSignalsLeaveNoTemporaryFile).
if [ $sanitized = 0 ]; then
    mount -t tmpfs none /proc || exit 1
    for sig in INT TERM HUP QUIT ALRM USR1 USR2 XCPU XFSZ; do stop gen $sig; done
    stop dropout INT
    stop dropout HUP
fi)sh");
}

// Outputs are committed together, and a committed run reports success: a
// signal that arrives while they are renamed into place (here: sent by
// the process itself after each rename, the test hook
// RNDNN_TEST_SIGNAL_IN_COMMIT) is held, so `dropout --out Y --mask-out M`
// commits both and exits 0, in place too, as does gen. A program that
// goes on after its commit (the demo) ends by the held signal then.
TEST_F(CliFaults, SignalsDuringTheCommitLeaveItWhole) {
    as_user(R"sh(
"$RNDNN" gen --dist normal --shape 64 --out x.npy || exit 1
cp x.npy in.npy
"$RNDNN" dropout --in x.npy --out want_y.npy --rate 0.5 --mask-out want_m.npy
"$RNDNN" gen --shape 64 --out want_g.bin
for sig in 15 2 1; do
    RNDNN_TEST_SIGNAL_IN_COMMIT=$sig "$RNDNN" dropout --in x.npy --out y.npy \
        --rate 0.5 --mask-out m.npy
    check "[ $? = 0 ] && cmp y.npy want_y.npy && cmp m.npy want_m.npy"
    RNDNN_TEST_SIGNAL_IN_COMMIT=$sig "$RNDNN" gen --shape 64 --out g.bin
    check "[ $? = 0 ] && cmp g.bin want_g.bin"
    rm -f y.npy m.npy g.bin
done
RNDNN_TEST_SIGNAL_IN_COMMIT=15 "$RNDNN" dropout --in in.npy --out in.npy \
    --rate 0.5 --mask-out m.npy
check "[ $? = 0 ] && cmp in.npy want_y.npy && cmp m.npy want_m.npy"
mkdir demo
RNDNN_TEST_SIGNAL_IN_COMMIT=15 "$(dirname "$RNDNN")/rndnn-demo" \
    --out-dir demo > /dev/null
check '[ $? = 143 ] && [ "$(ls demo)" = mask.npy ]'
[ -z "$(ls -A | grep rndnn)" ] || echo "FAIL: left $(ls -A)")sh");
}

// The temporary file's name is short: a 255-byte name still works, and
// a link is written through to its (new) target.
TEST_F(CliFaults, LongNamesAndLinks) {
    const std::string name = std::string(251, 'n') + ".npy";
    const result_t r = sh("\"$RNDNN\" gen --shape 8 --out " + name
            + " && ln -s target.npy link.npy && \"$RNDNN\" gen --shape 8 --out"
              " link.npy && [ -L link.npy ] && cmp link.npy " + name);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(files(),
            (std::vector<std::string> {"link.npy", name, "target.npy"}));
}

// Two outputs, or an output and an input other than --out's own --in,
// that are one file (by device and inode, through links and hard links)
// are refused before anything is written.
TEST_F(CliFaults, OneFileTwiceIsRefused) {
    ASSERT_EQ(sh("\"$RNDNN\" gen --dist normal --shape 64 --out x.npy && ln "
                 "x.npy hard.npy && ln -s x.npy soft.npy")
                      .status,
            0);
    const bytes_t x = read_file(dir_ / "x.npy");
    const std::vector<bad_case_t> cases = {
            {{"--mask-out", "./x.npy"}, "--in 'x.npy' and --mask-out"},
            {{"--mask-out", "hard.npy"}, "same file 'hard.npy'"},
            {{"--mask-out", "soft.npy"}, "same file 'soft.npy'"},
            {{"--out", "y.npy", "--mask-out", "y.npy"}, "same file 'y.npy'"},
    };
    for (const bad_case_t &c : cases) {
        args_t args = {"dropout", "--in", "x.npy", "--rate", "0.5"};
        if (c.args[0] != "--out") args.insert(args.end(), {"--out", "z.npy"});
        args.insert(args.end(), c.args.begin(), c.args.end());
        SCOPED_TRACE(joined(args));
        expect_failure(run(args), 2, c.named);
        EXPECT_EQ(read_file(dir_ / "x.npy"), x);
        EXPECT_EQ(files(), (std::vector<std::string> {
                                   "hard.npy", "soft.npy", "x.npy"}));
    }
    // Backward: the mask read is not the file written.
    const result_t r = run({"dropout", "--backward", "--in", "x.npy", "--out",
            "hard.npy", "--rate", "0.5", "--mask-in", "x.npy"});
    expect_failure(r, 2, "--mask-in 'x.npy' and --out name the same file");
}

// A .npy header that claims more data than the file holds is refused at
// once, before the claim is allocated; a mask's shape is checked before
// its data is read. Header bytes are quoted escaped.
TEST_F(CliFaults, LyingInputsAreRefusedBeforeReading) {
    // A .npy file of version 1.0 with the header @p text and no data.
    const auto write_header = [&](const char *file, const std::string &text) {
        std::ofstream(dir_ / file, std::ios::binary)
                << std::string("\x93NUMPY\x01\x00", 8)
                << static_cast<char>(text.size()) << '\0' << text;
    };
    const std::string header = "{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1099511627776,), }";
    write_header("big.npy", header);
    expect_failure(run({"dropout", "--in", "big.npy", "--out", "y.npy",
                           "--rate", "0.5"}),
            2, "truncated .npy data: expected 4398046511104 bytes, the file "
               "holds 0");

    const std::string evil = "{'descr': '<f4\x1b[2J\x07', 'fortran_order': "
                             "False, 'shape': (4,), }";
    write_header("evil.npy", evil);
    const result_t r = run({"dropout", "--in", "evil.npy", "--out", "y.npy",
            "--rate", "0.5"});
    expect_failure(r, 2, "'<f4\\x1b[2J\\x07' is not supported");
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos);

    // A mask file of the wrong shape whose header also lies about its size.
    ASSERT_EQ(run({"gen", "--dist", "normal", "--shape", "64", "--out",
                      "x.npy"})
                      .status,
            0);
    const std::string mask = "{'descr': '|u1', 'fortran_order': False, "
                             "'shape': (1099511627776,), }";
    write_header("m.npy", mask);
    expect_failure(run({"dropout", "--backward", "--in", "x.npy", "--out",
                           "dx.npy", "--rate", "0.5", "--mask-in", "m.npy"}),
            2, "truncated");
}

// A batch line of 100k words is refused at once (Boost's parser would take
// time quadratic in the words).
TEST_F(CliFaults, BatchLineWithTooManyWords) {
    std::string line = "--shape 8";
    for (int i = 0; i < 400; ++i)
        line += " --seed 1";
    std::ofstream(dir_ / "b.batch") << line << "\n";
    expect_failure(run({"bench", "--batch", "b.batch"}), 2,
            "b.batch:1: 802 words of options");
}

// A --batch file is read a line at a time: a line longer than 4096 bytes
// (here one 64 MB word, the whole file) is refused once its 4097th byte
// is read, with a short message; a NUL byte is named, not a message cut
// at it; the lines' problems are not all held at once (before: 2.4 KB a
// line), and a batch from a pipe runs too.
TEST_F(CliFaults, BatchIsReadLineByLine) {
    {
        std::ofstream big(dir_ / "big.batch");
        const std::string mb(std::size_t(1) << 20, 'a');
        for (int i = 0; i < 64; ++i)
            big << mb;
        std::ofstream nul(dir_ / "nul.batch");
        nul << "--shape 8\n--shape '8" << '\0' << "' --seed 1\n";
        std::ofstream many(dir_ / "many.batch");
        for (int i = 0; i < 40000; ++i)
            many << "--shape 8 --dist bernoulli --p 0.25 --seed " << i << "\n";
        many << "--shape 8 --dist gaussian\n";
    }
    const result_t big = run({"bench", "--batch", "big.batch"});
    expect_failure(big, 2, "big.batch:1: the line is longer than 4096 bytes");
    EXPECT_LT(big.err.size(), 200u);
    expect_failure(run({"bench", "--batch", "nul.batch"}), 2,
            "nul.batch:2: the line holds a NUL byte (at byte 11)");
    expect_failure(run({"bench", "--batch", "many.batch"}), 2,
            "many.batch:40001: unknown --dist 'gaussian'");
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    for (const char *file : {"big.batch", "many.batch"}) {
        SCOPED_TRACE(file);
        EXPECT_LE(max_rss_kib({"bench", "--batch", file}, 2), 64 * 1024);
    }
#endif
    const result_t piped = sh("\"$RNDNN\" bench --runs 1 --csv --batch "
                              "<(printf -- '--shape 64\\n# c\\n--shape 8 "
                              "--dist normal\\n')");
    ASSERT_EQ(piped.status, 0) << piped.err;
    EXPECT_NE(piped.out.find("\n\"--shape 64\","), std::string::npos)
            << piped.out;
    EXPECT_NE(piped.out.find("\n\"--shape 8 --dist normal\","),
            std::string::npos)
            << piped.out;
}

// Words found by the fuzzers: a Boost message placeholder in an option
// (whose message never finished), and empty file names.
TEST_F(CliFaults, FuzzerFindingsAreUsageErrors) {
    expect_failure(run({"gen", "--x%canonical_option%"}), 2,
            "'--x%canonical_option%' holds '%canonical_option%'");
    std::ofstream(dir_ / "p.batch") << "--shape 8 --y%original_token%\n";
    expect_failure(run({"bench", "--batch", "p.batch"}), 2,
            "p.batch:1: '--y%original_token%' holds");
    ASSERT_EQ(run({"gen", "--dist", "normal", "--shape", "8", "--out",
                      "x.npy"})
                      .status,
            0);
    expect_failure(run({"dropout", "--in", "x.npy", "--out", "y.npy",
                           "--rate", "0.1", "--mask-out", ""}),
            2, "--mask-out '' names no file");
    expect_failure(run({"dropout", "--backward", "--in", "x.npy", "--out",
                           "y.npy", "--rate", "0.1", "--mask-in", ""}),
            2, "--mask-in '' names no file");
}

// A value is shown as it was given: every digit that tells it apart.
TEST_F(CliFaults, MessagesShowTheValueAsGiven) {
    expect_failure(run({"gen", "--shape", "8", "--dist", "bernoulli", "--p",
                           "1.0000000000000002", "--out", "m.npy"}),
            2, "--p '1.0000000000000002' is outside [0, 1]");
    ASSERT_EQ(run({"gen", "--dist", "normal", "--shape", "8", "--out",
                      "x.npy"})
                      .status,
            0);
    expect_failure(run({"dropout", "--in", "x.npy", "--out", "y.npy",
                           "--rate", "1.0000000000000002"}),
            2, "--rate '1.0000000000000002' is outside [0, 1]");
    expect_failure(run({"gen", "--shape", "0x4294967296x4294967296", "--out",
                           "t.bin"}),
            2, "shape 0x4294967296x4294967296 overflows");
    // A value is shown as written, not as the double it parses to.
    expect_failure(run({"gen", "--shape", "8", "--dist", "bernoulli", "--p",
                           "5.", "--out", "m.npy"}),
            2, "--p '5.' is outside [0, 1]");
    // The global shape's overflow names the global shape.
    expect_failure(run({"gen", "--shape", "8", "--global-shape",
                           "4611686018427387904", "--out", "m.npy"}),
            2, "--global-shape '4611686018427387904': shape "
               "4611686018427387904 of u32 overflows a 64-bit byte size");
    EXPECT_EQ(files(), std::vector<std::string>({"x.npy"}));
}

} // namespace
