// The progress line of `rndnn gen` and `rndnn dropout`: on stderr, only
// when stderr is a terminal (never in a pipe or a file, and so never under
// mpirun, which gives its ranks pipes), only for outputs of
// progress_t::min_total bytes or more, and only on rank 0.
#ifndef RNDNN_TOOLS_PROGRESS_HPP
#define RNDNN_TOOLS_PROGRESS_HPP

#include <chrono>
#include <cstdint>
#include <string>

namespace rndnn_cli {

class progress_t {
public:
    // Below this many bytes (4 MiB) no line is drawn: the work is done
    // before a line could say anything.
    static constexpr std::int64_t min_total = std::int64_t(4) << 20;

    // @p what names the work ("rndnn gen"); @p total is the bytes this
    // rank will write (its share: under mpirun, rank 0's share stands for
    // every rank's, which are as large within one piece). Silent if
    // @p quiet, if @p total is under min_total, if stderr is no terminal,
    // or on ranks other than 0.
    progress_t(const std::string &what, std::int64_t total, bool quiet);
    // Ends the line if one was drawn.
    ~progress_t();
    progress_t(const progress_t &) = delete;
    progress_t &operator=(const progress_t &) = delete;

    // @p bytes more are written. Redraws at most 4 times a second: size
    // done, the rate and the time left.
    void add(std::int64_t bytes);

    // The line for @p done of @p total bytes after @p seconds, e.g.
    // "rndnn gen: 1.5 GiB of 4.0 GiB (37%), 812 MiB/s, 3 s left".
    static std::string line(const std::string &what, std::int64_t done,
            std::int64_t total, double seconds);

private:
    using clock = std::chrono::steady_clock;
    std::string what_;
    std::int64_t total_ = 0, done_ = 0;
    bool on_ = false, drawn_ = false;
    clock::time_point start_, last_;
};

} // namespace rndnn_cli

#endif
