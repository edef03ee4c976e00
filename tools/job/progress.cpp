// The progress line (progress.hpp).
#include "progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <unistd.h>

#include "job.hpp"

namespace rndnn_cli {

namespace {

// 1536 -> "1.5 KiB".
std::string bytes_str(double b) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) {
        b /= 1024;
        ++u;
    }
    char s[32];
    std::snprintf(s, sizeof s, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
    return s;
}

} // namespace

progress_t::progress_t(const std::string &what, std::int64_t total, bool quiet)
    : what_(what)
    , total_(total)
    , on_(!quiet && total >= min_total && job_t::get().rank() == 0
              && ::isatty(STDERR_FILENO))
    , start_(clock::now())
    , last_(start_) {}

progress_t::~progress_t() {
    // The last line stays, ended: what follows (a prompt, an error) starts
    // a line of its own.
    if (drawn_) std::fputs("\n", stderr);
}

std::string progress_t::line(const std::string &what, std::int64_t done,
        std::int64_t total, double seconds) {
    // A bit tensor's byte-aligned shares may pass their estimate by a few
    // bytes.
    done = std::min(done, total);
    std::string s = what + ": " + bytes_str(static_cast<double>(done)) + " of "
            + bytes_str(static_cast<double>(total));
    if (total > 0) {
        char pct[16];
        std::snprintf(pct, sizeof pct, " (%d%%)",
                static_cast<int>(100.0 * static_cast<double>(done)
                        / static_cast<double>(total)));
        s += pct;
    }
    if (seconds > 0 && done > 0) {
        const double rate = static_cast<double>(done) / seconds;
        s += ", " + bytes_str(rate) + "/s";
        const double left = static_cast<double>(total - done) / rate;
        char eta[32];
        std::snprintf(eta, sizeof eta, ", %.0f s left", std::ceil(left));
        s += eta;
    }
    return s;
}

void progress_t::add(std::int64_t bytes) {
    done_ += bytes;
    if (!on_) return;
    const clock::time_point now = clock::now();
    if (now - last_ < std::chrono::milliseconds(250) && done_ < total_) return;
    last_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r\033[K%s", line(what_, done_, total_, seconds).c_str());
    std::fflush(stderr);
    drawn_ = true;
}

} // namespace rndnn_cli
