// Categorical sampling by Gumbel-max (include/rndnn/categorical.hpp): rows
// split over threads; each row's Gumbel noise drawn by the RNG's own
// kernel (gumbel(0, 1), the best tier the caps allow) in blocks of
// `granule` elements at global indices that are multiples of it, into a
// thread's cache, and the scores' max and first index taken over each
// block (pipeline/categorical_argmax.hpp: scalar or vector code, the same
// result). The noise is never stored whole.
#include "rndnn/categorical.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "pipeline/categorical_argmax.hpp"
#include "rng/rng_args.hpp"
#include "rng/rng_impl.hpp"
#include "rng/window.hpp"
#include "src/args.hpp"
#include "src/cpu_isa.hpp"
#include "src/parallel.hpp"
#include "src/pd_cache.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;

namespace {

// Noise is drawn this many elements at a time, at global indices that are
// multiples of it: every JIT kernel's unit divides it (as softmax_dropout's
// mask granule), so kernels write straight into the cache.
constexpr dim_t granule = 4096;

} // namespace

bool categorical::desc::operator==(const desc &o) const {
    return draw_desc::operator==(o) && src == o.src && dst == o.dst
            && max == o.max && temperature == o.temperature;
}

struct categorical::primitive_desc::impl_t {
    desc d;
    impl::rng_window_t w; // the logits' window (inactive: the whole tensor)
    std::shared_ptr<const impl::rng_kernel_t> noise; // granule gumbel values
    impl::argmax_fn_t argmax = nullptr;
    dim_t n = 0; // the block's vocabulary (src's last dim)
    dim_t rows = 0;
    dim_t v0 = 0; // the block's first global vocabulary index
    dim_t global_n = 0; // the global element count
    std::string name, info;
};

namespace {

bool same_categorical_desc(
        const categorical::desc &a, const categorical::desc &b) {
    return a == b && impl::same_bits(a.temperature, b.temperature);
}

std::size_t hash_categorical_desc(const categorical::desc &d) {
    return impl::hash_md(std::hash<double>()(d.temperature)
                    + static_cast<std::size_t>(d.alg) * 7,
            d.src);
}

using categorical_pd_cache_t = impl::pd_cache_t<categorical::desc,
        categorical::primitive_desc::impl_t>;

categorical_pd_cache_t &categorical_pd_cache() {
    static categorical_pd_cache_t cache(
            same_categorical_desc, hash_categorical_desc);
    return cache;
}

} // namespace

categorical::primitive_desc::primitive_desc(
        const desc &adesc, const primitive_attr &attr) {
    impl::verbose_errors("categorical::primitive_desc", [&] {
        const bool cached = impl::pd_cache_usable();
        if (cached && (impl_ = categorical_pd_cache().find(adesc, attr)))
            return;
        impl_ = std::make_shared<impl_t>();
        impl_t &p = *impl_;
        const desc &d = adesc;
        p.d = d;
        impl::check_isa_cap(attr.get_max_cpu_isa());
        if (attr.get_post_ops().len() != 0)
            fail(status::invalid_arguments,
                    "categorical takes no post-ops (its noise is gumbel(0, "
                    "1)); the attr's ISA cap alone is read");
        const data_type sdt = d.src.get_data_type();
        if (sdt != data_type::f32 && sdt != data_type::bf16)
            fail(status::invalid_arguments,
                    cat("categorical: the logits ", d.src.str(),
                            " are not f32 or bf16"));
        const dims &sd = d.src.get_dims();
        if (sd.empty() || sd.back() < 1 || !d.src.is_dense())
            fail(status::invalid_arguments,
                    cat("categorical: the logits ", d.src.str(),
                            " must be dense with at least 1 dim, the last "
                            "(the vocabulary) at least 1"));
        dims want = sd;
        want.back() = 1;
        const data_type ddt = d.dst.get_data_type();
        if ((ddt != data_type::s64 && ddt != data_type::s32)
                || d.dst.get_dims() != want || !d.dst.is_dense())
            fail(status::invalid_arguments,
                    cat("categorical: the indices ", d.dst.str(),
                            " must be dense s64 or s32 of dims ",
                            impl::dims2str(want),
                            " (the logits' with the last 1)"));
        if (!d.max.is_zero()
                && (d.max.get_data_type() != data_type::f32
                        || d.max.get_dims() != want || !d.max.is_dense()))
            fail(status::invalid_arguments,
                    cat("categorical: the max scores ", d.max.str(),
                            " must be dense f32 of dims ",
                            impl::dims2str(want)));
        const float tf = static_cast<float>(d.temperature);
        if (!(std::isfinite(d.temperature) && std::isfinite(tf) && tf > 0))
            fail(status::invalid_arguments,
                    cat("categorical: temperature ", d.temperature,
                            " must be finite and > 0 as an f32"));

        rng::desc wd(d.alg, memory::desc(sd, data_type::f32));
        wd.global_dims = d.global_dims;
        wd.origin = d.origin;
        p.w = impl::make_rng_window(wd);
        p.n = sd.back();
        p.rows = d.src.nelems() / p.n;
        p.v0 = p.w.active ? p.w.origin.back() : 0;
        p.global_n = p.w.active ? p.w.global_nelems : d.src.nelems();

        // The noise: gumbel(0, 1) into a granule of f32, at any offset.
        rng::desc nd(d.alg, memory::desc({granule}, data_type::f32));
        nd.name = d.name;
        post_ops gumbel;
        gumbel.append_gumbel(0.f, 1.f);
        primitive_attr na;
        na.set_post_ops(gumbel);
        na.set_max_cpu_isa(attr.get_max_cpu_isa());
        const impl::rng_conf_t nc = impl::make_rng_conf(nd, na);
        p.info = cat("logits=", d.src.str(), ",idx=", d.dst.str(),
                d.max.is_zero() ? std::string() : cat(",max=", d.max.str()),
                ",temperature=", d.temperature, ",",
                impl::rng_alg_dist_info(nc),
                p.w.active ? cat(",window=", impl::dims2str(d.global_dims),
                                     "@", impl::dims2str(p.w.origin))
                           : std::string());
        const impl::rng_picked_t e = impl::pick_rng_impl(nc, p.info);
        p.noise = e.kernel;
        cpu_isa tier = cpu_isa::none;
        p.argmax = impl::pick_argmax(attr.get_max_cpu_isa(),
                sdt == data_type::bf16, tier);
        p.name = cat("categorical:",
                tier == cpu_isa::none ? "ref" : isa2str(tier), "+", e.name());
        impl::verbose_print(
                impl::verbose_t::dispatch, "create", cat(p.name, ",", p.info));
        if (cached) categorical_pd_cache().insert(adesc, attr, impl_);
    });
}

const char *categorical::primitive_desc::impl_name() const {
    return impl::checked(impl_).name.c_str();
}

const categorical::desc &categorical::primitive_desc::get_desc() const {
    return impl::checked(impl_).d;
}

std::string categorical::primitive_desc::info() const {
    return impl::checked(impl_).info;
}

categorical::categorical(const primitive_desc &pd) : pd_(pd) {
    impl::verbose_errors("categorical", [&] {
        if (!pd.impl())
            fail(status::invalid_arguments, "empty primitive descriptor");
    });
}

void categorical::execute(const stream &strm,
        const std::unordered_map<int, memory> &args) const {
    impl::verbose_errors("categorical::execute", [&] {
        if (!pd_.impl())
            fail(status::invalid_arguments, "empty categorical primitive");
        const double t0 = impl::now_ms();
        const primitive_desc::impl_t &p = *pd_.impl();
        const desc &d = p.d;
        const auto *src = static_cast<const uint8_t *>(
                impl::tensor_arg(args, RNDNN_ARG_SRC, "src", d.src)
                        .get_data_handle());
        void *dst = impl::tensor_arg(args, RNDNN_ARG_DST, "dst", d.dst)
                            .get_data_handle();
        float *mx = d.max.is_zero()
                ? nullptr
                : static_cast<float *>(impl::tensor_arg(args,
                        RNDNN_ARG_MAX_SCORES, "max scores", d.max)
                                               .get_data_handle());
        // A block of noise may reach a granule past the last element: it
        // must lie in the stream too (two granules are asked for).
        const impl::rng_args_t r = impl::read_rng_args(
                impl::rng_arg_spec_t(d, p.global_n + 2 * granule), args);
        const dim_t offset = r.run.offset;

        const bool bf16 = d.src.get_data_type() == data_type::bf16;
        const dim_t es = bf16 ? 2 : 4;
        const bool s64 = d.dst.get_data_type() == data_type::s64;
        const float temp = static_cast<float>(d.temperature);
        // Whole rows a thread, by the rule of src/parallel.hpp over the
        // logits.
        const int nthr = static_cast<int>(std::min<dim_t>(p.rows,
                impl::threads_for(impl::work_t::categorical, p.rows * p.n,
                        strm.get_nthreads())));
        // Each thread: the noise cache, one granule, 64-byte aligned.
        std::vector<float> scratch(
                static_cast<size_t>(granule * std::max(nthr, 1) + 16));
        float *base = scratch.data()
                + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64
                        / 4;
        impl::parallel(nthr, [&](int ithr, int nt) {
            dim_t r0, r1;
            impl::balance211(p.rows, nt, ithr, r0, r1);
            float *noise = base + granule * ithr;
            impl::rng_run_t run = r.run;
            run.dst = noise;
            run.nthr = 1;
            dim_t cache_lo = -1;
            for (dim_t row = r0; row < r1; ++row) {
                dim_t g0 = row * p.n, pos = 0;
                if (p.w.active) p.w.row(row, g0, pos);
                g0 += offset;
                const uint8_t *x = src + (d.src.get_offset0() + row * p.n) * es;
                impl::argmax_t best {-std::numeric_limits<float>::infinity(),
                        p.v0};
                for (dim_t j = 0; j < p.n;) {
                    const dim_t g = g0 + j;
                    const dim_t lo = g / granule * granule;
                    if (lo != cache_lo) {
                        run.offset = lo;
                        p.noise->execute(run);
                        cache_lo = lo;
                    }
                    const dim_t len = std::min(p.n - j, lo + granule - g);
                    p.argmax(x + j * es, noise + (g - lo), len, temp,
                            p.v0 + j, best);
                    j += len;
                }
                const dim_t at = d.dst.get_offset0() + row;
                if (s64)
                    static_cast<int64_t *>(dst)[at] = best.j;
                else
                    static_cast<int32_t *>(dst)[at]
                            = static_cast<int32_t>(best.j);
                if (mx) mx[d.max.get_offset0() + row] = best.m;
            }
        });
        if (r.next_offset) *r.next_offset = offset + p.global_n;
        if (impl::verbose_on(impl::verbose_t::profile))
            impl::verbose_print(impl::verbose_t::profile, "exec",
                    cat(p.name, ",", p.info, ",nthr=", nthr, ",",
                            impl::now_ms() - t0, "ms"));
    });
}

void categorical::combine(const float *max, const int64_t *index,
        int64_t shards, int64_t rows, float *out_max, int64_t *out_index) {
    impl::verbose_errors("categorical::combine", [&] {
        if (shards < 1 || rows < 0)
            fail(status::invalid_arguments,
                    cat("categorical::combine: shards ", shards, " and rows ",
                            rows, " must be >= 1 and >= 0"));
        if (!max || !index || !out_index)
            fail(status::invalid_arguments,
                    "categorical::combine: max, index and out_index must not "
                    "be null");
        const float ninf = -std::numeric_limits<float>::infinity();
        for (int64_t r = 0; r < rows; ++r) {
            float m = std::isnan(max[r]) ? ninf : max[r];
            int64_t j = index[r];
            for (int64_t k = 1; k < shards; ++k) {
                const float mk = std::isnan(max[k * rows + r])
                        ? ninf
                        : max[k * rows + r];
                const int64_t jk = index[k * rows + r];
                if (mk > m || (mk == m && jk < j)) {
                    m = mk;
                    j = jk;
                }
            }
            if (out_max) out_max[r] = m;
            out_index[r] = j;
        }
    });
}

} // namespace rndnn
