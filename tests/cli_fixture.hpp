// The fixture of the CLI suites: runs `rndnn` as a child process in a
// fresh directory and captures its exit status, stdout and stderr.
#ifndef RNDNN_TESTS_CLI_FIXTURE_HPP
#define RNDNN_TESTS_CLI_FIXTURE_HPP

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace rndnn {
namespace test {

namespace fs = std::filesystem;
using args_t = std::vector<std::string>;
using bytes_t = std::string;

struct result_t {
    int status = -1; // exit status, or -1 if the shell did not exit
    bytes_t out; // stdout
    std::string err; // stderr
};

inline bytes_t read_file(const fs::path &path) {
    std::ifstream is(path, std::ios::binary);
    return bytes_t(std::istreambuf_iterator<char>(is), {});
}

inline std::string quote(const std::string &s) {
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline std::string make_temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "rndnn_cli.XXXXXX");
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    return tmpl;
}

class Cli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = make_temp_dir(); // where the CLI runs and writes
        scratch_ = make_temp_dir(); // its captured stdout and stderr
    }
    void TearDown() override {
        fs::remove_all(dir_);
        fs::remove_all(scratch_);
    }

    // Runs a bash script in dir_; $RNDNN is the CLI.
    result_t sh(const std::string &script) {
        const fs::path file = scratch_ / "script.sh";
        std::ofstream(file) << "set -o pipefail\nRNDNN="
                            << quote(RNDNN_CLI_PATH) << "\ncd " << quote(dir_)
                            << " || exit 99\n" << script << "\n";
        const std::string cmd = "bash " + quote(file) + " >"
                + quote(scratch_ / "out") + " 2>" + quote(scratch_ / "err");
        const int rc = std::system(cmd.c_str());
        result_t r;
        r.status = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
        r.out = read_file(scratch_ / "out");
        r.err = read_file(scratch_ / "err");
        return r;
    }

    // Runs `rndnn args...` in dir_.
    result_t run(const args_t &args) {
        std::string line = "\"$RNDNN\"";
        for (const std::string &a : args)
            line += " " + quote(a);
        return sh(line);
    }

    // Runs `rndnn args...`, expects success and returns the file @p out.
    bytes_t gen_file(const args_t &args, const std::string &out) {
        const result_t r = run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        return read_file(dir_ / out);
    }

    // Runs `rndnn args...` in dir_, its output discarded, and @returns
    // its peak resident memory in KiB, as wait4() reports it; expects exit
    // status @p status.
    long max_rss_kib(const args_t &args, int status) {
        std::vector<std::string> words = {RNDNN_CLI_PATH};
        words.insert(words.end(), args.begin(), args.end());
        std::vector<char *> argv;
        for (std::string &w : words)
            argv.push_back(w.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addchdir_np(&actions, dir_.c_str());
        for (const int fd : {STDOUT_FILENO, STDERR_FILENO})
            posix_spawn_file_actions_addopen(
                    &actions, fd, "/dev/null", O_WRONLY, 0);
        pid_t pid = -1;
        const int rc = ::posix_spawn(
                &pid, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        EXPECT_EQ(rc, 0);
        if (rc != 0) return -1;
        int wstatus = 0;
        struct rusage ru {};
        EXPECT_EQ(::wait4(pid, &wstatus, 0, &ru), pid);
        EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == status)
                << wstatus;
        EXPECT_GT(ru.ru_maxrss, 0);
        return ru.ru_maxrss;
    }

    // Names of everything in dir_, sorted.
    std::vector<std::string> files() const {
        std::vector<std::string> names;
        for (const auto &e : fs::directory_iterator(dir_))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

    fs::path dir_, scratch_;
};

// A command line that must fail, and what its message must name.
struct bad_case_t {
    args_t args;
    std::string named; // stderr must contain this
};

// The words joined by spaces, for SCOPED_TRACE.
inline std::string joined(const args_t &args) {
    std::string line;
    for (const std::string &a : args)
        line += a + " ";
    return line;
}

// Checks a failed run: exit status @p status, nothing on stdout, and a
// message on stderr that starts with "rndnn: " and names @p named.
inline void expect_failure(
        const result_t &r, int status, const std::string &named) {
    EXPECT_EQ(r.status, status);
    EXPECT_EQ(r.err.rfind("rndnn: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

} // namespace test
} // namespace rndnn

#endif
