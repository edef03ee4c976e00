// The RNG's runtime arguments (rng_args.hpp).
#include "rng/rng_args.hpp"

#include <algorithm>
#include <limits>

#include "src/args.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

namespace {

// The p tensor @p p's values (@p n of type T from @p v, converted to f32
// by @p to_f32), checked to lie in [0, 1]: chunks are tested branch-free
// (vectorised), a bad one is searched for its first bad value.
template <typename T, typename F>
void check_p_values(const T *v, dim_t n, F to_f32) {
    constexpr dim_t chunk = 1024;
    for (dim_t i0 = 0; i0 < n; i0 += chunk) {
        const dim_t i1 = std::min(n, i0 + chunk);
        bool bad = false;
        for (dim_t i = i0; i < i1; ++i) {
            const float x = to_f32(v[i]);
            bad |= !(x >= 0.f) | !(x <= 1.f);
        }
        if (!bad) continue;
        for (dim_t i = i0; i < i1; ++i) {
            const float x = to_f32(v[i]);
            if (!(x >= 0.f && x <= 1.f))
                fail(status::invalid_arguments,
                        cat("p tensor element ", i, " is ", x,
                                ", outside [0, 1]"));
        }
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
        check_p_values(v, n, [](uint16_t h) { return bf16_to_f32(h); });
        return v;
    }
    const float *v = m.data<float>() + md.get_offset0();
    check_p_values(v, n, [](float x) { return x; });
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
