// Output files of the rndnn tools: atomic for regular files, in place for
// special files, stdout; every write error names the path and its cause.
//
// The rules (docs/cli.md, "Reliability"):
// - A path that does not exist, or names a regular file, is written to a
//   temporary file beside it and renamed over it only once the whole
//   output is written: a failed run leaves nothing. The temporary file is
//   anonymous (O_TMPFILE) until it is complete, then linked as
//   ".rndnn-XXXXXX" in the same directory (a short name, so that a
//   255-byte file name still works) until the rename; where the file
//   system has no anonymous files it is named from the start. A signal
//   that ends the process (INT, TERM, HUP, QUIT, ALRM, USR1, USR2, XCPU,
//   XFSZ) removes a named one first; SIGKILL leaves nothing of an
//   anonymous one.
// - A file that cannot be replaced, being a mount point of its own (a
//   bind-mounted file: rename fails with EBUSY) or on another file system
//   (EXDEV), gets the complete temporary file's bytes copied into it in
//   place (then cut to their size), and the temporary file is removed.
// - Committing is a command's last step (commit_all): from the first
//   rename on, those signals are held, never ending the process, so that
//   the outputs are committed together and the command ends with the
//   commit's status (0 once all are in place).
// - A replaced file keeps its permission bits (not setuid, setgid or
//   sticky) and, where the caller may give them, its owner and group. A
//   file the caller could not write in place (root: one without any write
//   bit) is refused, not replaced.
// - A symbolic link is followed: its target is written that way.
// - A path that exists and is no regular file (a device such as /dev/null
//   or /dev/full, a FIFO) is opened and written in place: never replaced.
//   So is another process's descriptor (/proc/PID/fd/N), appended to
//   where it is a regular file.
// - "-" is stdout. A reader that closes it early (`| head -c 100`) ends the
//   command quietly with exit status 0 (closed_pipe).
// - A path that names a descriptor of this process (/dev/stdout,
//   /dev/stderr, /dev/fd/N, /proc/self/fd/N, or a link to one) is that
//   descriptor, written as the stream it is, at its offset, as "-" writes
//   stdout; /dev/stdout is "-" in all but the name in messages.
#ifndef RNDNN_TOOLS_CLI_OUTPUT_HPP
#define RNDNN_TOOLS_CLI_OUTPUT_HPP

#include <cstdint>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "rndnn/rndnn.hpp"

namespace rndnn_cli {

// Stdout's reader has gone (EPIPE): run_guarded() ends the command quietly
// with exit status 0, as `head` expects of a writer.
class closed_pipe : public std::runtime_error {
public:
    closed_pipe() : std::runtime_error("stdout was closed by its reader") {}
};

class fd_buf;

class output_file {
public:
    // Opens @p path as the rules above say.
    // @throws io_error naming @p path if it is a directory, a read-only
    //     file, its links cannot be followed, or it cannot be opened or
    //     created.
    explicit output_file(const std::string &path);
    // Removes the temporary file unless commit() renamed it.
    ~output_file();
    output_file(const output_file &) = delete;
    output_file &operator=(const output_file &) = delete;

    // The stream to write to. Prefer write(), which names the failure.
    std::ostream &stream() { return *os_; }
    // Writes @p mem as a .npy file (@p npy) or its raw bytes.
    // @throws io_error naming the path and the system's reason (ENOSPC,
    //     EIO, ...), closed_pipe for stdout's closed pipe, and
    //     rndnn::error as npy::save().
    void write(const rndnn::memory &mem, bool npy);
    // Writes @p n bytes at @p data. @throws as write().
    void write(const void *data, std::size_t n);
    // Allocates the file's first @p bytes on disk (fallocate), so that a
    // full disk fails here and not in writes that another process makes
    // (MPI-IO). Nothing for stdout, special files and file systems without
    // fallocate. @throws as write().
    void reserve(std::int64_t bytes);
    // Flushes, names the temporary file and closes it; the output stays
    // temporary. @throws as write().
    void finish();
    // After finish(): @throws io_error naming the path unless the
    // temporary file holds exactly @p bytes.
    void check_size(std::int64_t bytes) const;
    // commit_all() of this file alone.
    void commit();
    // After finish(): the temporary file that commit() renames into place,
    // an absolute path; empty for stdout and special files, which are
    // written in place.
    const std::string &temp_path() const { return tmp_; }

private:
    friend void commit_all(const std::vector<output_file *> &files);
    // After finish(): renames the temporary file into place, or copies it
    // in where the target cannot be replaced (nothing to do for
    // descriptors and special files). @throws io_error naming the path.
    void replace();
    // Copies the temporary file into the target in place, after a rename
    // that failed with @p rename_errno. @throws io_error naming the path
    // and both causes.
    void copy_in_place(int rename_errno);
    // Throws the error that the last write recorded, if any.
    void check();
    // Creates the temporary file that will replace @p old (nullptr: a new
    // file). @returns its descriptor.
    int create_temp(const struct stat *old);
    // Removes the named temporary file, if any.
    void drop_temp();

    std::string path_; // as given, for messages
    int stream_fd_ = -1; // the descriptor written to, if one of ours
    std::string target_; // the file renamed over: links followed
    std::string dir_; // its directory, absolute; empty unless atomic
    std::string tmp_; // the temporary file's name, once it has one
    int slot_ = -1; // tmp_'s slot in the signal handler's list
    std::unique_ptr<fd_buf> buf_;
    std::unique_ptr<std::ostream> os_;
    bool finished_ = false;
    bool committed_ = false;
};

// @p path ("-" stays "-") as an absolute path whose directory has no
// symbolic links, its own links followed: the file that output_file
// writes, named the same wherever the process runs.
// @throws io_error naming @p path if its directory does not resolve.
std::string resolved_path(const std::string &path);

// Whether output_file replaces @p path (a regular file or a new one):
// false for what it writes in place (stdout, a descriptor, a device, a
// FIFO) and for a directory, which it refuses.
// @throws io_error naming @p path if its links cannot be followed.
bool replaces(const std::string &path);

// Commits the outputs of a command, its last step: every one is finished
// (written out and checked) before the first is renamed, so a failed write
// leaves none of them. Then the signals that end a command (above) are
// held for the rest of the process: one that arrives during or after the
// renames no longer ends it, so that it cannot leave some outputs
// committed and others not, nor report a committed run as killed; it is
// dropped when the process exits. A program with work after its commit
// calls release_signals().
// Test hook: with RNDNN_TEST_SIGNAL_IN_COMMIT=N in the environment, the
// process sends itself signal N after each output it commits
// (tests/test_cli_faults.cpp).
// @throws io_error naming the path that failed.
void commit_all(const std::vector<output_file *> &files);

// Ends the hold of commit_all(): a signal that arrived while held now ends
// the process, as it would have without the hold (its outputs stay
// committed).
void release_signals();

// Refuses two of @p files (pairs of flag and path) that name the same
// regular file, or the same name of one still to be created: compared by
// device and inode after following links, never as strings. Special files
// (/dev/null, a FIFO) may be named more than once.
// @throws usage_error naming both flags and paths.
void check_distinct(
        const std::vector<std::pair<std::string, std::string>> &files);

// Flushes std::cout. @throws closed_pipe if its reader has gone, io_error
// naming the cause for any other failure.
void flush_stdout();

} // namespace rndnn_cli

#endif
