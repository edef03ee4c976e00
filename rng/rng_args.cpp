// The RNG's runtime arguments (rng_args.hpp).
#include "rng/rng_args.hpp"

#include <algorithm>
#include <limits>

#include "src/args.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

namespace {

// The p tensor's values (@p n of type T from @p v; @p one: 1's bits,
// @p neg_zero: -0's), checked to lie in [0, 1]: a value is in range iff
// its bits are at most one's or are -0's, so chunks are tested by integer
// compares (vectorised), and a bad chunk is searched for its first bad
// value, named with its f32 value (@p to_f32).
template <typename T, typename F>
void check_p_values(const T *v, dim_t n, T one, T neg_zero, F to_f32) {
    constexpr dim_t chunk = 1024;
    for (dim_t i0 = 0; i0 < n; i0 += chunk) {
        const dim_t i1 = std::min(n, i0 + chunk);
        unsigned bad = 0;
        for (dim_t i = i0; i < i1; ++i)
            bad |= static_cast<unsigned>(v[i] > one) & (v[i] != neg_zero);
        if (!bad) continue;
        for (dim_t i = i0; i < i1; ++i)
            if (v[i] > one && v[i] != neg_zero)
                fail(status::invalid_arguments,
                        cat("p tensor element ", i, " is ", to_f32(v[i]),
                                ", outside [0, 1]"));
    }
}

// The p tensor (RNDNN_ARG_SRC of desc @p md), its values checked: the
// address of its first element.
const void *read_p_tensor(const std::unordered_map<int, memory> &args,
        const memory::desc &md) {
    const memory &m = tensor_arg(args, RNDNN_ARG_SRC, "p tensor (src)", md);
    const dim_t n = md.nelems();
    if (n == 0) return nullptr;
    if (md.get_data_type() == data_type::bf16) {
        const uint16_t *v = m.data<uint16_t>() + md.get_offset0();
        check_p_values<uint16_t>(v, n, 0x3f80, 0x8000, bf16_to_f32);
        return v;
    }
    const uint32_t *v = m.data<uint32_t>() + md.get_offset0();
    check_p_values<uint32_t>(v, n, 0x3f800000u, 0x80000000u, bits_float);
    return v;
}

} // namespace

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
    if (spec.p_tensor) r.run.p_src = read_p_tensor(args, *spec.p_tensor);
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
