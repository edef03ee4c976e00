// The C API (include/rndnn.h, docs/c_api.md): a thin layer over the C++
// API. Each function that returns a status runs its body in c_call()
// (src/c_api.hpp); the handles hold the C++ objects.
#include "rndnn.h"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rndnn/rndnn.hpp"
#include "rndnn/version.hpp"
#include "src/c_api.hpp"
#include "src/utils.hpp"

struct rndnn_rng {
    rndnn::rng prim;
};
struct rndnn_dropout {
    rndnn::dropout prim;
};
struct rndnn_generator {
    rndnn::generator gen;
};

namespace rndnn {
namespace impl {

std::string &last_error() {
    thread_local std::string message;
    return message;
}

namespace {

// @throws error (invalid_arguments) "<call>: <what> is NULL".
template <typename T>
T &non_null(T *p, const char *call, const char *what) {
    if (!p) fail(status::invalid_arguments, cat(call, ": ", what, " is NULL"));
    return *p;
}

void check_ndims(int ndims, const char *what) {
    if (ndims < 0 || ndims > max_ndims)
        fail(status::invalid_arguments,
                cat(what, "=", ndims, " is outside [0, ", max_ndims, "]"));
}

dims dims_of(int ndims, const int64_t *values, const char *call,
        const char *what) {
    check_ndims(ndims, what);
    if (ndims == 0) return {};
    const int64_t *v = &non_null(values, call, what);
    return dims(v, v + ndims);
}

// The C++ descriptor of @p md: empty for data type undef, else strided.
memory::desc to_cpp(const rndnn_memory_desc_t &md) {
    if (md.data_type == rndnn_data_type_undef) return {};
    check_ndims(md.ndims, "ndims");
    return memory::desc(dims(md.dims, md.dims + md.ndims),
            static_cast<data_type>(md.data_type),
            dims(md.strides, md.strides + md.ndims), md.offset0);
}

rndnn_memory_desc_t to_c(const memory::desc &d) {
    rndnn_memory_desc_t md = {};
    md.ndims = d.get_ndims();
    for (int i = 0; i < md.ndims; ++i) {
        md.dims[i] = d.get_dims()[i];
        md.strides[i] = d.get_strides()[i];
    }
    md.offset0 = d.get_offset0();
    md.data_type = static_cast<rndnn_data_type_t>(d.get_data_type());
    return md;
}

// Fills the draw fields of @p d (the C API always takes an offset and
// writes next_offset; seeds are s64 host scalars) and returns the ISA cap.
cpu_isa set_draw(draw_desc &d, const rndnn_draw_desc_t *draw) {
    rndnn_draw_desc_t c;
    rndnn_draw_desc_init(&c, rndnn_philox4x32_10);
    if (draw) c = *draw;
    d.alg = static_cast<rng_alg>(c.alg);
    d.name = c.key_name ? c.key_name : "";
    d.with_offset = true;
    d.with_next_offset = true;
    check_ndims(c.window_ndims, "window_ndims");
    d.global_dims = dims(c.global_dims, c.global_dims + c.window_ndims);
    d.origin = dims(c.origin, c.origin + c.window_ndims);
    return static_cast<cpu_isa>(c.max_isa);
}

primitive_attr attr_of(cpu_isa max_isa, const post_ops &po = post_ops()) {
    primitive_attr attr;
    attr.set_post_ops(po);
    attr.set_max_cpu_isa(max_isa);
    return attr;
}

// The runtime arguments every draw takes; next_offset's memory is @p next.
std::unordered_map<int, memory> draw_args(
        int64_t seed, int64_t offset, uint64_t strm, int64_t &next) {
    return {{RNDNN_ARG_SEED, memory::scalar(seed)},
            {RNDNN_ARG_OFFSET, memory::scalar(offset)},
            {RNDNN_ARG_STREAM, memory::scalar(static_cast<int64_t>(strm))},
            {RNDNN_ARG_NEXT_OFFSET,
                    memory(memory::desc({1}, data_type::s64), &next)}};
}

const distribution_info &distribution_at(int index) {
    const std::vector<distribution_info> &all = distributions();
    if (index < 0 || static_cast<size_t>(index) >= all.size())
        fail(status::invalid_arguments,
                cat("distribution index ", index, " is outside [0, ",
                        all.size(), ")"));
    return all[static_cast<size_t>(index)];
}

} // namespace
} // namespace impl
} // namespace rndnn

using namespace rndnn;
using impl::c_call;
using impl::non_null;

const char *rndnn_status2str(rndnn_status_t s) {
    return status2str(static_cast<status>(s));
}
const char *rndnn_dt2str(rndnn_data_type_t dt) {
    return dt2str(static_cast<data_type>(dt));
}
const char *rndnn_cpu_isa2str(rndnn_cpu_isa_t isa) {
    return isa2str(static_cast<cpu_isa>(isa));
}
const char *rndnn_rng_alg2str(rndnn_rng_alg_t alg) {
    return alg2str(static_cast<rng_alg>(alg));
}
const char *rndnn_bernoulli_method2str(rndnn_bernoulli_method_t method) {
    return bernoulli_method2str(static_cast<bernoulli_method>(method));
}
const char *rndnn_prop_kind2str(rndnn_prop_kind_t prop) {
    return prop_kind2str(static_cast<prop_kind>(prop));
}
const char *rndnn_dropout_plan2str(rndnn_dropout_plan_t plan) {
    return dropout_plan2str(static_cast<dropout_plan>(plan));
}

const char *rndnn_last_error_message(void) {
    return impl::last_error().c_str();
}

const rndnn_version_t *rndnn_version(void) {
    static const rndnn_version_t v = {version().major, version().minor,
            version().patch, version().str, version().hash};
    return &v;
}

rndnn_status_t rndnn_get_max_cpu_isa(rndnn_cpu_isa_t *isa) {
    const char *call = "rndnn_get_max_cpu_isa";
    return c_call(call, [&] {
        non_null(isa, call, "isa")
                = static_cast<rndnn_cpu_isa_t>(get_max_cpu_isa());
    });
}

rndnn_status_t rndnn_memory_desc_init(rndnn_memory_desc_t *md, int ndims,
        const int64_t *dims, rndnn_data_type_t data_type) {
    const char *call = "rndnn_memory_desc_init";
    return c_call(call, [&] {
        rndnn_memory_desc_t &out = non_null(md, call, "md");
        out = impl::to_c(memory::desc(impl::dims_of(ndims, dims, call, "dims"),
                static_cast<rndnn::data_type>(data_type)));
    });
}

rndnn_status_t rndnn_memory_desc_init_strided(rndnn_memory_desc_t *md,
        int ndims, const int64_t *dims, rndnn_data_type_t data_type,
        const int64_t *strides, int64_t offset0) {
    const char *call = "rndnn_memory_desc_init_strided";
    return c_call(call, [&] {
        rndnn_memory_desc_t &out = non_null(md, call, "md");
        out = impl::to_c(memory::desc(impl::dims_of(ndims, dims, call, "dims"),
                static_cast<rndnn::data_type>(data_type),
                impl::dims_of(ndims, strides, call, "strides"), offset0));
    });
}

rndnn_status_t rndnn_memory_desc_get_size(
        const rndnn_memory_desc_t *md, size_t *size) {
    const char *call = "rndnn_memory_desc_get_size";
    return c_call(call, [&] {
        const size_t s = impl::to_cpp(non_null(md, call, "md")).get_size();
        non_null(size, call, "size") = s;
    });
}

rndnn_status_t rndnn_draw_desc_init(
        rndnn_draw_desc_t *draw, rndnn_rng_alg_t alg) {
    const char *call = "rndnn_draw_desc_init";
    return c_call(call, [&] {
        rndnn_draw_desc_t &d = non_null(draw, call, "draw");
        d = rndnn_draw_desc_t();
        d.alg = alg;
        d.max_isa = rndnn_cpu_isa_all;
    });
}

rndnn_status_t rndnn_get_distribution_count(int *count) {
    const char *call = "rndnn_get_distribution_count";
    return c_call(call, [&] {
        non_null(count, call, "count")
                = static_cast<int>(distributions().size());
    });
}

rndnn_status_t rndnn_get_distribution(int index, const char **name,
        int *nparams, rndnn_data_type_t *default_dt) {
    return c_call("rndnn_get_distribution", [&] {
        const distribution_info &d = impl::distribution_at(index);
        if (name) *name = d.name;
        if (nparams) *nparams = static_cast<int>(d.params.size());
        if (default_dt)
            *default_dt = static_cast<rndnn_data_type_t>(d.dst_types.front());
    });
}

rndnn_status_t rndnn_get_distribution_param(int index, int param,
        const char **name, double *default_value, int *is_integer) {
    return c_call("rndnn_get_distribution_param", [&] {
        const distribution_info &d = impl::distribution_at(index);
        if (param < 0 || static_cast<size_t>(param) >= d.params.size())
            impl::fail(status::invalid_arguments,
                    impl::cat("parameter index ", param, " of ", d.name,
                            " is outside [0, ", d.params.size(), ")"));
        const distribution_info::param &p = d.params[static_cast<size_t>(param)];
        if (name) *name = p.name;
        if (default_value) *default_value = p.default_value;
        if (is_integer) *is_integer = p.integer;
    });
}

rndnn_status_t rndnn_rng_create(rndnn_rng_t *rng,
        const rndnn_draw_desc_t *draw, const rndnn_memory_desc_t *dst,
        const rndnn_distribution_t *dist) {
    const char *call = "rndnn_rng_create";
    if (rng) *rng = nullptr;
    return c_call(call, [&] {
        rndnn_rng_t &out = non_null(rng, call, "rng");
        rndnn::rng::desc d;
        const cpu_isa max_isa = impl::set_draw(d, draw);
        d.dst = impl::to_cpp(non_null(dst, call, "dst"));
        post_ops po;
        if (dist) {
            if (dist->nvalues < 0 || dist->nintegers < 0)
                impl::fail(status::invalid_arguments,
                        impl::cat(call, ": nvalues=", dist->nvalues,
                                " or nintegers=", dist->nintegers,
                                " is negative"));
            const double *v = dist->nvalues
                    ? &non_null(dist->values, call, "values")
                    : nullptr;
            const int64_t *n = dist->nintegers
                    ? &non_null(dist->integers, call, "integers")
                    : nullptr;
            po.append_distribution(
                    &non_null(dist->name, call, "distribution name"),
                    std::vector<double>(v, v + dist->nvalues),
                    static_cast<bernoulli_method>(dist->method), dist->bits,
                    std::vector<int64_t>(n, n + dist->nintegers));
        }
        out = new rndnn_rng {rndnn::rng(
                rndnn::rng::primitive_desc(d, impl::attr_of(max_isa, po)))};
    });
}

rndnn_status_t rndnn_rng_execute(const_rndnn_rng_t rng, void *dst,
        int64_t seed, int64_t offset, uint64_t stream, int nthreads,
        int64_t *next_offset) {
    const char *call = "rndnn_rng_execute";
    return c_call(call, [&] {
        const rndnn::rng &prim = non_null(rng, call, "rng").prim;
        int64_t next = offset;
        std::unordered_map<int, memory> args
                = impl::draw_args(seed, offset, stream, next);
        args[RNDNN_ARG_DST]
                = memory(prim.get_primitive_desc().dst_desc(), dst);
        prim.execute(rndnn::stream(nthreads), args);
        if (next_offset) *next_offset = next;
    });
}

rndnn_status_t rndnn_rng_get_impl_name(
        const_rndnn_rng_t rng, const char **name) {
    const char *call = "rndnn_rng_get_impl_name";
    return c_call(call, [&] {
        const char *n = non_null(rng, call, "rng")
                                .prim.get_primitive_desc()
                                .impl_name();
        non_null(name, call, "name") = n;
    });
}

rndnn_status_t rndnn_rng_destroy(rndnn_rng_t rng) {
    delete rng;
    return c_call("rndnn_rng_destroy", [] {});
}

rndnn_status_t rndnn_dropout_desc_init(rndnn_dropout_desc_t *desc,
        rndnn_prop_kind_t prop, const rndnn_memory_desc_t *data, double rate) {
    const char *call = "rndnn_dropout_desc_init";
    return c_call(call, [&] {
        const rndnn_memory_desc_t &md = non_null(data, call, "data");
        rndnn_dropout_desc_t &d = non_null(desc, call, "desc");
        d = rndnn_dropout_desc_t();
        d.prop = prop;
        d.src = d.dst = md;
        d.rate = rate;
        d.method = rndnn_bernoulli_auto;
        d.bits = 1;
        d.plan = rndnn_dropout_plan_any;
    });
}

rndnn_status_t rndnn_dropout_create(rndnn_dropout_t *dropout,
        const rndnn_draw_desc_t *draw, const rndnn_dropout_desc_t *desc) {
    const char *call = "rndnn_dropout_create";
    if (dropout) *dropout = nullptr;
    return c_call(call, [&] {
        rndnn_dropout_t &out = non_null(dropout, call, "dropout");
        const rndnn_dropout_desc_t &c = non_null(desc, call, "desc");
        rndnn::dropout::desc d;
        const cpu_isa max_isa = impl::set_draw(d, draw);
        d.prop = static_cast<prop_kind>(c.prop);
        d.src = impl::to_cpp(c.src);
        d.dst = impl::to_cpp(c.dst);
        d.noise_shape = impl::dims_of(
                c.noise_ndims, c.noise_shape, call, "noise_ndims");
        d.mask = impl::to_cpp(c.mask);
        d.rate = c.rate;
        d.method = static_cast<bernoulli_method>(c.method);
        d.bits = c.bits;
        d.onednn_compat = c.onednn_compat != 0;
        d.plan = static_cast<dropout_plan>(c.plan);
        out = new rndnn_dropout {rndnn::dropout(
                rndnn::dropout::primitive_desc(d, impl::attr_of(max_isa)))};
    });
}

rndnn_status_t rndnn_dropout_execute(const_rndnn_dropout_t dropout,
        const void *src, void *dst, void *mask, int64_t seed, int64_t offset,
        uint64_t stream, int nthreads, int64_t *next_offset) {
    const char *call = "rndnn_dropout_execute";
    return c_call(call, [&] {
        const rndnn::dropout &prim = non_null(dropout, call, "dropout").prim;
        const rndnn::dropout::desc &d = prim.get_primitive_desc().get_desc();
        const bool bwd = d.prop == prop_kind::backward;
        int64_t next = offset;
        std::unordered_map<int, memory> args
                = impl::draw_args(seed, offset, stream, next);
        // The C++ API reads src and writes dst: in place, both are one.
        args[bwd ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC]
                = memory(d.src, const_cast<void *>(src));
        args[bwd ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST] = memory(d.dst, dst);
        if (!d.mask.is_zero()) args[RNDNN_ARG_MASK] = memory(d.mask, mask);
        prim.execute(rndnn::stream(nthreads), args);
        if (next_offset) *next_offset = next;
    });
}

rndnn_status_t rndnn_dropout_get_impl_name(
        const_rndnn_dropout_t dropout, const char **name) {
    const char *call = "rndnn_dropout_get_impl_name";
    return c_call(call, [&] {
        const char *n = non_null(dropout, call, "dropout")
                                .prim.get_primitive_desc()
                                .impl_name();
        non_null(name, call, "name") = n;
    });
}

rndnn_status_t rndnn_dropout_get_mask_size(
        const_rndnn_dropout_t dropout, size_t *bytes) {
    const char *call = "rndnn_dropout_get_mask_size";
    return c_call(call, [&] {
        const size_t n = non_null(dropout, call, "dropout")
                                 .prim.get_primitive_desc()
                                 .mask_bytes();
        non_null(bytes, call, "bytes") = n;
    });
}

rndnn_status_t rndnn_dropout_destroy(rndnn_dropout_t dropout) {
    delete dropout;
    return c_call("rndnn_dropout_destroy", [] {});
}

rndnn_status_t rndnn_generator_create(
        rndnn_generator_t *gen, int64_t seed, int64_t offset) {
    const char *call = "rndnn_generator_create";
    if (gen) *gen = nullptr;
    return c_call(call, [&] {
        rndnn_generator_t &out = non_null(gen, call, "gen");
        out = new rndnn_generator {generator(seed, offset)};
    });
}

rndnn_status_t rndnn_generator_get(
        const_rndnn_generator_t gen, int64_t *seed, int64_t *offset) {
    const char *call = "rndnn_generator_get";
    return c_call(call, [&] {
        const generator &g = non_null(gen, call, "gen").gen;
        if (seed) *seed = g.get_seed();
        if (offset) *offset = g.get_offset();
    });
}

rndnn_status_t rndnn_generator_reserve(
        rndnn_generator_t gen, int64_t count, int64_t *first) {
    const char *call = "rndnn_generator_reserve";
    return c_call(call, [&] {
        const int64_t f = non_null(gen, call, "gen").gen.reserve(count);
        if (first) *first = f;
    });
}

rndnn_status_t rndnn_generator_fold_in(
        const_rndnn_generator_t gen, uint64_t key, rndnn_generator_t *out) {
    const char *call = "rndnn_generator_fold_in";
    if (out) *out = nullptr;
    return c_call(call, [&] {
        const generator &g = non_null(gen, call, "gen").gen;
        // The reference first: `non_null(out) = new ...` would allocate
        // before the check (an assignment's right side is sequenced
        // first) and leak when out is NULL.
        rndnn_generator_t &o = non_null(out, call, "out");
        o = new rndnn_generator {g.fold_in(key)};
    });
}

rndnn_status_t rndnn_generator_fold_in_bytes(const_rndnn_generator_t gen,
        const void *key, size_t size, rndnn_generator_t *out) {
    const char *call = "rndnn_generator_fold_in_bytes";
    if (out) *out = nullptr;
    return c_call(call, [&] {
        const generator &g = non_null(gen, call, "gen").gen;
        if (size && !key)
            impl::fail(status::invalid_arguments, impl::cat(call, ": key is NULL"));
        const char *k = size ? static_cast<const char *>(key) : "";
        rndnn_generator_t &o = non_null(out, call, "out");
        o = new rndnn_generator {g.fold_in(std::string_view(k, size))};
    });
}

rndnn_status_t rndnn_generator_spawn(
        rndnn_generator_t gen, int64_t n, rndnn_generator_t *children) {
    const char *call = "rndnn_generator_spawn";
    return c_call(call, [&] {
        generator &g = non_null(gen, call, "gen").gen;
        if (n > 0) non_null(children, call, "children");
        // A handle that cannot be allocated leaves the generator as it was.
        const generator before = g;
        const std::vector<generator> spawned = g.spawn(n);
        std::vector<std::unique_ptr<rndnn_generator>> out;
        try {
            for (const generator &child : spawned)
                out.emplace_back(new rndnn_generator {child});
        } catch (...) {
            g = before;
            throw;
        }
        for (size_t i = 0; i < out.size(); ++i)
            children[i] = out[i].release();
    });
}

rndnn_status_t rndnn_generator_save(
        const_rndnn_generator_t gen, uint8_t *state) {
    const char *call = "rndnn_generator_save";
    return c_call(call, [&] {
        const generator::state s = non_null(gen, call, "gen").gen.save();
        uint8_t *out = &non_null(state, call, "state");
        std::copy(s.begin(), s.end(), out);
    });
}

rndnn_status_t rndnn_generator_load(
        rndnn_generator_t *gen, const void *state, size_t size) {
    const char *call = "rndnn_generator_load";
    if (gen) *gen = nullptr;
    return c_call(call, [&] {
        rndnn_generator_t &out = non_null(gen, call, "gen");
        out = new rndnn_generator {generator::load(state, size)};
    });
}

rndnn_status_t rndnn_generator_destroy(rndnn_generator_t gen) {
    delete gen;
    return c_call("rndnn_generator_destroy", [] {});
}
