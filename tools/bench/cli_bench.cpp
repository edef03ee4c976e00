// `rndnn bench`: times problems written as `rndnn gen` options or as
// dropout problems, against a memcpy of their output (dropout: of their
// data) and against the reference kernel (docs/cli.md).
//
// A problem goes through three steps: parse (every value checked, the
// primitive descriptors created, nothing allocated), prepare (primitives
// and buffers: what one execution runs), then measure, which is the same
// for every kind of problem. A kind (--prim) is one row of prim_kinds
// (cli_bench_problem.cpp); --batch files are read by cli_bench_batch.cpp,
// problems timed by cli_bench_measure.cpp and printed by
// cli_bench_report.cpp.
#include <algorithm>
#include <string>
#include <vector>

#include "cli_bench_batch.hpp"
#include "cli_bench_measure.hpp"
#include "cli_bench_problem.hpp"
#include "cli_bench_report.hpp"

namespace rndnn_cli {

namespace {

using std::string;
using words_t = std::vector<string>;

const char *const usage
        = "rndnn bench [problem options] [--runs N] [--csv]\n"
          "       rndnn bench --batch FILE [--runs N] [--csv]\n"
          "\n"
          "Times problems written as `rndnn gen` options (--prim rng, the\n"
          "default) or as dropout problems (--prim dropout). Each primitive\n"
          "is created once and run once to warm up; then N rounds (--runs)\n"
          "each time, in turn: the implementation; a memcpy of its bytes\n"
          "(rng: the dst's get_size(); dropout: the data's, src) between two\n"
          "buffers touched beforehand, on the problem's threads (each copying\n"
          "at least 64 KiB); and the reference kernel (the same problem with\n"
          "--isa none). t_impl, t_memcpy and t_ref are the medians of the N\n"
          "times, in seconds:\n"
          "\n"
          "  median_s            t_impl\n"
          "  Gelem/s             elements / t_impl / 1e9\n"
          "  GB/s                the memcpy's bytes / t_impl / 1e9\n"
          "  ratio_to_memcpy     t_memcpy / t_impl (> 1: faster than\n"
          "                      copying those bytes once)\n"
          "  ratio_to_reference  t_ref / t_impl (> 1: faster than the\n"
          "                      reference; exactly 1 when the implementation\n"
          "                      is the reference, which then runs once)\n"
          "\n"
          "--csv prints the header\n"
          "  problem,impl,threads,elements,median_s,gelem_per_s,gb_per_s,"
          "ratio_to_memcpy,ratio_to_reference\n"
          "then one row per problem; problem is the problem's options as\n"
          "written, double-quoted.";

} // namespace

int bench_main(int argc, char **argv) {
    const po::options_description problem_desc = problem_options();
    po::options_description bench_desc
            = options_with_help("Benchmark options");
    auto opt = bench_desc.add_options();
    opt("batch", text(),
            "file of problems, one per line (blank lines and lines starting "
            "with # skipped); not with problem options");
    opt("runs", text("11"), "timed runs per problem, >= 1 (the median counts)");
    opt("csv", "print CSV instead of aligned columns");
    po::options_description all;
    all.add(bench_desc).add(problem_desc);

    po::variables_map vm;
    std::vector<po::option> parsed;
    if (!parse_options(
                words_t(argv + 1, argv + argc), all, usage, vm, &parsed))
        return exit_ok;

    const string runs_text = vm["runs"].as<string>();
    const int runs = parse_int("--runs", runs_text);
    if (runs < 1)
        throw usage_error("--runs " + runs_text + " must be at least 1");
    const bool csv = vm.count("csv") > 0;

    // The problem options of the command line, as written: the problem
    // then reads the same as it would on a line of a batch file.
    words_t problem_words;
    for (const po::option &o : parsed)
        if (problem_desc.find_nothrow(o.string_key, false))
            problem_words.insert(problem_words.end(),
                    o.original_tokens.begin(), o.original_tokens.end());

    const auto run = [&](const problem_t &p, int width) {
        const prepared_t t = p.kind->prepare(p);
        const medians_t m = measure(t, p.strm.get_nthreads(), runs);
        print_result(csv, width, p, t, m);
    };
    if (vm.count("batch")) {
        if (!problem_words.empty())
            throw usage_error("--batch takes no problem options on the"
                              " command line (got '"
                    + problem_words[0]
                    + "'): write them in the batch file");
        run_batch_file(vm["batch"].as<string>(), problem_desc,
                [&](int width) { print_header(csv, width); }, run);
        return exit_ok;
    }
    if (problem_words.empty())
        throw usage_error("no problem given: write one with problem"
                          " options (at least --shape) or give --batch"
                          " FILE");
    string text;
    for (const string &w : problem_words)
        text += (text.empty() ? "" : " ") + w;
    const problem_t p = parse_problem(problem_words, text, problem_desc);
    const int width = static_cast<int>(std::max<size_t>(12, p.impl.size()));
    print_header(csv, width);
    run(p, width);
    return exit_ok;
}

} // namespace rndnn_cli
