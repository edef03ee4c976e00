// Row-blocked pairs: a softmax over the last axis and the dropout that
// reads its output (forward), or a dropout's gradient and the softmax
// gradient that reads it (backward), run as one step, block of rows by
// block of rows, so that the second reads the first one's output while it
// is in cache.
//
// Softmax over the last axis computes each row on its own, and dropout's
// values depend only on the global element index (a block's offset is the
// node's offset plus its first element), so the pair gives the bits of the
// separate steps; tests/test_graph.cpp checks that. The pass runs after the
// steps are made and before the arena is planned, which keeps every buffer
// of a pair alive through both of its steps.
#include <algorithm>
#include <string>

#include "graph/graph_impl.hpp"
#include "pipeline/onednn.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

namespace {

using cimpl_t = compiled_graph::impl_t;

// Bytes of one operand's block: the pair's two or three blocks stay in L2.
constexpr dim_t block_bytes = 256 * 1024;

const cimpl_t::arg_t *find(const cimpl_t::step_t &s, int id) {
    for (const auto &a : s.args)
        if (a.id == id) return &a;
    return nullptr;
}

bool same_ref(const ref_t &a, const ref_t &b) {
    return a.where == b.where && a.id == b.id && a.buffer == b.buffer
            && a.md == b.md;
}

// A dense row-major operand with no first-element offset, of dims `d`.
bool plain(const ref_t &r, const dims &d) {
    return r.md.get_dims() == d && r.md.is_dense() && r.md.get_offset0() == 0;
}

} // namespace

void compiler_t::fuse_row_blocks() {
    auto node_of = [&](const step_t &s) -> const graph_node_t * {
        for (const graph_node_t &n : g_.nodes)
            if (n.name == s.node) return &n;
        return nullptr;
    };
    const int n_steps = static_cast<int>(c_.steps.size());
    for (int i = 0; i + 1 < n_steps; ++i) {
        step_t &s0 = c_.steps[i];
        step_t &s1 = c_.steps[i + 1];
        if (s0.rows || s0.fused_into_prev || s0.what != s1.what
                || s0.backward != s1.backward)
            continue;
        const graph_node_t *n0 = node_of(s0), *n1 = node_of(s1);
        if (!n0 || !n1) continue;
        const bool fwd = !s0.backward && s0.what == "forward";
        const bool bwd = s0.backward && s0.what == "backward";
        // forward: softmax, then dropout; backward: dropout, then softmax.
        const graph_node_t *soft = fwd ? n0 : n1, *drop = fwd ? n1 : n0;
        const step_t &ds = fwd ? s1 : s0;
        if (!(fwd || bwd) || soft->kind != node_kind_t::softmax
                || drop->kind != node_kind_t::dropout || ds.reservation < 0)
            continue;
        const dims &full = g_.tensor(soft->dst).md.get_dims();
        if (soft->axis != static_cast<int>(full.size()) - 1) continue;
        const dropout::desc &dd = ds.drop.get_primitive_desc().get_desc();
        if (!dd.noise_shape.empty() && dd.noise_shape != full) continue;
        // The operands: the link between the steps, then every one plain.
        bool ok = true;
        for (const auto *s : {&s0, &s1})
            for (const auto &a : s->args)
                ok = ok && plain(a.ref, full);
        const auto *link_out = find(s0, fwd ? DNNL_ARG_DST : RNDNN_ARG_DIFF_SRC);
        const auto *link_in
                = find(s1, fwd ? RNDNN_ARG_SRC : DNNL_ARG_DIFF_DST);
        if (!ok || !link_out || !link_in
                || !same_ref(link_out->ref, link_in->ref))
            continue;
        const dim_t cols = full.back();
        dim_t rows = 1;
        for (size_t k = 0; k + 1 < full.size(); ++k)
            rows *= full[k];
        const data_type dt = dd.src.get_data_type();
        const dim_t esize = dt_bits(dt) / 8;
        dim_t br = std::max<dim_t>(1, block_bytes / (cols * esize));
        while ((br * cols) % 8 != 0) // bit masks: blocks start on bytes
            ++br;
        if (rows <= br) continue; // one block: nothing to gain

        auto blocks = std::make_shared<cimpl_t::row_blocks_t>();
        blocks->rows = rows;
        blocks->cols = cols;
        blocks->block_rows = br;
        blocks->softmax_first = fwd;
        const dim_t block_rows[2] = {br, rows % br};
        try {
            for (int k = 0; k < 2; ++k) {
                if (block_rows[k] == 0) continue;
                const memory::desc md({block_rows[k], cols}, dt);
                const dnnl::memory::desc omd = to_onednn(md);
                if (fwd) {
                    blocks->softmax[k] = dnnl::softmax_forward(
                            softmax_fwd_pd(1, omd));
                } else {
                    blocks->softmax[k] = dnnl::softmax_backward(
                            dnnl::softmax_backward::primitive_desc(
                                    dnnl::softmax_backward::desc(omd, omd, 1),
                                    onednn_engine(), softmax_fwd_pd(1, omd)));
                }
                dropout::desc d = dd;
                d.src = d.dst = md;
                d.noise_shape = {};
                if (!dd.mask.is_zero())
                    d.mask = memory::desc(
                            {block_rows[k], cols}, dd.mask.get_data_type());
                blocks->drop[k] = dropout(dropout::primitive_desc(d));
            }
        } catch (const dnnl::error &) {
            continue; // oneDNN has no block primitive: keep the steps apart
        }
        s0.impl += cat(" (row blocks of ", br, " with the next step)");
        s1.impl += " (in the previous step's row blocks)";
        s0.rows = blocks;
        s1.fused_into_prev = true;
        ++i;
    }
}

} // namespace impl
} // namespace rndnn
