// The attention block of the graph tests, out = dropout(softmax(q k^T *
// scale)) v, as a graph of the public API.
#ifndef RNDNN_TESTS_ATTENTION_GRAPH_HPP
#define RNDNN_TESTS_ATTENTION_GRAPH_HPP

#include <cmath>

#include "rndnn/rndnn.hpp"

namespace rndnn {
namespace test {

// The attention block: out = dropout(softmax(q k^T * scale)) v.
struct attn_t {
    dim_t b = 2, h = 2, s = 6, d = 4;
    double rate = 0.25;
    data_type dt = data_type::f32;
    bool v_grad = true;
    // A window of the dropout (a block of a global batch or of the heads):
    // the scores' global dims and this block's origin; empty: none.
    dims window_global, window_origin;
    // The dropout's output is also a graph output (dropped_id), to see the
    // mask.
    bool dropped_out = false;
    bool causal = false; // the softmax masks future positions


    dims qkv() const { return {b, h, s, d}; }
    dims sc() const { return {b, h, s, s}; }
    float scale() const { return 1.f / std::sqrt(static_cast<float>(d)); }
};
enum : tensor_id { q_id, k_id, v_id, scores_id, probs_id, dropped_id, out_id };

inline graph attention_graph(const attn_t &a) {
    graph g;
    const memory::desc qkv(a.qkv(), a.dt), sc(a.sc(), a.dt);
    g.add_input(q_id, qkv);
    g.add_input(k_id, qkv);
    g.add_input(v_id, qkv, a.v_grad);
    g.add_tensor(scores_id, sc);
    g.add_tensor(probs_id, sc);
    if (a.dropped_out) g.add_output(dropped_id, sc);
    else g.add_tensor(dropped_id, sc);
    g.add_output(out_id, qkv);
    matmul_params mp;
    mp.transpose_b = true;
    mp.scale = a.scale();
    g.add_matmul("scores", q_id, k_id, scores_id, mp);
    softmax_params sp;
    sp.causal = a.causal;
    g.add_softmax("softmax", scores_id, probs_id, -1, sp);
    dropout_params dp;
    dp.rate = a.rate;
    dp.global_dims = a.window_global;
    dp.origin = a.window_origin;
    g.add_dropout("dropout", probs_id, dropped_id, dp);
    g.add_matmul("context", dropped_id, v_id, out_id);
    g.finalize();
    return g;
}

} // namespace test
} // namespace rndnn

#endif
