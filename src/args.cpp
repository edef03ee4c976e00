// Runtime-argument readers shared by the primitives: tensors, and scalars
// (seed, offset, stream, p, rate) as host scalars or one-element memories,
// checked.
#include <cstring>
#include <limits>

#include "src/args.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

const char *arg2str(int id) {
    switch (id) {
        case RNDNN_ARG_DST: return "dst";
        case RNDNN_ARG_STATS: return "stats";
        case RNDNN_ARG_MAX_SCORES: return "max_scores";
        case RNDNN_ARG_SEED: return "seed";
        case RNDNN_ARG_OFFSET: return "offset";
        case RNDNN_ARG_STREAM: return "stream";
        case RNDNN_ARG_P: return "p";
        case RNDNN_ARG_NEXT_OFFSET: return "next_offset";
        case RNDNN_ARG_RATE: return "rate";
    }
    return "argument";
}

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

double read_probability(const std::unordered_map<int, memory> &args, int id,
        scalar_kind kind) {
    const memory *p = find_arg(args, id);
    if (!p) fail(status::invalid_arguments, cat(arg2str(id), " argument is missing"));
    int64_t i = 0;
    double f = 0;
    read_scalar(*p, id, kind, data_type::f32, i, f);
    check_probability(f, id == RNDNN_ARG_P ? "bernoulli p" : "rate");
    return f;
}

} // namespace impl
} // namespace rndnn
