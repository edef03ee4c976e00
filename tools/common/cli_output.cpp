// Output files of the rndnn tools (cli_output.hpp).
#include "cli_output.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <random>
#include <streambuf>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.hpp"

namespace rndnn_cli {

namespace fs = std::filesystem;

// A stream buffer over a file descriptor that keeps the errno of the first
// failed write (std::ofstream forgets it), so that messages can say why.
class fd_buf : public std::streambuf {
public:
    // Writes to @p fd, which it closes in close() if it @p owns it (not a
    // descriptor that the process had: stdout, /dev/fd/N).
    fd_buf(int fd, bool owns)
        : fd_(fd), owns_(owns), buf_(std::size_t(1) << 20) {
        setp(buf_.data(), buf_.data() + buf_.size());
    }
    ~fd_buf() override {
        if (owns_ && fd_ >= 0) ::close(fd_);
    }
    int error() const { return error_; }
    int fd() const { return fd_; }
    // Flushes and closes; false (and error() set) on failure.
    bool close() {
        bool ok = drain();
        if (owns_ && fd_ >= 0) {
            if (::close(fd_) != 0 && ok) {
                error_ = errno;
                ok = false;
            }
            fd_ = -1;
        }
        return ok;
    }

protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (traits_type::eq_int_type(c, traits_type::eof()))
            return traits_type::not_eof(c);
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
        return c;
    }
    std::streamsize xsputn(const char *s, std::streamsize n) override {
        // Large writes skip the buffer.
        if (n < static_cast<std::streamsize>(buf_.size()))
            return std::streambuf::xsputn(s, n);
        return drain() && put_all(s, static_cast<std::size_t>(n)) ? n : 0;
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    bool drain() {
        const auto n = static_cast<std::size_t>(pptr() - pbase());
        setp(buf_.data(), buf_.data() + buf_.size());
        return put_all(buf_.data(), n);
    }
    bool put_all(const char *s, std::size_t n) {
        if (error_) return false;
        while (n > 0) {
            const ssize_t w = ::write(fd_, s, n);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                error_ = w < 0 ? errno : EIO;
                return false;
            }
            s += w;
            n -= static_cast<std::size_t>(w);
        }
        return true;
    }

    int fd_;
    bool owns_;
    std::vector<char> buf_;
    int error_ = 0;
};

namespace {

std::string quote_path(const std::string &path) { return "'" + path + "'"; }

[[noreturn]] void fail_io(const std::string &what, const std::string &path,
        int err) {
    throw io_error(what + " " + quote_path(path) + ": " + std::strerror(err));
}

// The directory that holds @p file ("." for a bare name).
std::string dir_of(const std::string &file) {
    const fs::path parent = fs::path(file).parent_path();
    return parent.empty() ? "." : parent.string();
}

// A descriptor link of /proc: /proc/PID/fd/N or /proc/PID/task/TID/fd/N,
// where /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N lead. Its
// target is no path to follow (a pipe's reads "pipe:[123]"; a file's
// name is not the open file, whose offset the descriptor shares).
struct fd_link_t {
    bool is = false;
    bool own = false; // a descriptor of this process
    int fd = -1;
};

// @p digits as a non-negative int; -1 if it is not one.
int parse_digits(const std::string &digits) {
    int v = -1;
    const char *end = digits.data() + digits.size();
    const auto r = std::from_chars(digits.data(), end, v);
    return !digits.empty() && r.ec == std::errc() && r.ptr == end
                    && digits[0] != '-'
            ? v
            : -1;
}

// The process whose descriptors the directory of @p path lists
// ("/proc/PID/fd" or "/proc/PID/task/TID/fd" once its links are
// resolved); -1 for any other directory.
int fd_dir_pid(const std::string &path) {
    char *real = ::realpath(dir_of(path).c_str(), nullptr);
    if (!real) return -1;
    const std::string dir = real;
    std::free(real);
    const std::string proc = "/proc/";
    const size_t pid_end = dir.find('/', proc.size());
    if (dir.compare(0, proc.size(), proc) != 0 || pid_end == std::string::npos)
        return -1;
    const int pid = parse_digits(
            dir.substr(proc.size(), pid_end - proc.size()));
    std::string rest = dir.substr(pid_end);
    const std::string task = "/task/";
    if (rest.compare(0, task.size(), task) == 0) {
        const size_t tid_end = rest.find('/', task.size());
        if (tid_end == std::string::npos
                || parse_digits(rest.substr(task.size(),
                           tid_end - task.size()))
                        < 0)
            return -1;
        rest = rest.substr(tid_end);
    }
    return rest == "/fd" ? pid : -1;
}

fd_link_t fd_link(const std::string &path) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return {};
    fd_link_t l;
    l.fd = parse_digits(fs::path(path).filename().string());
    const int pid = l.fd < 0 ? -1 : fd_dir_pid(path);
    if (pid < 0) return {};
    l.is = true;
    l.own = pid == ::getpid();
    return l;
}

// @p path with every symbolic link on its last component followed, as
// open() would: a dangling link yields the path it points to, which is
// then created. A descriptor link (fd_link) is not followed: it is
// returned.
std::string follow_links(const std::string &path) {
    fs::path p = path;
    for (int hops = 0;; ++hops) {
        struct stat st;
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)
                || fd_link(p.string()).is)
            return p.string();
        if (hops == 40) fail_io("cannot write", path, ELOOP);
        std::error_code ec;
        const fs::path target = fs::read_symlink(p, ec);
        if (ec) fail_io("cannot follow the link", path, ec.value());
        p = target.is_absolute() ? target : p.parent_path() / target;
    }
}

// The directory that holds @p target (links followed), absolute and
// without links. @throws io_error naming @p path if it does not resolve.
std::string real_dir_of(const std::string &path, const std::string &target) {
    char *real = ::realpath(dir_of(target).c_str(), nullptr);
    if (!real) fail_io("cannot create a file beside", path, errno);
    std::string dir = real;
    std::free(real);
    return dir;
}

// The temporary files of this process that a signal must not leave
// behind: fixed slots that the handler reads without allocating
// (async-signal-safe). Only the main thread registers files.
struct temp_slot_t {
    volatile std::sig_atomic_t used;
    char path[PATH_MAX];
};
temp_slot_t temp_slots[8];

// The signals whose default action ends the process and that a user or a
// launcher sends to stop a command (kill, Ctrl-C, a closed terminal,
// timeout, mpirun tearing a job down, a file size limit).
constexpr int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM,
        SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ};

// What a signal of cleanup_signals does, shared by the handler (on any
// thread: OpenMP's too) and commit_all() (async-signal-safe: lock-free).
enum signal_state_t : int {
    signals_end, // it ends the process: the outputs are not committed
    signals_held, // it is held: the outputs are being or were committed
    signals_ending, // one is ending the process
};
std::atomic<int> signal_state {signals_end};
static_assert(std::atomic<int>::is_always_lock_free, "");
// The last signal that arrived while held (0: none).
volatile std::sig_atomic_t held_signal = 0;

// Removes the temporary files and ends the process by @p sig, its default
// action, so that the parent sees it killed by that signal.
// Async-signal-safe.
void remove_temps_and_end(int sig) {
    for (const temp_slot_t &s : temp_slots)
        if (s.used) ::unlink(s.path);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    // In the handler, the signal is blocked until it returns; then the
    // default action ends the process.
    ::raise(sig);
}

extern "C" void on_cleanup_signal(int sig) {
    const int saved = errno;
    int state = signals_end;
    if (signal_state.compare_exchange_strong(state, signals_ending))
        remove_temps_and_end(sig);
    else if (state == signals_held)
        held_signal = sig;
    // signals_ending: another thread is ending the process.
    errno = saved;
}

// Installs the handler once, for each signal that still has its default
// action: one that is ignored (nohup) or handled by someone else stays so.
void install_cleanup_handlers() {
    static const bool installed = [] {
        for (const int sig : cleanup_signals) {
            struct sigaction old;
            if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL
                    || (old.sa_flags & SA_SIGINFO))
                continue;
            struct sigaction sa {};
            sa.sa_handler = on_cleanup_signal;
            sigemptyset(&sa.sa_mask);
            ::sigaction(sig, &sa, nullptr);
        }
        return true;
    }();
    (void)installed;
}

// From here on a signal of cleanup_signals is held (commit_all() in
// cli_output.hpp). Where one is already ending the process, waits for
// the end: nothing may be committed then.
void hold_cleanup_signals() {
    install_cleanup_handlers();
    int state = signals_end;
    if (signal_state.compare_exchange_strong(state, signals_held)
            || state == signals_held)
        return;
    for (;;)
        ::pause();
}

// The test hook of commit_all(): the signal number in
// RNDNN_TEST_SIGNAL_IN_COMMIT, which the process sends itself after each
// output it commits; 0 where it is not set (always, outside tests).
int test_signal_in_commit() {
    const char *v = std::getenv("RNDNN_TEST_SIGNAL_IN_COMMIT");
    int sig = 0;
    if (v) std::from_chars(v, v + std::strlen(v), sig);
    return sig;
}

// Registers @p path for removal on a signal. @returns its slot.
int register_temp(const std::string &path) {
    install_cleanup_handlers();
    for (int i = 0; i < static_cast<int>(std::size(temp_slots)); ++i) {
        temp_slot_t &s = temp_slots[i];
        if (s.used) continue;
        if (path.size() >= sizeof(s.path))
            fail_io("cannot create a file beside", path, ENAMETOOLONG);
        std::memcpy(s.path, path.c_str(), path.size() + 1);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        s.used = 1;
        return i;
    }
    throw std::logic_error("output_file: more temporary files at once than "
                           "the signal handler has slots for");
}

void unregister_temp(int slot) {
    if (slot >= 0) temp_slots[slot].used = 0;
}

// A name for a temporary file in @p dir: ".rndnn-" and 6 random letters.
std::string temp_name(const std::string &dir) {
    static const char letters[]
            = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static std::minstd_rand gen(std::random_device {}());
    std::string name = dir + "/.rndnn-";
    for (int i = 0; i < 6; ++i)
        name += letters[gen() % (sizeof(letters) - 1)];
    return name;
}

// Whether an anonymous file can be given a name at the end: linkat()
// reaches it through /proc/self/fd.
bool can_link_anonymous() { return ::access("/proc/self/fd", X_OK) == 0; }

// How output_file writes a path (the rules in cli_output.hpp).
struct out_target_t {
    enum kind_t {
        replaced, // a regular file or a new one: a temporary renamed over it
        in_place, // a device, a FIFO, another process's descriptor
        descriptor, // "-" and this process's descriptors: written to them
        directory, // refused
    } kind;
    std::string target; // links followed; empty for a descriptor
    int fd = -1; // a descriptor's
    bool exists = false; // whether the target exists
    struct stat st {}; // then its status
    int stat_errno = 0; // else why stat() failed (ENOENT: a new file)
};

// @throws io_error naming @p path if its links cannot be followed or it
//     names a descriptor that is not open.
out_target_t classify(const std::string &path) {
    out_target_t t;
    if (path == "-") {
        t.kind = out_target_t::descriptor;
        t.fd = STDOUT_FILENO;
        return t;
    }
    t.target = follow_links(path);
    const fd_link_t link = fd_link(t.target);
    if (link.own) {
        t.kind = out_target_t::descriptor;
        t.fd = link.fd;
        t.target.clear();
        return t;
    }
    t.exists = ::stat(t.target.c_str(), &t.st) == 0;
    t.stat_errno = t.exists ? 0 : errno;
    // /dev/fd/7 where 7 is not open: no file to create there.
    if (!t.exists && fd_dir_pid(t.target) >= 0)
        fail_io("cannot write", path, EBADF);
    t.kind = t.exists && S_ISDIR(t.st.st_mode) ? out_target_t::directory
            : link.is || (t.exists && !S_ISREG(t.st.st_mode))
            ? out_target_t::in_place
            : out_target_t::replaced;
    return t;
}

} // namespace

bool replaces(const std::string &path) {
    return classify(path).kind == out_target_t::replaced;
}

std::string resolved_path(const std::string &path) {
    if (path == "-") return path;
    const std::string target = follow_links(path);
    return real_dir_of(path, target) + "/"
            + fs::path(target).filename().string();
}

output_file::output_file(const std::string &path) : path_(path) {
    const out_target_t t = classify(path);
    target_ = t.target;
    int fd = -1;
    switch (t.kind) {
        case out_target_t::directory:
            throw io_error("cannot write " + quote_path(path)
                    + ": it is a directory");
        case out_target_t::descriptor:
            // Written as the stream it is, at its offset, as `--out -`.
            stream_fd_ = t.fd;
            break;
        case out_target_t::in_place:
            // Never replaced. A regular file behind another process's
            // descriptor is appended to, as that process writes it.
            fd = ::open(target_.c_str(),
                    O_WRONLY | O_CLOEXEC
                            | (t.exists && S_ISREG(t.st.st_mode) ? O_APPEND
                                                                 : 0));
            if (fd < 0) fail_io("cannot open", path, errno);
            break;
        case out_target_t::replaced:
            fd = create_temp(t.exists ? &t.st : nullptr);
            break;
    }
    buf_ = stream_fd_ >= 0 ? std::make_unique<fd_buf>(stream_fd_, false)
                           : std::make_unique<fd_buf>(fd, true);
    os_ = std::make_unique<std::ostream>(buf_.get());
}

int output_file::create_temp(const struct stat *old) {
    // A file the caller could not write in place is not replaced either
    // (root writes anything: there, a file without any write bit). A
    // read-only file system fails below, with its own reason.
    if (old
            && ((::faccessat(AT_FDCWD, target_.c_str(), W_OK, AT_EACCESS) != 0
                        && errno == EACCES)
                    || (::geteuid() == 0 && !(old->st_mode & 0222)))) {
        char mode[8];
        std::snprintf(mode, sizeof(mode), "%04o",
                static_cast<unsigned>(old->st_mode & 07777));
        throw io_error("cannot write " + quote_path(path_)
                + ": it is read-only for this user (mode " + mode
                + "); make it writable or remove it first");
    }
    dir_ = real_dir_of(path_, target_);
    // The mode of the file it replaces without setuid, setgid and sticky
    // bits, or the one an ordinary create would have (0666 less the umask).
    mode_t mode;
    if (old) {
        mode = old->st_mode & 0777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    // Anonymous where the file system allows it: nothing to remove if the
    // process dies, even by SIGKILL. Otherwise a named file that the
    // signal handler removes.
    int fd = can_link_anonymous()
            ? ::open(dir_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600)
            : -1;
    if (fd < 0) {
        // No signal between the file's creation and its registration.
        sigset_t block, was;
        sigemptyset(&block);
        for (const int sig : cleanup_signals)
            sigaddset(&block, sig);
        ::pthread_sigmask(SIG_BLOCK, &block, &was);
        std::string tmpl = dir_ + "/.rndnn-XXXXXX";
        fd = ::mkstemp(tmpl.data());
        const int err = errno;
        if (fd >= 0) {
            tmp_ = tmpl;
            slot_ = register_temp(tmp_);
        }
        ::pthread_sigmask(SIG_SETMASK, &was, nullptr);
        if (fd < 0) fail_io("cannot create a file beside", path_, err);
    }
    // The owner and group of the file it replaces, where the caller may
    // give them (root: both; others: a group they are in), then the mode
    // (chown clears setuid bits: after it).
    if (old && (old->st_uid != ::geteuid() || old->st_gid != ::getegid())
            && ::fchown(fd, old->st_uid, old->st_gid) != 0)
        (void)::fchown(fd, static_cast<uid_t>(-1), old->st_gid);
    if (::fchmod(fd, mode) != 0) {
        const int err = errno;
        ::close(fd);
        drop_temp();
        fail_io("cannot set the mode of a file beside", path_, err);
    }
    return fd;
}

void output_file::drop_temp() {
    if (tmp_.empty()) return;
    std::remove(tmp_.c_str());
    unregister_temp(slot_);
    slot_ = -1;
    tmp_.clear();
}

output_file::~output_file() {
    if (!committed_) drop_temp();
}

void output_file::check() {
    if (!buf_->error()) return;
    if (buf_->error() == EPIPE && stream_fd_ == STDOUT_FILENO)
        throw closed_pipe();
    if (path_ == "-")
        throw io_error(std::string("cannot write to stdout: ")
                + std::strerror(buf_->error()));
    fail_io("cannot write", path_, buf_->error());
}

void output_file::write(const rndnn::memory &mem, bool npy) {
    try {
        if (npy)
            rndnn::npy::save(*os_, mem);
        else
            rndnn::npy::save_raw(*os_, mem);
    } catch (const rndnn::error &) {
        check(); // a failed write: say why
        throw;
    }
}

void output_file::write(const void *data, std::size_t n) {
    os_->write(static_cast<const char *>(data),
            static_cast<std::streamsize>(n));
    check();
}

void output_file::reserve(std::int64_t bytes) {
    os_->flush();
    check();
    if (dir_.empty() || bytes <= 0) return;
    const int rc = ::fallocate(buf_->fd(), 0, 0, static_cast<off_t>(bytes));
    // A file system without fallocate: the size is checked at the end.
    if (rc != 0 && errno != EOPNOTSUPP) fail_io("cannot write", path_, errno);
}

void output_file::finish() {
    if (finished_) return;
    os_->flush();
    check();
    if (!dir_.empty() && tmp_.empty()) {
        // The anonymous file gets its temporary name now, while its
        // descriptor is open: linkat() fails with EEXIST on a taken name.
        const std::string fd_path = "/proc/self/fd/" + std::to_string(buf_->fd());
        for (int tries = 0;; ++tries) {
            std::string name = temp_name(dir_);
            // Registered first: a signal between the link and the
            // registration would leave the file.
            slot_ = register_temp(name);
            if (::linkat(AT_FDCWD, fd_path.c_str(), AT_FDCWD, name.c_str(),
                        AT_SYMLINK_FOLLOW)
                    == 0) {
                tmp_ = name;
                break;
            }
            const int err = errno;
            unregister_temp(slot_);
            slot_ = -1;
            if (err != EEXIST || tries == 100)
                fail_io("cannot write", path_, err);
        }
    }
    buf_->close();
    check();
    finished_ = true;
}

void output_file::check_size(std::int64_t bytes) const {
    struct stat st;
    if (::stat(tmp_.c_str(), &st) != 0) fail_io("cannot write", path_, errno);
    if (st.st_size != bytes)
        throw io_error("cannot write " + quote_path(path_) + ": the file holds "
                + std::to_string(st.st_size) + " bytes, not the "
                + std::to_string(bytes) + " written");
}

void output_file::commit() { commit_all({this}); }

void output_file::replace() {
    if (!tmp_.empty() && std::rename(tmp_.c_str(), target_.c_str()) != 0) {
        const int err = errno;
        // A file that is a mount point of its own (a bind mount: Docker's
        // -v file:file, a Kubernetes subPath) cannot be replaced (EBUSY),
        // nor one on another file system (EXDEV): it is written in place.
        if (err != EBUSY && err != EXDEV) fail_io("cannot write", path_, err);
        copy_in_place(err);
        drop_temp();
    }
    unregister_temp(slot_);
    slot_ = -1;
    committed_ = true;
}

void output_file::copy_in_place(int rename_errno) {
    int err = 0;
    const int in = ::open(tmp_.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) err = errno;
    // Cut to size after the copy, not before: the file never holds fewer
    // bytes than both its old and its new contents.
    const int out = err ? -1 : ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
    if (!err && out < 0) err = errno;
    std::vector<char> buf(err ? 0 : std::size_t(1) << 20);
    off_t size = 0;
    while (!err) {
        const ssize_t n = ::read(in, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) err = errno;
        if (n <= 0) break;
        for (ssize_t done = 0; done < n && !err;) {
            const ssize_t w = ::write(out, buf.data() + done,
                    static_cast<std::size_t>(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) err = w < 0 ? errno : EIO;
            done += std::max<ssize_t>(w, 0);
        }
        size += n;
    }
    if (!err && ::ftruncate(out, size) != 0) err = errno;
    if (out >= 0 && ::close(out) != 0 && !err) err = errno;
    if (in >= 0) ::close(in);
    if (err)
        throw io_error("cannot write " + quote_path(path_)
                + " in place (renaming over it failed: "
                + std::strerror(rename_errno) + "): " + std::strerror(err));
}

void commit_all(const std::vector<output_file *> &files) {
    for (output_file *f : files)
        f->finish();
    // The outputs are whole: from the first rename on, a signal no longer
    // ends the command, so that the outputs are committed together and a
    // committed run reports success.
    hold_cleanup_signals();
    const int test_signal = test_signal_in_commit();
    for (output_file *f : files) {
        f->replace();
        if (test_signal) ::kill(::getpid(), test_signal);
    }
}

void release_signals() {
    int state = signals_held;
    if (!signal_state.compare_exchange_strong(state, signals_end)) return;
    const int sig = held_signal;
    held_signal = 0;
    state = signals_end;
    if (sig && signal_state.compare_exchange_strong(state, signals_ending))
        remove_temps_and_end(sig);
}

namespace {

// What a path names for check_distinct(): the device and inode of an
// existing regular file, or of the directory that would hold a new one
// plus its name. Nothing for special files and unreachable paths (which
// fail later, with their own message).
struct file_key {
    dev_t dev;
    ino_t ino;
    std::string name;
    bool operator==(const file_key &o) const {
        return dev == o.dev && ino == o.ino && name == o.name;
    }
};

std::optional<file_key> key_of(const std::string &path) {
    out_target_t t;
    try {
        t = classify(path);
    } catch (const io_error &) { return std::nullopt; }
    if (t.kind != out_target_t::replaced) return std::nullopt;
    if (t.exists) return file_key {t.st.st_dev, t.st.st_ino, ""};
    struct stat st;
    if (t.stat_errno != ENOENT || ::stat(dir_of(t.target).c_str(), &st) != 0)
        return std::nullopt;
    return file_key {st.st_dev, st.st_ino, fs::path(t.target).filename()};
}

} // namespace

void check_distinct(
        const std::vector<std::pair<std::string, std::string>> &files) {
    std::vector<std::optional<file_key>> keys;
    for (const auto &f : files)
        keys.push_back(key_of(f.second));
    for (std::size_t i = 0; i < files.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (keys[i] && keys[j] && *keys[i] == *keys[j])
                throw usage_error(files[j].first + " " + quote_path(files[j].second)
                        + " and " + files[i].first + " name the same file "
                        + quote_path(files[i].second));
}

void flush_stdout() {
    errno = 0;
    std::cout.flush();
    if (std::cout) return;
    const int err = errno;
    if (err == EPIPE) throw closed_pipe();
    throw io_error(std::string("cannot write to stdout: ")
            + (err ? std::strerror(err) : "write failed"));
}

} // namespace rndnn_cli
