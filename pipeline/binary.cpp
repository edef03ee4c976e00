// The binary primitive: validation, then either rndnn's apply kernels over
// blocks (src1 of type bit) or oneDNN's binary primitive (other src1 types).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "pipeline/apply.hpp"
#include "src/onednn.hpp"
#include "pipeline/operands.hpp"
#include "pipeline/pipeline_utils.hpp"
#include "src/cpu_isa.hpp"
#include "rndnn/binary.hpp"
#include "rng/rng_impl.hpp"
#include "src/args.hpp"
#include "src/parallel.hpp"
#include "src/enums.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;

bool binary::desc::operator==(const desc &o) const {
    return alg == o.alg && src0 == o.src0 && src1 == o.src1 && dst == o.dst;
}

struct binary::primitive_desc::impl_t {
    binary::desc desc;
    primitive_attr attr;
    std::vector<float> linear; // (alpha, beta) pairs
    std::string info;
    std::string name;
    // The bit path.
    impl::apply_conf_t apply;
    const impl::apply_impl_t *chosen = nullptr;
    // Made with the choice; the primitives share it.
    std::shared_ptr<const impl::apply_kernel_t> kernel;
    // The oneDNN path.
    dnnl::binary::primitive_desc onednn_pd;
};

namespace {

void check_tensor(const char *what, const memory::desc &md) {
    if (md.is_zero())
        fail(status::invalid_arguments, cat(what, " memory descriptor is empty"));
    if (md.is_host_scalar())
        fail(status::invalid_arguments, cat(what, " cannot be a host scalar"));
}

} // namespace

binary::primitive_desc::primitive_desc(
        const desc &adesc, const primitive_attr &attr)
    : impl_(std::make_shared<impl_t>()) {
    impl::verbose_errors("binary::primitive_desc", [&] {
        const double t0 = impl::now_ms();
        impl_t &p = *impl_;
        p.desc = adesc;
        p.attr = attr;
        const desc &d = adesc;
        impl::check_enum(d.alg, "binary algorithm", "binary_alg");
        check_tensor("src0", d.src0);
        check_tensor("src1", d.src1);
        check_tensor("dst", d.dst);
        impl::check_data_type("src0", d.src0.get_data_type());
        if (d.dst.get_dims() != d.src0.get_dims()
                || d.dst.get_data_type() != d.src0.get_data_type())
            fail(status::invalid_arguments,
                    cat("dst ", d.dst.str(), " must have the dims and type of src0 ",
                            d.src0.str()));
        impl::check_broadcast("src1", d.src1.get_dims(), d.src0.get_dims());

        const post_ops &po = attr.get_post_ops();
        for (int i = 0; i < po.len(); ++i) {
            const post_ops::entry &e = po.get(i);
            if (e.k != post_ops::kind::linear)
                fail(status::invalid_arguments,
                        cat("binary takes linear post-ops only; post-op ", i,
                                " is a distribution"));
            if (!std::isfinite(e.alpha) || !std::isfinite(e.beta))
                fail(status::invalid_arguments,
                        cat("linear post-op ", i, " alpha=", e.alpha, " beta=",
                                e.beta, " is not finite"));
            p.linear.push_back(e.alpha);
            p.linear.push_back(e.beta);
        }
        impl::check_isa_cap(attr.get_max_cpu_isa());

        std::string post;
        for (size_t i = 0; i < p.linear.size(); i += 2)
            post += cat(post.empty() ? "" : "+", "linear:", p.linear[i], ":",
                    p.linear[i + 1]);
        p.info = cat("alg=", binary_alg2str(d.alg), ",src0=", d.src0.str(),
                ",src1=", d.src1.str(), ",dst=", d.dst.str(),
                post.empty() ? "" : ",post=", post);

        if (d.src1.get_data_type() == data_type::bit) {
            p.apply.alg = d.alg;
            p.apply.dt = d.src0.get_data_type();
            p.apply.n_linear = static_cast<int>(p.linear.size() / 2);
            p.apply.max_isa = attr.get_max_cpu_isa();
            const impl::apply_picked_t picked
                    = impl::pick_apply_impl(p.apply, p.info);
            p.chosen = picked.entry;
            p.kernel = picked.kernel;
            p.name = p.chosen->name;
        } else {
            try {
                dnnl::post_ops ops;
                for (size_t i = 0; i < p.linear.size(); i += 2)
                    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear,
                            p.linear[i], p.linear[i + 1]);
                dnnl::primitive_attr oattr;
                oattr.set_post_ops(ops);
                p.onednn_pd = dnnl::binary::primitive_desc(
                        dnnl::binary::desc(d.alg == binary_alg::mul
                                        ? dnnl::algorithm::binary_mul
                                        : dnnl::algorithm::binary_add,
                                impl::to_onednn(d.src0), impl::to_onednn(d.src1),
                                impl::to_onednn(d.dst)),
                        oattr, impl::onednn_engine());
            } catch (const dnnl::error &e) {
                fail(status::unimplemented,
                        cat("oneDNN has no binary primitive for ", p.info, ": ",
                                e.what()));
            }
            p.name = cat("onednn:", p.onednn_pd.impl_info_str());
        }
        impl::verbose_print(impl::verbose_t::dispatch, "create",
                cat(p.name, ",", p.info, ",", impl::now_ms() - t0, "ms"));
    });
}

const char *binary::primitive_desc::impl_name() const {
    return impl::checked(impl_).name.c_str();
}

const binary::desc &binary::primitive_desc::get_desc() const {
    return impl::checked(impl_).desc;
}

const primitive_attr &binary::primitive_desc::get_attr() const {
    return impl::checked(impl_).attr;
}

std::string binary::primitive_desc::info() const {
    return impl::checked(impl_).info;
}

struct binary::impl_t {
    std::shared_ptr<const impl::apply_kernel_t> kernel;
    dnnl::binary onednn;
};

binary::binary(const primitive_desc &pd) : pd_(pd) {
    impl::verbose_errors("binary", [&] {
        if (!pd.impl())
            fail(status::invalid_arguments, "empty primitive descriptor");
        auto p = std::make_shared<impl_t>();
        const primitive_desc::impl_t &pi = *pd.impl();
        if (pi.chosen)
            p->kernel = pi.kernel; // made with the choice
        else
            p->onednn = dnnl::binary(pi.onednn_pd);
        impl_ = p;
    });
}

void binary::execute(const stream &strm,
        const std::unordered_map<int, memory> &args) const {
    impl::verbose_errors("binary::execute", [&] {
        if (!impl_) fail(status::invalid_arguments, "empty binary primitive");
        const double t0 = impl::now_ms();
        const primitive_desc::impl_t &pi = *pd_.impl();
        const desc &d = pi.desc;
        const memory &src0 = impl::tensor_arg(args, RNDNN_ARG_SRC_0, "src0", d.src0);
        const memory &src1 = impl::tensor_arg(args, RNDNN_ARG_SRC_1, "src1", d.src1);
        const memory &dst = impl::tensor_arg(args, RNDNN_ARG_DST, "dst", d.dst);
        const int nthr = strm.get_nthreads();

        if (!impl_->kernel) {
            impl::omp_threads_guard_t guard(nthr);
            const dnnl::engine &eng = impl::onednn_engine();
            dnnl::stream s(eng);
            dnnl::memory m0(pi.onednn_pd.src_desc(0), eng, impl::onednn_handle(src0));
            dnnl::memory m1(pi.onednn_pd.src_desc(1), eng, impl::onednn_handle(src1));
            dnnl::memory md(pi.onednn_pd.dst_desc(), eng, impl::onednn_handle(dst));
            try {
                impl_->onednn.execute(s,
                        {{DNNL_ARG_SRC_0, m0}, {DNNL_ARG_SRC_1, m1},
                                {DNNL_ARG_DST, md}});
                s.wait();
            } catch (const dnnl::error &e) {
                fail(status::runtime_error,
                        cat("oneDNN binary failed: ", e.what()));
            }
        } else {
            const impl::data_operand_t in(d.src0), out(d.dst);
            const impl::mask_operand_t bits(d.src1, d.src0.get_dims());
            const dim_t n = d.src0.nelems();
            impl::for_data_blocks(impl::work_t::blocks_apply, in,
                    src0.get_data_handle(), out,
                    dst.get_data_handle(), n, nthr, [&](impl::data_block_t &b) {
                        impl::apply_call_t call;
                        call.src = b.src;
                        call.mask = bits.read(src1.get_data_handle(), b.i0, b.n,
                                b.scratch.bits(), b.scratch.flags());
                        call.dst = b.dst;
                        call.n = b.n;
                        call.linear = pi.linear.data();
                        (*impl_->kernel)(call);
                    });
        }
        if (impl::verbose_on(impl::verbose_t::profile))
            impl::verbose_print(impl::verbose_t::profile, "exec",
                    cat(pi.name, ",", pi.info, ",nthr=", nthr, ",",
                            impl::now_ms() - t0, "ms"));
    });
}

} // namespace rndnn
