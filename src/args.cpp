// Runtime-argument readers shared by the primitives: scalars (seed,
// offset, stream, p, rate) as host scalars or one-element memories, checked.
#include <cstring>
#include <limits>

#include "src/args.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {
namespace {

bool p_ok(double p) { return p >= 0.0 && p <= 1.0; } // false for NaN

const char *arg2str(int id) {
    switch (id) {
        case RNDNN_ARG_DST: return "dst";
        case RNDNN_ARG_SEED: return "seed";
        case RNDNN_ARG_OFFSET: return "offset";
        case RNDNN_ARG_STREAM: return "stream";
        case RNDNN_ARG_P: return "p";
        case RNDNN_ARG_NEXT_OFFSET: return "next_offset";
        case RNDNN_ARG_RATE: return "rate";
    }
    return "argument";
}

// Reads a scalar argument of type `want` passed as `kind`. Integers come
// back in i, floats in f.
void read_scalar(const memory &m, int id, scalar_kind kind, data_type want,
        int64_t &i, double &f) {
    const memory::desc &md = m.get_desc();
    if (kind == scalar_kind::host && !md.is_host_scalar())
        fail(status::invalid_arguments,
                cat(arg2str(id), " must be a host scalar (memory::scalar), "
                                 "got memory ", md.str()));
    if (kind == scalar_kind::memory
            && (md.is_host_scalar() || md.nelems() != 1))
        fail(status::invalid_arguments,
                cat(arg2str(id), " must be a one-element memory, got ",
                        md.str()));
    if (md.get_data_type() != want)
        fail(status::invalid_arguments,
                cat(arg2str(id), " has type ", dt2str(md.get_data_type()),
                        "; expected ", dt2str(want)));
    const void *h = m.get_data_handle();
    if (!h) fail(status::invalid_arguments, cat(arg2str(id), " has no data"));
    // A one-element memory may have a first-element offset.
    const auto *p = static_cast<const unsigned char *>(h)
            + md.get_offset0() * dt_bits(want) / 8;
    if (want == data_type::s32) {
        int32_t v;
        std::memcpy(&v, p, sizeof(v));
        i = v;
    } else if (want == data_type::s64) {
        std::memcpy(&i, p, sizeof(i));
    } else {
        float v;
        std::memcpy(&v, p, sizeof(v));
        f = v;
    }
}

} // namespace

const memory *find_arg(const std::unordered_map<int, memory> &args, int id) {
    const auto it = args.find(id);
    return it == args.end() || !it->second ? nullptr : &it->second;
}

const memory &tensor_arg(const std::unordered_map<int, memory> &args, int id,
        const char *what, const memory::desc &desc) {
    const memory *m = find_arg(args, id);
    if (!m) fail(status::invalid_arguments, cat(what, " argument is missing"));
    if (m->get_desc() != desc)
        fail(status::invalid_arguments,
                cat(what, " memory ", m->get_desc().str(),
                        " does not match the primitive's ", what, " ",
                        desc.str()));
    if (!m->get_data_handle() && desc.get_size() > 0)
        fail(status::invalid_arguments, cat(what, " memory has no data"));
    return *m;
}

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

double read_probability(const std::unordered_map<int, memory> &args, int id,
        scalar_kind kind) {
    const memory *p = find_arg(args, id);
    if (!p) fail(status::invalid_arguments, cat(arg2str(id), " argument is missing"));
    int64_t i = 0;
    double f = 0;
    read_scalar(*p, id, kind, data_type::f32, i, f);
    if (!p_ok(f))
        fail(status::invalid_arguments,
                cat(id == RNDNN_ARG_P ? "bernoulli p=" : "rate=", f,
                        " is outside [0, 1]"));
    return f;
}

} // namespace impl
} // namespace rndnn
