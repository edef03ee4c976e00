// Output files of the rndnn tools (cli_output.hpp).
#include "cli_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <streambuf>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.hpp"

namespace rndnn_cli {

namespace fs = std::filesystem;

// A stream buffer over a file descriptor that keeps the errno of the first
// failed write (std::ofstream forgets it), so that messages can say why.
class fd_buf : public std::streambuf {
public:
    // Takes @p fd; closes it in close() (never stdout's).
    explicit fd_buf(int fd) : fd_(fd), buf_(std::size_t(1) << 20) {
        setp(buf_.data(), buf_.data() + buf_.size());
    }
    ~fd_buf() override {
        if (fd_ > STDOUT_FILENO) ::close(fd_);
    }
    int error() const { return error_; }
    // Flushes and closes; false (and error() set) on failure.
    bool close() {
        bool ok = drain();
        if (fd_ > STDOUT_FILENO) {
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
    std::vector<char> buf_;
    int error_ = 0;
};

namespace {

std::string quoted(const std::string &path) { return "'" + path + "'"; }

[[noreturn]] void fail_io(const std::string &what, const std::string &path,
        int err) {
    throw io_error(what + " " + quoted(path) + ": " + std::strerror(err));
}

// @p path with every symbolic link on its last component followed, as
// open() would: a dangling link yields the path it points to, which is
// then created.
std::string follow_links(const std::string &path) {
    fs::path p = path;
    for (int hops = 0;; ++hops) {
        struct stat st;
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            return p.string();
        if (hops == 40) fail_io("cannot write", path, ELOOP);
        std::error_code ec;
        const fs::path target = fs::read_symlink(p, ec);
        if (ec) fail_io("cannot follow the link", path, ec.value());
        p = target.is_absolute() ? target : p.parent_path() / target;
    }
}

// The directory that holds @p file ("." for a bare name).
std::string dir_of(const std::string &file) {
    const fs::path parent = fs::path(file).parent_path();
    return parent.empty() ? "." : parent.string();
}

} // namespace

output_file::output_file(const std::string &path) : path_(path) {
    int fd = -1;
    if (path == "-") {
        fd = STDOUT_FILENO;
    } else {
        target_ = follow_links(path);
        struct stat st;
        const bool exists = ::stat(target_.c_str(), &st) == 0;
        if (exists && S_ISDIR(st.st_mode))
            throw io_error("cannot write " + quoted(path)
                    + ": it is a directory");
        if (exists && !S_ISREG(st.st_mode)) {
            // A device or a FIFO: written in place, never replaced.
            fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd < 0) fail_io("cannot open", path, errno);
        } else {
            std::string tmpl = dir_of(target_) + "/.rndnn-XXXXXX";
            fd = ::mkstemp(tmpl.data());
            if (fd < 0) fail_io("cannot create a file beside", path, errno);
            tmp_ = tmpl;
            // mkstemp creates the file 0600: give it the mode of the file
            // it replaces, or the one an ordinary create would (0666 less
            // the umask).
            mode_t mode;
            if (exists) {
                mode = st.st_mode & 07777;
            } else {
                const mode_t mask = ::umask(0);
                ::umask(mask);
                mode = 0666 & ~mask;
            }
            if (::fchmod(fd, mode) != 0) {
                const int err = errno;
                ::close(fd);
                std::remove(tmp_.c_str());
                fail_io("cannot set the mode of", tmp_, err);
            }
        }
    }
    buf_ = std::make_unique<fd_buf>(fd);
    os_ = std::make_unique<std::ostream>(buf_.get());
}

output_file::~output_file() {
    if (!tmp_.empty() && !committed_) std::remove(tmp_.c_str());
}

void output_file::check() {
    if (!buf_->error()) return;
    if (buf_->error() == EPIPE && path_ == "-") throw closed_pipe();
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

void output_file::finish() {
    if (finished_) return;
    os_->flush();
    buf_->close();
    check();
    finished_ = true;
}

void output_file::commit() {
    finish();
    if (!tmp_.empty() && std::rename(tmp_.c_str(), target_.c_str()) != 0)
        fail_io("cannot write", path_, errno);
    committed_ = true;
}

void commit_all(const std::vector<output_file *> &files) {
    for (output_file *f : files)
        f->finish();
    for (output_file *f : files)
        f->commit();
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
    if (path == "-") return std::nullopt;
    std::string target;
    try {
        target = follow_links(path);
    } catch (const io_error &) { return std::nullopt; }
    struct stat st;
    if (::stat(target.c_str(), &st) == 0)
        return S_ISREG(st.st_mode)
                ? std::optional<file_key>({st.st_dev, st.st_ino, ""})
                : std::nullopt;
    if (errno != ENOENT || ::stat(dir_of(target).c_str(), &st) != 0)
        return std::nullopt;
    return file_key {st.st_dev, st.st_ino, fs::path(target).filename()};
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
                throw usage_error(files[j].first + " " + quoted(files[j].second)
                        + " and " + files[i].first + " name the same file "
                        + quoted(files[i].second));
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
