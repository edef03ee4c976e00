// The --batch files of `rndnn bench`: their lines split into words, read
// one problem at a time, in two passes; shared with the fuzz targets
// (fuzz/).
#ifndef RNDNN_TOOLS_CLI_BENCH_BATCH_HPP
#define RNDNN_TOOLS_CLI_BENCH_BATCH_HPP

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli_bench_problem.hpp"

namespace rndnn_cli {

// The words of a --batch line, split at spaces, tabs and '\r'.
std::vector<std::string> split_words(const std::string &line);

// The longest line a --batch file may hold, in bytes: a problem takes a
// few hundred at most, and a longer line is refused before more of it is
// read (a 200 MB word costs nothing).
constexpr std::size_t max_batch_line = 4096;

// Reads the problems of a --batch file from @p is, one line at a time,
// and calls @p each with each problem as it is parsed: blank lines and
// lines whose first non-blank is '#' are skipped, and a bad line is
// reported as NAME:LINE: message. @p name (the file's path) names the
// file in messages. Memory: one line and one problem, whatever the file.
// @throws usage_error, rndnn::error as parse_problem(), with NAME:LINE:
//     before the message, also for a line longer than max_batch_line
//     bytes or one that holds a NUL byte; usage_error if no line holds a
//     problem; io_error if @p is fails; what @p each throws.
void for_each_batch_problem(std::istream &is, const std::string &name,
        const po::options_description &desc,
        const std::function<void(const problem_t &)> &each);

// Runs the problems of the --batch file at @p path: every line is parsed
// and checked before the first problem runs (the first pass also finds
// the width of the impl column, which @p header gets), then the file is
// read again and @p run makes and runs each problem in turn. A file that
// cannot seek (a pipe) keeps its problems' text between the passes.
// @throws io_error if @p path cannot be read or is a directory; as
//     for_each_batch_problem(), @p header and @p run.
void run_batch_file(const std::string &path,
        const po::options_description &desc,
        const std::function<void(int width)> &header,
        const std::function<void(const problem_t &, int width)> &run);

} // namespace rndnn_cli

#endif
