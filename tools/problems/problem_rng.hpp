// The RNG problem of the CLI: its options and parser, shared by `rndnn gen` and `rndnn bench --prim rng`.
#ifndef RNDNN_TOOLS_PROBLEM_RNG_HPP
#define RNDNN_TOOLS_PROBLEM_RNG_HPP

#include "common/cli_common.hpp"

namespace rndnn_cli {

// The options that describe one RNG problem, shared by gen and bench:
// --dist and its parameters (--p, --method, --a, --b, --mean, --stddev),
// --shape, --dtype, the window (--global-shape, --origin) and the stream
// options.
void add_rng_problem_options(po::options_description &desc);

// One RNG problem, parsed strictly: what to hand to
// rndnn::rng::primitive_desc (which checks the rest) and to execute().
struct rng_problem_t {
    rndnn::rng::desc desc; // the dst, with_offset on, the multfly name
    rndnn::primitive_attr attr; // the distribution post-op; no ISA cap
    stream_options_t so;
    // bernoulli's p tensor (read_p_file(); desc.p_tensor is its desc, its
    // rank dst's), or an empty array (dt undef).
    rndnn::npy::array p;
};
// Also checks the offset range (check_offset_range).
// @throws usage_error or rndnn::error naming the bad value; a parameter
//     of another distribution (--p without --dist bernoulli) is refused.
rng_problem_t parse_rng_problem(const po::variables_map &vm);

// Reads bernoulli's p tensor from the .npy file @p path (`rndnn gen
// --p-file`, flag @p flag) into @p p (p.p and p.desc.p_tensor): f32 (<f4)
// or bf16 (<u2, raw bits); a lower rank than dst's gets leading 1s
// (NumPy's broadcasting; the primitive checks the dims).
// @throws usage_error without --dist bernoulli, with --p, or for a p of a
//     higher rank than dst's; rndnn::error as npy::load_file().
void read_p_file(const po::variables_map &vm, const std::string &flag,
        const std::string &path, rng_problem_t &p);

} // namespace rndnn_cli

#endif
