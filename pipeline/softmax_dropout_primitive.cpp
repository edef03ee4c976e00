// The public softmax-dropout primitive (include/rndnn/softmax_dropout.hpp):
// checks the problem, makes the plan of pipeline/softmax_dropout.hpp, and
// reads an execution's arguments into it.
#include "rndnn/softmax_dropout.hpp"

#include "pipeline/softmax_dropout.hpp"
#include "rng/rng_args.hpp"
#include "rng/window.hpp"
#include "src/args.hpp"
#include "src/enums.hpp"
#include "src/pd_cache.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;

bool softmax_dropout::desc::operator==(const desc &o) const {
    return draw_desc::operator==(o) && prop == o.prop && src == o.src
            && dst == o.dst && stats == o.stats && causal == o.causal
            && mask == o.mask && rate == o.rate && method == o.method
            && bits == o.bits;
}

memory::desc softmax_dropout::stats_desc(const dims &data) {
    return memory::desc(impl::softmax_dropout_t::stats_dims(data),
            data_type::f32);
}

struct softmax_dropout::primitive_desc::impl_t {
    desc d;
    std::shared_ptr<const impl::softmax_dropout_t> plan;
    memory::desc stats; // empty without stats
    dim_t mask_n = 0; // the mask's elements (the global mask's in a window)
    std::string info;
};

namespace {

bool same_sd_desc(const softmax_dropout::desc &a, const softmax_dropout::desc &b) {
    return a == b && impl::same_bits(a.rate, b.rate);
}

std::size_t hash_sd_desc(const softmax_dropout::desc &d) {
    return impl::hash_md(static_cast<std::size_t>(d.prop) * 131
                    + std::hash<double>()(d.rate) + (d.causal ? 1 : 0),
            d.src);
}

using sd_pd_cache_t = impl::pd_cache_t<softmax_dropout::desc,
        softmax_dropout::primitive_desc::impl_t>;

sd_pd_cache_t &sd_pd_cache() {
    static sd_pd_cache_t cache(same_sd_desc, hash_sd_desc);
    return cache;
}

} // namespace

softmax_dropout::primitive_desc::primitive_desc(const desc &adesc) {
    impl::verbose_errors("softmax_dropout::primitive_desc", [&] {
        // No attribute: the cache's is the default one.
        const primitive_attr no_attr;
        const bool cached = impl::pd_cache_usable();
        if (cached && (impl_ = sd_pd_cache().find(adesc, no_attr))) return;
        impl_ = std::make_shared<impl_t>();
        impl_t &p = *impl_;
        const desc &d = adesc;
        p.d = d;
        impl::check_enum(d.prop, "propagation kind", "prop_kind");
        const bool bwd = d.prop == prop_kind::backward;
        const bool train = d.prop != prop_kind::forward_inference;
        if (bwd && !d.stats)
            fail(status::invalid_arguments,
                    "softmax_dropout backward rebuilds the probabilities "
                    "from the scores and the stats: desc.stats must be true");
        if (!train && !d.mask.is_zero())
            fail(status::invalid_arguments,
                    "forward_inference draws no mask; the mask desc must be "
                    "empty");
        if (!d.mask.is_zero() && !d.mask.is_dense())
            fail(status::invalid_arguments,
                    cat("softmax_dropout: the mask ", d.mask.str(),
                            " is not dense"));
        if (!train) impl::check_probability(d.rate, "rate");
        const dims &data = d.src.get_dims();

        // The window, checked as the RNG checks one (forward_inference
        // draws nothing, but its causal rows count from the origin), and
        // of whole rows: the softmax normalises a whole row.
        rng::desc wd(d.alg, memory::desc(data, data_type::f32));
        wd.global_dims = d.global_dims;
        wd.origin = d.origin;
        const impl::rng_window_t w = impl::make_rng_window(wd);
        dim_t row0 = 0;
        if (w.active && !data.empty()) {
            const size_t last = data.size() - 1;
            if (d.global_dims[last] != data[last] || w.origin[last] != 0)
                fail(status::invalid_arguments,
                        cat("softmax_dropout: the window splits rows: its "
                            "last global dim is ",
                                d.global_dims[last], " at origin ",
                                w.origin[last], ", the block's rows have ",
                                data[last], " elements (a softmax needs its "
                                            "whole row: the last global dim "
                                            "must be the block's, at origin "
                                            "0)"));
            if (data.size() >= 2) row0 = w.origin[last - 1];
        }

        impl::softmax_dropout_desc_t s;
        s.backward = bwd;
        s.causal = d.causal;
        s.causal_row0 = d.causal ? row0 : 0;
        s.src = d.src;
        s.dst = d.dst;
        if (bwd) s.p = d.src; // the scores
        s.stats = d.stats;
        s.dropout = train;
        if (train) {
            static_cast<draw_desc &>(s.drop) = d;
            s.drop.mask = d.mask;
            s.drop.rate = d.rate;
            s.drop.method = d.method;
            s.drop.bits = d.bits;
        }
        p.plan = std::make_shared<const impl::softmax_dropout_t>(s);
        if (d.stats) p.stats = stats_desc(data);
        p.mask_n = w.active ? w.global_nelems : d.src.nelems();
        p.info = cat("prop=", prop_kind2str(d.prop), ",rate=",
                train ? cat(d.rate) : std::string("none"),
                ",data=", d.src.str(), d.src == d.dst ? "" : ",dst=",
                d.src == d.dst ? "" : d.dst.str(), d.causal ? ",causal" : "",
                d.stats ? ",stats" : "", ",mask=",
                d.mask.is_zero() ? std::string("none") : d.mask.str(),
                train ? cat(",alg=", alg2str(d.alg)) : std::string(),
                w.active ? cat(",window=", impl::dims2str(d.global_dims), "@",
                                   impl::dims2str(w.origin))
                         : std::string());
        if (cached) sd_pd_cache().insert(adesc, no_attr, impl_);
    });
}

const char *softmax_dropout::primitive_desc::impl_name() const {
    return impl::checked(impl_).plan->impl_name().c_str();
}

const softmax_dropout::desc &softmax_dropout::primitive_desc::get_desc() const {
    return impl::checked(impl_).d;
}

std::string softmax_dropout::primitive_desc::info() const {
    return impl::checked(impl_).info;
}

memory::desc softmax_dropout::primitive_desc::stats_md() const {
    return impl::checked(impl_).stats;
}

std::size_t softmax_dropout::primitive_desc::mask_bytes() const {
    return impl::checked(impl_).d.mask.get_size();
}

softmax_dropout::softmax_dropout(const primitive_desc &pd) : pd_(pd) {
    impl::verbose_errors("softmax_dropout", [&] {
        if (!pd.impl())
            fail(status::invalid_arguments, "empty primitive descriptor");
    });
}

void softmax_dropout::execute(const stream &strm,
        const std::unordered_map<int, memory> &args) const {
    impl::verbose_errors("softmax_dropout::execute", [&] {
        if (!pd_.impl())
            fail(status::invalid_arguments, "empty softmax_dropout primitive");
        const double t0 = impl::now_ms();
        const primitive_desc::impl_t &p = *pd_.impl();
        const desc &d = p.d;
        const bool bwd = d.prop == prop_kind::backward;
        impl::softmax_dropout_args_t a;
        a.src = impl::tensor_arg(args, bwd ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC,
                bwd ? "diff_dst" : "src", d.src)
                        .get_data_handle();
        a.dst = impl::tensor_arg(args, bwd ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST,
                bwd ? "diff_src" : "dst", d.dst)
                        .get_data_handle();
        if (bwd)
            a.p = impl::tensor_arg(args, RNDNN_ARG_SRC, "src (the scores)",
                    d.src)
                          .get_data_handle();
        if (d.stats)
            a.stats = static_cast<float *>(
                    impl::tensor_arg(args, RNDNN_ARG_STATS, "stats", p.stats)
                            .get_data_handle());
        if (!d.mask.is_zero())
            a.mask = impl::tensor_arg(args, RNDNN_ARG_MASK, "mask", d.mask)
                             .get_data_handle();
        int64_t *next_offset = nullptr;
        int64_t offset = 0;
        const bool generate = !(bwd && !d.mask.is_zero());
        if (d.prop != prop_kind::forward_inference
                && (generate || d.with_next_offset)) {
            impl::rng_arg_spec_t spec(d, p.mask_n);
            spec.with_seed = generate;
            const impl::rng_args_t r = impl::read_rng_args(spec, args);
            a.seed = r.run.seed;
            a.stream = r.run.stream;
            a.offset = offset = r.run.offset;
            next_offset = r.next_offset;
        }
        a.nthr = strm.get_nthreads();
        p.plan->execute(a);
        if (next_offset) *next_offset = offset + p.mask_n;
        if (impl::verbose_on(impl::verbose_t::profile))
            impl::verbose_print(impl::verbose_t::profile, "exec",
                    cat(p.plan->impl_name(), ",", p.info, ",nthr=", a.nthr,
                            ",", impl::now_ms() - t0, "ms"));
    });
}

} // namespace rndnn
