// What `rndnn bench` prints: the table of aligned columns, or CSV.
#ifndef RNDNN_TOOLS_CLI_BENCH_REPORT_HPP
#define RNDNN_TOOLS_CLI_BENCH_REPORT_HPP

#include "cli_bench_measure.hpp"
#include "cli_bench_problem.hpp"

namespace rndnn_cli {

// Prints the header: the CSV's (@p csv), or the table's, whose impl column
// is @p width wide, at least the longest name of the run (dropout names
// its plan and every kernel: "chain:jit:avx2+jit:avx2+onednn:...").
void print_header(bool csv, int width);

// Prints the row of problem @p p, prepared as @p t and timed as @p m, and
// flushes it.
// @throws as flush_stdout(): closed_pipe once the reader has gone.
void print_result(bool csv, int width, const problem_t &p,
        const prepared_t &t, const medians_t &m);

} // namespace rndnn_cli

#endif
