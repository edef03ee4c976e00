// The problems of `rndnn bench` and its --batch parser, shared by the
// subcommand (cli_bench.cpp) and the fuzz targets (fuzz/).
#ifndef RNDNN_TOOLS_CLI_BENCH_HPP
#define RNDNN_TOOLS_CLI_BENCH_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

#include "cli_common.hpp"
#include "problem_dropout.hpp"
#include "problem_rng.hpp"

namespace rndnn_cli {

struct prim_kind_t;
using args_t = std::unordered_map<int, rndnn::memory>;

// A problem ready to time: primitives created, buffers allocated.
struct prepared_t {
    std::int64_t elements = 0;
    // The bytes a memcpy copies as the baseline: the output's (the dst
    // desc's get_size()) for rng, the data's (src) for dropout.
    std::size_t bytes = 0;
    std::function<void()> run_impl; // one execution
    // One execution of the reference; empty when run_impl is the
    // reference already (then it is timed once and the ratio is 1).
    std::function<void()> run_ref;
};

// A problem's two primitive descriptors: the implementation's, under the
// --isa cap, and the reference's, the same problem capped with
// cpu_isa::none.
template <typename prim_t>
struct pds_t {
    using desc_t = typename prim_t::desc;
    using pd_t = typename prim_t::primitive_desc;
    pd_t impl, ref;

    pds_t() = default;
    // @p ref_desc is @p desc but where the cap none needs another value.
    pds_t(const desc_t &desc, const desc_t &ref_desc,
            rndnn::primitive_attr attr, rndnn::cpu_isa max_isa) {
        attr.set_max_cpu_isa(max_isa);
        impl = pd_t(desc, attr);
        attr.set_max_cpu_isa(rndnn::cpu_isa::none);
        ref = pd_t(ref_desc, attr);
    }

    // Creates the primitives into t.run_impl and t.run_ref. Both run with
    // the same @p args, so that neither gets cold buffers.
    void prepare(prepared_t &t, const rndnn::stream &strm,
            const args_t &args) const {
        const prim_t prim(impl);
        t.run_impl = [prim, strm, args] { prim.execute(strm, args); };
        if (std::string(impl.impl_name()) != ref.impl_name()) {
            const prim_t ref_prim(ref);
            t.run_ref = [ref_prim, strm, args] {
                ref_prim.execute(strm, args);
            };
        }
    }
};

// One problem, parsed and checked.
struct problem_t {
    std::string text; // as written: the csv problem column
    const prim_kind_t *kind = nullptr; // --prim
    rndnn::cpu_isa max_isa = rndnn::cpu_isa::all; // --isa; no cap
    rndnn::stream strm; // --threads
    // The implementation under test, pd.impl_name(): "jit:avx2",
    // "fused:jit:avx2", ...
    std::string impl;

    // --prim rng: the problem and its primitive descriptors.
    rng_problem_t rng;
    pds_t<rndnn::rng> rng_pds;
    // --prim dropout: the same; dropout.desc is complete (desc_for() of
    // --shape and --dtype, the stored mask of --mask-dtype).
    dropout_problem_t dropout;
    pds_t<rndnn::dropout> dropout_pds;
};

// A kind of problem (--prim): parse() fills the kind's part of a problem
// from its options and checks it, allocating nothing; prepare() makes a
// parsed problem ready to time. Options in own are the kind's alone:
// given with another --prim they are refused.
struct prim_kind_t {
    const char *name;
    void (*parse)(const po::variables_map &vm, problem_t &p);
    prepared_t (*prepare)(const problem_t &p);
    std::vector<const char *> own;
};

// The options that write one problem, on the command line or on a line of
// a --batch file.
po::options_description problem_options();

// Parses one problem from its @p words (options and values); @p text is
// the problem as written (problem_t::text).
// @throws usage_error, po::error or rndnn::error naming the bad value.
problem_t parse_problem(const std::vector<std::string> &words,
        const std::string &text, const po::options_description &desc);

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

} // namespace rndnn_cli

#endif
