// Compilation: the forward steps in execution order, then the backward
// steps in the reverse order, each a oneDNN primitive or an rndnn dropout
// created once, with reorders where a primitive takes another layout than
// a tensor's; then the arena, one allocation that holds every internal
// tensor, mask, gradient and scratch buffer, placed by lifetime.
#include <algorithm>
#include <functional>
#include <set>

#include <omp.h>

#include "graph/arena.hpp"
#include "graph/graph_impl.hpp"
#include "pipeline/onednn.hpp"
#include "src/enums.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;
using impl::graph_node_t;
using impl::node_kind_t;
using impl::role_t;

namespace {

using cimpl_t = compiled_graph::impl_t;
using ref_t = cimpl_t::ref_t;
using where_t = cimpl_t::where_t;
using step_t = cimpl_t::step_t;

// One operand of a oneDNN step.
struct operand_t {
    int arg; // DNNL_ARG_*
    const char *name;
    ref_t ref;
    bool out;
};

// Creates a primitive descriptor for the operands' oneDNN descs, in the
// order of the operands; throws dnnl::error if oneDNN has none.
using make_pd_t = std::function<dnnl::primitive_desc_base(
        const std::vector<dnnl::memory::desc> &)>;

const dnnl::engine &eng() { return impl::onednn_engine(); }

bool is_ref_impl(const dnnl::primitive_desc_base &pd) {
    return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

bool same_place(const ref_t &a, const ref_t &b) {
    return a.where == b.where && a.id == b.id && a.buffer == b.buffer;
}

ref_t transposed(ref_t r) {
    r.md = impl::transposed(r.md);
    return r;
}

make_pd_t matmul_pd(float scale) {
    return [scale](const std::vector<dnnl::memory::desc> &m) {
        dnnl::primitive_attr attr;
        if (scale != 1.f) attr.set_output_scales(0, {scale});
        return dnnl::matmul::primitive_desc(
                dnnl::matmul::desc(m[0], m[1], m[2]), attr, eng());
    };
}

make_pd_t binary_pd(dnnl::algorithm alg) {
    return [alg](const std::vector<dnnl::memory::desc> &m) {
        return dnnl::binary::primitive_desc(
                dnnl::binary::desc(alg, m[0], m[1], m[2]), eng());
    };
}

dnnl::eltwise_forward::primitive_desc eltwise_fwd_pd(dnnl::algorithm alg,
        float alpha, float beta, const dnnl::memory::desc &md) {
    return dnnl::eltwise_forward::primitive_desc(
            dnnl::eltwise_forward::desc(
                    dnnl::prop_kind::forward_training, alg, md, alpha, beta),
            eng());
}

make_pd_t eltwise_fwd(dnnl::algorithm alg, float alpha, float beta) {
    return [=](const std::vector<dnnl::memory::desc> &m) {
        return eltwise_fwd_pd(alg, alpha, beta, m[0]);
    };
}

dnnl::softmax_forward::primitive_desc softmax_fwd_pd(
        int axis, const dnnl::memory::desc &md) {
    return dnnl::softmax_forward::primitive_desc(
            dnnl::softmax_forward::desc(
                    dnnl::prop_kind::forward_training, md, axis),
            eng());
}

dnnl::algorithm onednn_eltwise(eltwise_alg alg) {
    switch (alg) {
        case eltwise_alg::relu: return dnnl::algorithm::eltwise_relu;
        case eltwise_alg::gelu_tanh: return dnnl::algorithm::eltwise_gelu_tanh;
        case eltwise_alg::gelu_erf: return dnnl::algorithm::eltwise_gelu_erf;
        case eltwise_alg::linear: break;
    }
    return dnnl::algorithm::eltwise_linear;
}

// Turns a graph into steps and buffers.
class compiler_t {
public:
    compiler_t(cimpl_t &c) : c_(c), g_(c.g) {}

    void run() {
        analyze();
        for (const auto &e : g_.tensors)
            if (e.second.role == role_t::input)
                value_[e.first] = caller_ref(where_t::caller, e.first);
        for (int i : g_.order) {
            cur_ = &g_.nodes[i];
            forward(i);
        }
        c_.n_forward = static_cast<int>(c_.steps.size());
        backward_ = true;
        for (auto it = g_.order.rbegin(); it != g_.order.rend(); ++it) {
            cur_ = &g_.nodes[*it];
            backward(*it);
        }
        plan_arena();
    }

private:
    // Which tensors need gradients, which forward values backward reads,
    // which dropout outputs backward recomputes, and the reservations.
    void analyze() {
        for (const auto &e : g_.tensors)
            if (e.second.role == role_t::input && e.second.requires_grad
                    && c_.options.training)
                grad_.insert(e.first);
        for (int i : g_.order) {
            const graph_node_t &n = g_.nodes[i];
            bool any = false;
            for (tensor_id s : n.src)
                any = any || needs_grad(s);
            if (any) grad_.insert(n.dst);
        }
        for (int i : g_.order) {
            const graph_node_t &n = g_.nodes[i];
            if (!has_backward(n)) continue;
            switch (n.kind) {
                case node_kind_t::binary:
                    if (n.binary == binary_alg::add) break;
                    // Mul's gradients read the other operand, as matmul's.
                    [[fallthrough]];
                case node_kind_t::matmul:
                    if (needs_grad(n.src[0])) kept_.insert(n.src[1]);
                    if (needs_grad(n.src[1])) kept_.insert(n.src[0]);
                    break;
                case node_kind_t::softmax: kept_.insert(n.dst); break;
                case node_kind_t::eltwise:
                    if (n.eltwise != eltwise_alg::linear)
                        kept_.insert(n.src[0]);
                    break;
                case node_kind_t::dropout:
                case node_kind_t::reorder: break;
            }
        }
        for (int i : g_.order) {
            const graph_node_t &n = g_.nodes[i];
            if (n.kind != node_kind_t::dropout) continue;
            reservation_[i] = static_cast<int>(c_.reservations.size());
            dim_t count = c_.options.training ? 1 : 0;
            for (dim_t d : noise_dims(n))
                count *= d;
            c_.reservations.push_back(count);
            const tensor_id x = n.src[0], y = n.dst;
            if (c_.options.recompute_dropout_output && kept_.count(y)
                    && !g_.is_caller(y) && (kept_.count(x) || g_.is_caller(x)))
                remat_.insert(y);
        }
    }

    bool needs_grad(tensor_id t) const { return grad_.count(t) != 0; }
    bool has_backward(const graph_node_t &n) const {
        return needs_grad(n.dst);
    }
    bool stores_mask(int i) const {
        const graph_node_t &n = g_.nodes[i];
        return c_.options.masks != mask_mode::recompute
                && (has_backward(n) || remat_.count(n.dst));
    }

    // Buffers and references.
    ref_t buffer(const memory::desc &md, const std::string &what,
            bool mask = false) {
        cimpl_t::buffer_t b;
        b.md = md;
        b.size = md.get_size();
        b.node = cur_->name;
        b.what = what;
        b.mask = mask;
        c_.buffers.push_back(b);
        ref_t r;
        r.buffer = static_cast<int>(c_.buffers.size()) - 1;
        r.md = md;
        return r;
    }
    ref_t caller_ref(where_t where, tensor_id id) const {
        ref_t r;
        r.where = where;
        r.id = id;
        r.md = g_.tensor(id).md;
        return r;
    }

    // The forward value of t, recomputed first if backward needs it and
    // forward did not keep it.
    ref_t value(tensor_id t) {
        if (!backward_ || !remat_.count(t)) return value_.at(t);
        auto it = recomputed_.find(t);
        if (it != recomputed_.end()) return it->second;
        const int p = g_.tensor(t).producer;
        const graph_node_t *saved = cur_;
        cur_ = &g_.nodes[p];
        const ref_t x = value(cur_->src[0]);
        const ref_t y = buffer(g_.tensor(t).md, "recomputed dst");
        auto m = masks_.find(p);
        if (m != masks_.end()) {
            // Dropout's backward with the stored mask is its forward.
            emit_dropout(p, "recompute output", prop_kind::backward, x, y,
                    &m->second);
        } else {
            masks_[p] = buffer(memory::desc(noise_dims(*cur_), data_type::bit),
                    "recomputed mask", true);
            emit_dropout(p, "recompute output", prop_kind::forward_training,
                    x, y, &masks_[p]);
        }
        cur_ = saved;
        recomputed_[t] = y;
        return y;
    }

    dims noise_dims(const graph_node_t &n) const {
        return n.dropout.noise_shape.empty() ? g_.tensor(n.dst).md.get_dims()
                                             : n.dropout.noise_shape;
    }

    // Steps.
    void push(step_t s) {
        s.node = cur_->name;
        s.backward = backward_;
        impl::verbose_print(impl::verbose_t::dispatch, "create",
                cat("graph,", s.node, ",", s.what, ",", s.impl));
        c_.steps.push_back(std::move(s));
    }

    [[noreturn]] void unimplemented(const std::string &what,
            const std::vector<operand_t> &ops, const std::string &why) const {
        std::string list;
        for (const operand_t &o : ops)
            list += cat(list.empty() ? "" : ", ", o.name, " ", o.ref.md.str());
        fail(status::unimplemented,
                cat(impl::node_str(*cur_), ": oneDNN has no ", what,
                        " primitive for ", list, ": ", why));
    }

    void emit_reorder(const std::string &what, const ref_t &from,
            const ref_t &to) {
        step_t s;
        s.what = what;
        try {
            const dnnl::reorder::primitive_desc pd(eng(),
                    impl::to_onednn(from.md), eng(), impl::to_onednn(to.md));
            s.prim = dnnl::reorder(pd);
            s.impl = cat("onednn:", pd.impl_info_str());
        } catch (const dnnl::error &e) {
            unimplemented(what, {{DNNL_ARG_FROM, "src", from, false},
                                        {DNNL_ARG_TO, "dst", to, true}},
                    e.what());
        }
        s.args = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
        push(std::move(s));
    }

    // A oneDNN step over the operands' layouts. If oneDNN has only its
    // reference implementation there, or none, and dense layouts do
    // better, the step takes dense copies: reorders in before and out
    // after. An operand whose layout the primitive changes (softmax's
    // backward takes one layout for both gradients) is reordered the same
    // way.
    void emit(const std::string &what, const std::vector<operand_t> &ops,
            const make_pd_t &make) {
        std::vector<dnnl::memory::desc> mds, dense;
        bool all_dense = true;
        for (const operand_t &o : ops) {
            mds.push_back(impl::to_onednn(o.ref.md));
            dense.push_back(impl::to_onednn(memory::desc(
                    o.ref.md.get_dims(), o.ref.md.get_data_type())));
            all_dense = all_dense && o.ref.md.is_dense();
        }
        dnnl::primitive_desc_base pd;
        std::string why;
        try {
            pd = make(mds);
        } catch (const dnnl::error &e) {
            why = e.what();
        }
        if (!all_dense && (!pd || is_ref_impl(pd))) {
            try {
                const dnnl::primitive_desc_base dpd = make(dense);
                if (!pd || !is_ref_impl(dpd)) pd = dpd;
            } catch (const dnnl::error &e) {
                if (!pd) why += cat("; with dense layouts: ", e.what());
            }
        }
        if (!pd) unimplemented(what, ops, why);

        step_t s;
        s.what = what;
        s.impl = cat("onednn:", pd.impl_info_str());
        s.prim = dnnl::primitive(pd.get());
        std::vector<std::pair<ref_t, ref_t>> outs; // (scratch, target)
        for (const operand_t &o : ops) {
            const dnnl::memory::desc want
                    = pd.query_md(dnnl::query::exec_arg_md, o.arg);
            ref_t r = o.ref;
            if (want != impl::to_onednn(o.ref.md)) {
                r = buffer(impl::from_onednn(want), cat(what, " ", o.name));
                if (o.out)
                    outs.emplace_back(r, o.ref);
                else
                    emit_reorder(cat("reorder ", o.name, " for ", what),
                            o.ref, r);
            }
            s.args.push_back({o.arg, r});
        }
        push(std::move(s));
        for (const auto &o : outs)
            emit_reorder(cat("reorder ", what, " result"), o.first, o.second);
    }

    void emit_dropout(int node, const std::string &what, prop_kind prop,
            const ref_t &src, const ref_t &dst, const ref_t *mask) {
        const bool bwd = prop == prop_kind::backward;
        step_t s;
        s.what = what;
        try {
            s.drop = dropout(dropout::primitive_desc(impl::dropout_desc(
                    g_.nodes[node].dropout, prop, src.md, dst.md,
                    mask ? mask->md : memory::desc())));
        } catch (const error &e) {
            fail(e.status(),
                    cat(impl::node_str(g_.nodes[node]), " ", what, ": ",
                            e.what()));
        }
        s.impl = cat("rndnn:", s.drop.get_primitive_desc().impl_name());
        s.reservation = reservation_.at(node);
        s.args = {{bwd ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC, src},
                {bwd ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST, dst}};
        if (mask) s.args.push_back({RNDNN_ARG_MASK, *mask});
        push(std::move(s));
    }

    // Whether an element-wise node may write its result over its input
    // (dropout, eltwise and softmax compute in place): src and dst are the
    // graph's, of one layout, and nothing else reads src.
    bool in_place(const graph_node_t &n, tensor_id src, tensor_id dst) const {
        return (n.kind == node_kind_t::dropout
                       || n.kind == node_kind_t::eltwise
                       || n.kind == node_kind_t::softmax)
                && !g_.is_caller(src) && !g_.is_caller(dst)
                && g_.tensor(src).md == g_.tensor(dst).md;
    }

    void forward(int i) {
        const graph_node_t &n = *cur_;
        const tensor_id x0 = n.src[0];
        ref_t y;
        if (g_.is_caller(n.dst))
            y = caller_ref(where_t::caller, n.dst);
        else if (in_place(n, x0, n.dst) && g_.tensor(x0).readers.size() == 1
                && !kept_.count(x0)) {
            y = value_.at(x0);
            c_.buffers[y.buffer].node = n.name;
            c_.buffers[y.buffer].what = "dst (in place)";
        } else
            y = buffer(g_.tensor(n.dst).md, "dst");
        std::vector<ref_t> x;
        for (tensor_id s : n.src)
            x.push_back(value_.at(s));
        value_[n.dst] = y;
        switch (n.kind) {
            case node_kind_t::matmul: {
                const ref_t a = n.matmul.transpose_a ? transposed(x[0]) : x[0];
                const ref_t b = n.matmul.transpose_b ? transposed(x[1]) : x[1];
                emit("forward",
                        {{DNNL_ARG_SRC, "a", a, false},
                                {DNNL_ARG_WEIGHTS, "b", b, false},
                                {DNNL_ARG_DST, "dst", y, true}},
                        matmul_pd(n.matmul.scale));
                break;
            }
            case node_kind_t::softmax: {
                const int axis = n.axis;
                emit("forward",
                        {{DNNL_ARG_SRC, "src", x[0], false},
                                {DNNL_ARG_DST, "dst", y, true}},
                        [axis](const std::vector<dnnl::memory::desc> &m) {
                            return softmax_fwd_pd(axis, m[0]);
                        });
                break;
            }
            case node_kind_t::eltwise:
                emit("forward",
                        {{DNNL_ARG_SRC, "src", x[0], false},
                                {DNNL_ARG_DST, "dst", y, true}},
                        eltwise_fwd(onednn_eltwise(n.eltwise), n.alpha,
                                n.beta));
                break;
            case node_kind_t::binary:
                emit("forward",
                        {{DNNL_ARG_SRC_0, "src0", x[0], false},
                                {DNNL_ARG_SRC_1, "src1", x[1], false},
                                {DNNL_ARG_DST, "dst", y, true}},
                        binary_pd(n.binary == binary_alg::mul
                                        ? dnnl::algorithm::binary_mul
                                        : dnnl::algorithm::binary_add));
                break;
            case node_kind_t::reorder: emit_reorder("forward", x[0], y); break;
            case node_kind_t::dropout: {
                const ref_t *mask = nullptr;
                if (stores_mask(i)) {
                    const data_type mdt = c_.options.masks == mask_mode::u8
                            ? data_type::u8
                            : data_type::bit;
                    masks_[i] = buffer(memory::desc(noise_dims(n), mdt), "mask",
                            true);
                    mask = &masks_[i];
                }
                emit_dropout(i, "forward",
                        c_.options.training ? prop_kind::forward_training
                                            : prop_kind::forward_inference,
                        x[0], y, mask);
                break;
            }
        }
    }

    // Gradients. A tensor's gradient accumulates in acc: the caller's
    // diff_src for an input, else a buffer. The first contribution is
    // written there; later ones (and every one to an output, whose caller
    // gradient comes first) go to scratch and are added.
    struct grad_t {
        ref_t acc;
        bool has_acc = false, started = false;
    };

    ref_t acc(tensor_id t) {
        grad_t &g = grads_[t];
        if (!g.has_acc) {
            g.acc = g_.tensor(t).role == role_t::input
                    ? caller_ref(where_t::diff_src, t)
                    : buffer(g_.tensor(t).md, cat("gradient of tensor ", t));
            g.has_acc = true;
        }
        return g.acc;
    }

    // Where to write a contribution to t's gradient of dims @p full (t's
    // dims, or broadcast ones that contribute() reduces).
    ref_t grad_target(tensor_id t, const dims &full) {
        const memory::desc &md = g_.tensor(t).md;
        if (full == md.get_dims() && !grads_[t].started
                && g_.tensor(t).role != role_t::output)
            return acc(t);
        return buffer(memory::desc(full, md.get_data_type()),
                cat("gradient of tensor ", t));
    }

    // Adds the contribution r to t's gradient.
    void contribute(tensor_id t, ref_t r) {
        const memory::desc &md = g_.tensor(t).md;
        if (r.md.get_dims() != md.get_dims()) {
            const ref_t to = grad_target(t, md.get_dims());
            emit("reduce gradient",
                    {{DNNL_ARG_SRC, "src", r, false},
                            {DNNL_ARG_DST, "dst", to, true}},
                    [](const std::vector<dnnl::memory::desc> &m) {
                        return dnnl::reduction::primitive_desc(
                                dnnl::reduction::desc(
                                        dnnl::algorithm::reduction_sum, m[0],
                                        m[1], 0.f, 0.f),
                                eng());
                    });
            r = to;
        }
        grad_t &g = grads_[t];
        const ref_t a = acc(t);
        if (same_place(r, a)) {
            g.started = true;
            return;
        }
        if (!g.started && g_.tensor(t).role != role_t::output) {
            emit_reorder("copy gradient", r, a);
        } else {
            const ref_t prev = g.started ? a : caller_ref(where_t::diff_dst, t);
            emit("add gradient",
                    {{DNNL_ARG_SRC_0, "src0", prev, false},
                            {DNNL_ARG_SRC_1, "src1", r, false},
                            {DNNL_ARG_DST, "dst", a, true}},
                    binary_pd(dnnl::algorithm::binary_add));
        }
        g.started = true;
    }

    // The whole gradient of t, once every reader has contributed.
    ref_t diff(tensor_id t) {
        if (grads_[t].started) return acc(t);
        return caller_ref(where_t::diff_dst, t); // an output no node reads
    }

    // t's dims with the batch dims of @p full (matmul's broadcast).
    dims batch_of(tensor_id t, const dims &full) const {
        dims d = g_.tensor(t).md.get_dims();
        for (size_t i = 0; i + 2 < d.size(); ++i)
            d[i] = full[i];
        return d;
    }

    void backward(int i) {
        const graph_node_t &n = *cur_;
        if (!has_backward(n)) return;
        const ref_t d = diff(n.dst);
        // In place: the first contribution to src's gradient overwrites
        // dst's, which nothing reads after this node.
        grad_t &gx = grads_[n.src[0]];
        if (in_place(n, n.src[0], n.dst) && d.where == where_t::arena
                && !gx.has_acc) {
            gx.acc = d;
            gx.has_acc = true;
        }
        const dims &full = g_.tensor(n.dst).md.get_dims();
        const auto get = [&](size_t k) { return value(n.src[k]); };
        switch (n.kind) {
            case node_kind_t::matmul: {
                // dst = s a' b' with a' = op(a), b' = op(b):
                // diff a = s diff b'^T, or s b' diff^T if a is transposed;
                // diff b = s a'^T diff, or s diff^T a' if b is transposed.
                // Transposed views give every operand; dst stays plain.
                const matmul_params &m = n.matmul;
                const ref_t a = get(0), b = get(1);
                const ref_t a1 = m.transpose_a ? transposed(a) : a;
                const ref_t b1 = m.transpose_b ? transposed(b) : b;
                for (size_t k = 0; k < 2; ++k) {
                    const tensor_id s = n.src[k];
                    if (!needs_grad(s)) continue;
                    const ref_t t = grad_target(s, batch_of(s, full));
                    operand_t x {DNNL_ARG_SRC, "diff_dst^T", transposed(d),
                            false};
                    operand_t w {DNNL_ARG_WEIGHTS, "diff_dst^T", x.ref, false};
                    if (k == 0 && !m.transpose_a) {
                        x = {DNNL_ARG_SRC, "diff_dst", d, false};
                        w = {DNNL_ARG_WEIGHTS, "b'^T", transposed(b1), false};
                    } else if (k == 0) {
                        x = {DNNL_ARG_SRC, "b'", b1, false};
                    } else if (!m.transpose_b) {
                        x = {DNNL_ARG_SRC, "a'^T", transposed(a1), false};
                        w = {DNNL_ARG_WEIGHTS, "diff_dst", d, false};
                    } else {
                        w = {DNNL_ARG_WEIGHTS, "a'", a1, false};
                    }
                    emit(k == 0 ? "backward a" : "backward b",
                            {x, w,
                                    {DNNL_ARG_DST, k == 0 ? "diff_a" : "diff_b",
                                            t, true}},
                            matmul_pd(m.scale));
                    contribute(s, t);
                }
                break;
            }
            case node_kind_t::softmax: {
                const int axis = n.axis;
                const ref_t y = value(n.dst);
                const ref_t t = grad_target(n.src[0], full);
                emit("backward",
                        {{DNNL_ARG_DST, "dst", y, false},
                                {DNNL_ARG_DIFF_DST, "diff_dst", d, false},
                                {DNNL_ARG_DIFF_SRC, "diff_src", t, true}},
                        [axis](const std::vector<dnnl::memory::desc> &m) {
                            return dnnl::softmax_backward::primitive_desc(
                                    dnnl::softmax_backward::desc(
                                            m[1], m[0], axis),
                                    eng(), softmax_fwd_pd(axis, m[0]));
                        });
                contribute(n.src[0], t);
                break;
            }
            case node_kind_t::eltwise: {
                const ref_t t = grad_target(n.src[0], full);
                if (n.eltwise == eltwise_alg::linear) {
                    emit("backward",
                            {{DNNL_ARG_SRC, "diff_dst", d, false},
                                    {DNNL_ARG_DST, "diff_src", t, true}},
                            eltwise_fwd(dnnl::algorithm::eltwise_linear,
                                    n.alpha, 0.f));
                } else {
                    const dnnl::algorithm alg = onednn_eltwise(n.eltwise);
                    const float alpha = n.alpha, beta = n.beta;
                    emit("backward",
                            {{DNNL_ARG_SRC, "src", get(0), false},
                                    {DNNL_ARG_DIFF_DST, "diff_dst", d, false},
                                    {DNNL_ARG_DIFF_SRC, "diff_src", t, true}},
                            [=](const std::vector<dnnl::memory::desc> &m) {
                                return dnnl::eltwise_backward::primitive_desc(
                                        dnnl::eltwise_backward::desc(
                                                alg, m[1], m[0], alpha, beta),
                                        eng(),
                                        eltwise_fwd_pd(alg, alpha, beta, m[0]));
                            });
                }
                contribute(n.src[0], t);
                break;
            }
            case node_kind_t::binary: {
                const bool mul = n.binary == binary_alg::mul;
                for (size_t k = 0; k < 2; ++k) {
                    if (!needs_grad(n.src[k])) continue;
                    if (!mul) {
                        contribute(n.src[k], d);
                        continue;
                    }
                    // diff src_k = diff x src_(1-k), at dst's dims.
                    const ref_t t = grad_target(n.src[k], full);
                    emit(k == 0 ? "backward src0" : "backward src1",
                            {{DNNL_ARG_SRC_0, "diff_dst", d, false},
                                    {DNNL_ARG_SRC_1, k == 0 ? "src1" : "src0",
                                            get(1 - k), false},
                                    {DNNL_ARG_DST, "diff", t, true}},
                            binary_pd(dnnl::algorithm::binary_mul));
                    contribute(n.src[k], t);
                }
                break;
            }
            case node_kind_t::reorder: {
                const ref_t t = grad_target(n.src[0], full);
                emit_reorder("backward", d, t);
                contribute(n.src[0], t);
                break;
            }
            case node_kind_t::dropout: {
                const ref_t t = grad_target(n.src[0], full);
                auto m = masks_.find(i);
                emit_dropout(i, "backward", prop_kind::backward, d, t,
                        m == masks_.end() ? nullptr : &m->second);
                contribute(n.src[0], t);
                break;
            }
        }
    }

    // Places the buffers in one arena by their lifetimes, the steps that
    // use them (graph/arena.hpp).
    void plan_arena() {
        for (int i = 0; i < static_cast<int>(c_.steps.size()); ++i)
            for (const auto &a : c_.steps[i].args) {
                if (a.ref.where != where_t::arena) continue;
                cimpl_t::buffer_t &b = c_.buffers[a.ref.buffer];
                if (b.first < 0) b.first = i;
                b.last = i;
            }
        std::vector<impl::arena_buffer_t> lifetimes;
        for (const cimpl_t::buffer_t &b : c_.buffers)
            lifetimes.push_back({b.size, b.first, b.last});
        const impl::arena_plan_t plan = impl::plan_arena(lifetimes);
        for (size_t i = 0; i < c_.buffers.size(); ++i)
            c_.buffers[i].offset = plan.offsets[i];
        c_.arena_size = plan.size;
        if (c_.arena_size > 0)
            c_.arena = memory(memory::desc(
                    {static_cast<dim_t>(c_.arena_size)}, data_type::u8));
    }

    cimpl_t &c_;
    const graph::impl_t &g_;
    const graph_node_t *cur_ = nullptr;
    bool backward_ = false;
    std::set<tensor_id> grad_, kept_, remat_;
    std::map<int, int> reservation_; // dropout node -> reservation
    std::map<tensor_id, ref_t> value_, recomputed_;
    std::map<int, ref_t> masks_; // dropout node -> its mask
    std::map<tensor_id, grad_t> grads_;
};

} // namespace

compiled_graph graph::compile(const compile_options &options) const {
    if (!impl_->finalized)
        fail(status::invalid_arguments,
                "the graph is not finalized: call finalize() before "
                "compile()");
    if (options.threads < 0)
        fail(status::invalid_arguments,
                cat("threads=", options.threads, " is negative"));
    impl::check_enum(options.masks, "mask mode", "mask_mode");
    const double t0 = impl::now_ms();
    auto c = std::make_shared<compiled_graph::impl_t>();
    c->g = *impl_;
    c->options = options;
    c->nthr = options.threads > 0 ? options.threads : omp_get_max_threads();
    {
        impl::omp_threads_guard_t guard(c->nthr);
        compiler_t(*c).run();
    }
    c->offsets.assign(c->reservations.size(), 0);
    for (const step_t &s : c->steps)
        c->times.push_back({s.node, s.what, s.backward, s.impl, 0.0});
    impl::verbose_print(impl::verbose_t::dispatch, "create",
            cat("graph,compiled,steps=", c->steps.size(), ",masks=",
                    mask_mode2str(options.masks), ",arena=", c->arena_size,
                    "B,", impl::now_ms() - t0, "ms"));
    return compiled_graph(c);
}

} // namespace rndnn
