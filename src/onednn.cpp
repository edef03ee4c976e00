// The oneDNN glue: engine, descriptor conversion, threads, the eltwise scale.
#include "src/onednn.hpp"

#include <omp.h>

#include "src/utils.hpp"

namespace rndnn {
namespace impl {

const dnnl::engine &onednn_engine() {
    static const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

dnnl::memory::data_type to_onednn(data_type dt) {
    using odt = dnnl::memory::data_type;
    switch (dt) {
        case data_type::f32: return odt::f32;
        case data_type::bf16: return odt::bf16;
        case data_type::f16: return odt::f16;
        case data_type::s8: return odt::s8;
        case data_type::u8: return odt::u8;
        case data_type::s32: return odt::s32;
        default: break;
    }
    fail(status::unimplemented,
            cat("oneDNN has no data type ", dt2str(dt)));
}

dnnl::memory::desc to_onednn(const memory::desc &md) {
    dnnl::memory::dims d(md.get_dims().begin(), md.get_dims().end());
    dnnl::memory::dims s(md.get_strides().begin(), md.get_strides().end());
    if (d.empty()) { // a scalar: oneDNN wants one dim
        d = {1};
        s = {1};
    }
    return dnnl::memory::desc(d, to_onednn(md.get_data_type()), s);
}

memory::desc from_onednn(const dnnl::memory::desc &md) {
    const dnnl_memory_desc_t &c = md.data;
    const data_type types[]
            = {data_type::f32, data_type::bf16, data_type::f16, data_type::s8,
                    data_type::u8, data_type::s32};
    for (data_type dt : types) {
        if (to_onednn(dt) != md.data_type()) continue;
        if (c.format_kind != dnnl_blocked
                || c.format_desc.blocking.inner_nblks != 0 || c.offset0 != 0)
            break;
        const dims s(c.format_desc.blocking.strides,
                c.format_desc.blocking.strides + c.ndims);
        return memory::desc(md.dims(), dt, s);
    }
    fail(status::unimplemented,
            "a oneDNN memory descriptor that is not plain has no rndnn "
            "descriptor");
}

void *onednn_handle(const memory &m) {
    const memory::desc &md = m.get_desc();
    return static_cast<unsigned char *>(m.get_data_handle())
            + md.get_offset0() * static_cast<dim_t>(dt_bits(md.get_data_type()) / 8);
}

omp_threads_guard_t::omp_threads_guard_t(int nthr)
    : saved_(omp_get_max_threads()) {
    omp_set_num_threads(nthr);
}

omp_threads_guard_t::~omp_threads_guard_t() { omp_set_num_threads(saved_); }

eltwise_scale_t::eltwise_scale_t(data_type dt, dim_t n, float alpha) {
    try {
        md_ = dnnl::memory::desc({n}, to_onednn(dt), dnnl::memory::dims {1});
        const dnnl::eltwise_forward::primitive_desc pd(
                dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference,
                        dnnl::algorithm::eltwise_linear, md_, alpha, -0.f),
                onednn_engine());
        prim_ = dnnl::eltwise_forward(pd);
        impl_ = pd.impl_info_str();
        ok_ = true;
    } catch (const dnnl::error &e) {
        why_ = cat("oneDNN has no eltwise_linear for ", dt2str(dt), ": ",
                e.what());
    } catch (const error &e) {
        why_ = e.what();
    }
}

std::string eltwise_scale_t::name() const { return cat("onednn:", impl_); }

void eltwise_scale_t::execute(const void *src, void *dst) const {
    const dnnl::engine &eng = onednn_engine();
    dnnl::stream strm(eng);
    dnnl::memory s(md_, eng, const_cast<void *>(src));
    dnnl::memory d(md_, eng, dst);
    omp_threads_guard_t one(1);
    try {
        prim_.execute(strm, {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}});
        strm.wait();
    } catch (const dnnl::error &e) {
        fail(status::runtime_error,
                cat("oneDNN eltwise_linear failed: ", e.what()));
    }
}

} // namespace impl
} // namespace rndnn
