// The problems of `rndnn bench`: their kinds (--prim), options and parser,
// shared by the subcommand (cli_bench.cpp), its --batch reader
// (cli_bench_batch.hpp) and the fuzz targets (fuzz/).
#ifndef RNDNN_TOOLS_CLI_BENCH_PROBLEM_HPP
#define RNDNN_TOOLS_CLI_BENCH_PROBLEM_HPP

#include <string>
#include <unordered_map>
#include <vector>

#include "cli_bench_measure.hpp"
#include "common/cli_common.hpp"
#include "problems/problem_dropout.hpp"
#include "problems/problem_rng.hpp"

namespace rndnn_cli {

struct prim_kind_t;
using args_t = std::unordered_map<int, rndnn::memory>;

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
    // --prim softmax_dropout: softmax along the last dim of --shape, then
    // the dropout of `dropout` (rate, method, alg, mask, backward), as a
    // graph; causal: --causal.
    rndnn::memory::desc scores;
    bool causal = false;
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

} // namespace rndnn_cli

#endif
