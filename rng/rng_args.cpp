// The RNG's runtime arguments (rng_args.hpp).
#include "rng/rng_args.hpp"

#include <limits>

#include "src/args.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

rng_args_t read_rng_args(const rng_arg_spec_t &spec,
        const std::unordered_map<int, memory> &args) {
    rng_args_t r;
    int64_t i = 0;
    double f = 0;
    if (spec.with_seed) {
        const memory *seed = find_arg(args, RNDNN_ARG_SEED);
        if (!seed) fail(status::invalid_arguments, "seed argument is missing");
        read_scalar(*seed, RNDNN_ARG_SEED, spec.scalars, spec.seed_dt, i, f);
        r.run.seed = static_cast<uint64_t>(i); // an s32 seed was sign-extended
    }

    if (spec.with_offset) {
        const memory *off = find_arg(args, RNDNN_ARG_OFFSET);
        if (!off) fail(status::invalid_arguments, "offset argument is missing");
        read_scalar(*off, RNDNN_ARG_OFFSET, spec.scalars, data_type::s64, i, f);
        if (i < 0)
            fail(status::invalid_arguments,
                    cat("offset=", i, " is negative"));
        if (i > std::numeric_limits<int64_t>::max() - spec.nelems)
            fail(status::invalid_arguments,
                    cat("offset=", i, " plus ", spec.nelems,
                            " elements passes 2^63 - 1"));
        r.run.offset = i;
    }
    if (const memory *s = find_arg(args, RNDNN_ARG_STREAM)) {
        read_scalar(*s, RNDNN_ARG_STREAM, spec.scalars, data_type::s64, i, f);
        r.run.stream = static_cast<uint64_t>(i);
    }
    if (spec.p_arg) r.run.p = read_probability(args, spec.p_arg, spec.scalars);
    if (spec.with_next_offset) {
        const memory *n = find_arg(args, RNDNN_ARG_NEXT_OFFSET);
        if (!n)
            fail(status::invalid_arguments, "next_offset argument is missing");
        const memory::desc &nmd = n->get_desc();
        if (nmd.is_host_scalar() || nmd.get_data_type() != data_type::s64
                || nmd.nelems() != 1 || !n->get_data_handle())
            fail(status::invalid_arguments,
                    cat("next_offset must be a one-element s64 memory, got ",
                            nmd.str()));
        r.next_offset = n->data<int64_t>() + nmd.get_offset0();
    }
    return r;
}

} // namespace impl
} // namespace rndnn
