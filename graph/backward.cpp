// Backward rules: the gradient of each node kind, and how gradients sum.
//
// Backward runs the nodes in the reverse order. A tensor's gradient sums
// the contributions of its readers: the first is written in place, later
// ones are added; broadcast ones are reduced first.
#include <string>
#include <vector>

#include "graph/graph_impl.hpp"
#include "src/onednn.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

namespace {

const dnnl::engine &eng() { return onednn_engine(); }

bool same_place(const ref_t &a, const ref_t &b) {
    return a.where == b.where && a.id == b.id && a.buffer == b.buffer;
}

} // namespace

// A tensor's gradient accumulates in acc: the caller's diff_src for an
// input, else a buffer. The first contribution is written there; later
// ones (and every one to an output, whose caller gradient comes first) go
// to scratch and are added.
ref_t compiler_t::acc(tensor_id t) {
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
ref_t compiler_t::grad_target(tensor_id t, const dims &full) {
    const memory::desc &md = g_.tensor(t).md;
    if (full == md.get_dims() && !grads_[t].started
            && g_.tensor(t).role != role_t::output)
        return acc(t);
    return buffer(memory::desc(full, md.get_data_type()),
            cat("gradient of tensor ", t));
}

// Adds the contribution r to t's gradient.
void compiler_t::contribute(tensor_id t, ref_t r) {
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
ref_t compiler_t::diff(tensor_id t) {
    if (grads_[t].started) return acc(t);
    return caller_ref(where_t::diff_dst, t); // an output no node reads
}

// t's dims with the batch dims of @p full (matmul's broadcast).
dims compiler_t::batch_of(tensor_id t, const dims &full) const {
    dims d = g_.tensor(t).md.get_dims();
    for (size_t i = 0; i + 2 < d.size(); ++i)
        d[i] = full[i];
    return d;
}

// The fused softmax and dropout: the scores' gradient from the dropped
// probabilities' gradient, the probabilities rebuilt from the scores and
// stats, the mask stored or drawn again; in place over the gradient when
// the scores are the graph's, of its layout.
void compiler_t::backward_fused(int sm, int drop) {
    const graph_node_t &n = g_.nodes[drop];
    const tensor_id x = g_.nodes[sm].src[0];
    const ref_t d = diff(n.dst);
    grad_t &gx = grads_[x];
    if (!g_.is_caller(x) && g_.tensor(x).md == g_.tensor(n.dst).md
            && d.where == where_t::arena && !gx.has_acc) {
        gx.acc = d;
        gx.has_acc = true;
    }
    const ref_t t = grad_target(x, g_.tensor(n.dst).md.get_dims());
    const ref_t scores = value(x);
    auto m = masks_.find(drop);
    emit_softmax(sm, drop, "backward", true, d, t, &scores, &stats_.at(drop),
            m == masks_.end() ? nullptr : &m->second);
    contribute(x, t);
}

void compiler_t::backward(int i) {
    const graph_node_t &n = *cur_;
    if (!has_backward(n) || fused_.count(i)) return;
    if (fusing_.count(i)) return backward_fused(fusing_.at(i), i);
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
            const std::vector<operand_t> ops
                    = {{DNNL_ARG_DST, "dst", y, false},
                            {DNNL_ARG_DIFF_DST, "diff_dst", d, false},
                            {DNNL_ARG_DIFF_SRC, "diff_src", t, true}};
            // rndnn's kernel where oneDNN has only its reference (softmax
            // backward below AVX-512), none, or no causal form; the rows
            // must lie along the last dim. Not where a dropout reads the
            // softmax and fusion is off: that plan is the one before
            // fusion, kept to compare with.
            const std::vector<int> &readers = g_.tensor(n.dst).readers;
            const bool as_before = !c_.options.fuse_softmax_dropout
                    && readers.size() == 1
                    && g_.nodes[readers[0]].kind == node_kind_t::dropout;
            std::string why;
            const bool last = axis == g_.tensor(n.dst).md.get_ndims() - 1;
            dnnl::primitive_desc_base pd;
            if (!n.softmax.causal)
                pd = pick_pd(ops, softmax_bwd_pd(axis), why);
            const bool onednn_ref = !pd || is_ref_impl(pd);
            if (last && (n.softmax.causal || (!as_before && onednn_ref)))
                emit_softmax(i, -1, "backward", true, d, t, &y, nullptr,
                        nullptr);
            else
                emit("backward", ops, softmax_bwd_pd(axis));
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

} // namespace impl
} // namespace rndnn
