// Lowering: each node's forward as oneDNN or rndnn steps, with reorders.
//
// The steps are created once: oneDNN primitives over the tensors' layouts
// (or dense copies where oneDNN does better with them) and rndnn dropouts,
// with reorders where a primitive takes another layout than a tensor's.
// Buffers of the arena are declared here; arena.hpp places them.
#include <string>
#include <utility>
#include <vector>

#include "graph/graph_impl.hpp"
#include "src/onednn.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {
namespace impl {

namespace {

const dnnl::engine &eng() { return onednn_engine(); }

} // namespace

bool is_ref_impl(const dnnl::primitive_desc_base &pd) {
    return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
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

make_pd_t softmax_bwd_pd(int axis) {
    return [axis](const std::vector<dnnl::memory::desc> &m) {
        return dnnl::softmax_backward::primitive_desc(
                dnnl::softmax_backward::desc(m[1], m[0], axis), eng(),
                softmax_fwd_pd(axis, m[0]));
    };
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

// Buffers and references.
ref_t compiler_t::buffer(
        const memory::desc &md, const std::string &what, bool mask) {
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

ref_t compiler_t::caller_ref(where_t where, tensor_id id) const {
    ref_t r;
    r.where = where;
    r.id = id;
    r.md = g_.tensor(id).md;
    return r;
}

// The forward value of t, recomputed first if backward needs it and
// forward did not keep it.
ref_t compiler_t::value(tensor_id t) {
    if (!backward_ || !remat_.count(t)) return value_.at(t);
    auto it = recomputed_.find(t);
    if (it != recomputed_.end()) return it->second;
    const int p = g_.tensor(t).producer;
    const graph_node_t *saved = cur_;
    cur_ = &g_.nodes[p];
    const auto f = fusing_.find(p);
    const ref_t x = value(
            f == fusing_.end() ? cur_->src[0] : g_.nodes[f->second].src[0]);
    const ref_t y = buffer(g_.tensor(t).md, "recomputed dst");
    auto m = masks_.find(p);
    if (f != fusing_.end()) {
        // The scores again, the mask drawn again (the same bits as a
        // stored one).
        emit_softmax(f->second, p, "recompute output", false, x, y, nullptr,
                nullptr, nullptr);
    } else if (m != masks_.end()) {
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

// Steps.
void compiler_t::push(step_t s) {
    if (s.node.empty()) s.node = cur_->name;
    s.backward = backward_;
    verbose_print(verbose_t::dispatch, "create",
            cat("graph,", s.node, ",", s.what, ",", s.impl));
    c_.steps.push_back(std::move(s));
}

void compiler_t::unimplemented(const std::string &what,
        const std::vector<operand_t> &ops, const std::string &why) const {
    std::string list;
    for (const operand_t &o : ops)
        list += cat(list.empty() ? "" : ", ", o.name, " ", o.ref.md.str());
    fail(status::unimplemented,
            cat(node_str(*cur_), ": oneDNN has no ", what,
                    " primitive for ", list, ": ", why));
}

void compiler_t::emit_reorder(
        const std::string &what, const ref_t &from, const ref_t &to) {
    step_t s;
    s.what = what;
    try {
        const dnnl::reorder::primitive_desc pd(eng(),
                to_onednn(from.md), eng(), to_onednn(to.md));
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

// If oneDNN has only its reference implementation over the operands'
// layouts, or none, and dense layouts do better, the step takes dense
// copies (emit() reorders them in before and out after).
dnnl::primitive_desc_base compiler_t::pick_pd(
        const std::vector<operand_t> &ops, const make_pd_t &make,
        std::string &why) const {
    std::vector<dnnl::memory::desc> mds, dense;
    bool all_dense = true;
    for (const operand_t &o : ops) {
        mds.push_back(to_onednn(o.ref.md));
        dense.push_back(to_onednn(memory::desc(
                o.ref.md.get_dims(), o.ref.md.get_data_type())));
        all_dense = all_dense && o.ref.md.is_dense();
    }
    dnnl::primitive_desc_base pd;
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
    return pd;
}

// A oneDNN step over the operands' layouts (pick_pd): an operand whose
// layout the primitive takes otherwise (softmax's backward takes one
// layout for both gradients) is reordered, in before and out after.
void compiler_t::emit(const std::string &what,
        const std::vector<operand_t> &ops, const make_pd_t &make) {
    std::string why;
    const dnnl::primitive_desc_base pd = pick_pd(ops, make, why);
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
        if (want != to_onednn(o.ref.md)) {
            r = buffer(from_onednn(want), cat(what, " ", o.name));
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

void compiler_t::emit_dropout(int node, const std::string &what,
        prop_kind prop, const ref_t &src, const ref_t &dst, const ref_t *mask) {
    const bool bwd = prop == prop_kind::backward;
    step_t s;
    s.what = what;
    try {
        s.drop = dropout(dropout::primitive_desc(dropout_desc(
                g_.nodes[node].dropout, prop, src.md, dst.md,
                mask ? mask->md : memory::desc())));
    } catch (const error &e) {
        fail(e.status(),
                cat(node_str(g_.nodes[node]), " ", what, ": ",
                        e.what()));
    }
    s.impl = cat("rndnn:", s.drop.get_primitive_desc().impl_name());
    s.reservation = reservation_.at(node);
    s.args = {{bwd ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC, src},
            {bwd ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST, dst}};
    if (mask) s.args.push_back({RNDNN_ARG_MASK, *mask});
    push(std::move(s));
}

void compiler_t::emit_softmax(int sm, int drop, const std::string &what,
        bool backward, const ref_t &src, const ref_t &dst, const ref_t *p,
        const ref_t *stats, const ref_t *mask) {
    softmax_dropout_desc_t d;
    d.backward = backward;
    d.causal = g_.nodes[sm].softmax.causal;
    d.src = src.md;
    d.dst = dst.md;
    if (p) d.p = p->md;
    d.stats = stats != nullptr;
    d.dropout = drop >= 0;
    if (d.dropout)
        d.drop = dropout_desc(g_.nodes[drop].dropout,
                backward ? prop_kind::backward : prop_kind::forward_training,
                src.md, dst.md, mask ? mask->md : memory::desc());
    step_t s;
    s.what = what;
    // A fused step is both nodes'.
    if (fused_.count(sm))
        s.node = cat(g_.nodes[sm].name, "+", g_.nodes[drop].name);
    try {
        s.softmax = std::make_shared<softmax_dropout_t>(d);
    } catch (const error &e) {
        fail(e.status(),
                cat(node_str(g_.nodes[drop >= 0 ? drop : sm]), " ", what,
                        ": ", e.what()));
    }
    s.impl = cat("rndnn:", s.softmax->impl_name());
    if (d.dropout) s.reservation = reservation_.at(drop);
    s.args = {{RNDNN_ARG_SRC, src}, {RNDNN_ARG_DST, dst}};
    if (p) s.args.push_back({cimpl_t::arg_probs, *p});
    if (stats) s.args.push_back({cimpl_t::arg_stats, *stats});
    if (mask) s.args.push_back({RNDNN_ARG_MASK, *mask});
    push(std::move(s));
}

// Whether an element-wise node may write its result over its input
// (dropout, eltwise and softmax compute in place): src and dst are the
// graph's, of one layout, and nothing else reads src.
bool compiler_t::in_place(
        const graph_node_t &n, tensor_id src, tensor_id dst) const {
    return (n.kind == node_kind_t::dropout
                   || n.kind == node_kind_t::eltwise
                   || n.kind == node_kind_t::softmax)
            && !g_.is_caller(src) && !g_.is_caller(dst)
            && g_.tensor(src).md == g_.tensor(dst).md;
}

ref_t compiler_t::output_of(const graph_node_t &n, tensor_id src) {
    if (g_.is_caller(n.dst)) return caller_ref(where_t::caller, n.dst);
    if (in_place(n, src, n.dst) && g_.tensor(src).readers.size() == 1
            && !kept_.count(src)) {
        const ref_t y = value_.at(src);
        c_.buffers[y.buffer].node = n.name;
        c_.buffers[y.buffer].what = "dst (in place)";
        return y;
    }
    return buffer(g_.tensor(n.dst).md, "dst");
}

// Softmax node sm and dropout node drop as one step: it reads the scores
// and writes the dropped probabilities, the stats backward needs and a
// stored mask.
void compiler_t::forward_fused(int sm, int drop) {
    const graph_node_t &n = g_.nodes[drop];
    const tensor_id x = g_.nodes[sm].src[0];
    const ref_t y = output_of(n, x);
    value_[n.dst] = y;
    const ref_t *mask = nullptr, *stats = nullptr;
    if (stores_mask(drop)) {
        const data_type mdt = c_.options.masks == mask_mode::u8
                ? data_type::u8
                : data_type::bit;
        masks_[drop] = buffer(memory::desc(noise_dims(n), mdt), "mask", true);
        mask = &masks_[drop];
    }
    if (has_backward(n)) {
        stats_[drop] = buffer(memory::desc(softmax_dropout_t::stats_dims(
                                              g_.tensor(x).md.get_dims()),
                                      data_type::f32),
                "softmax stats");
        stats = &stats_[drop];
    }
    emit_softmax(sm, drop, "forward", false, value_.at(x), y, nullptr, stats,
            mask);
}

void compiler_t::forward(int i) {
    if (fused_.count(i)) return; // its dropout node runs it
    if (fusing_.count(i)) return forward_fused(fusing_.at(i), i);
    const graph_node_t &n = *cur_;
    const tensor_id x0 = n.src[0];
    const ref_t y = output_of(n, x0);
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
            if (n.softmax.causal) {
                emit_softmax(i, -1, "forward", false, x[0], y, nullptr,
                        nullptr, nullptr);
                break;
            }
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

} // namespace impl
} // namespace rndnn
