// The attention block as a graph, out = dropout(softmax(q k^T / sqrt(d))) v,
// forward and backward, its masks recomputed rather than stored; a
// generator restored from its 16 saved bytes replays a step exactly.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "rndnn/rndnn.hpp"

int main() {
    const rndnn::dim_t B = 2, H = 4, S = 64, D = 32;
    const rndnn::memory::desc qkv({B, H, S, D}, rndnn::dt::f32),
            sc({B, H, S, S}, rndnn::dt::f32);
    enum : rndnn::tensor_id { q, k, v, scores, probs, dropped, out };
    rndnn::graph g;
    g.add_input(q, qkv);
    g.add_input(k, qkv);
    g.add_input(v, qkv);
    g.add_tensor(scores, sc);
    g.add_tensor(probs, sc);
    g.add_tensor(dropped, sc);
    g.add_output(out, qkv);
    rndnn::matmul_params mp;
    mp.transpose_b = true;
    mp.scale = 1.f / std::sqrt(static_cast<float>(D));
    g.add_matmul("scores", q, k, scores, mp);
    g.add_softmax("softmax", scores, probs, -1);
    rndnn::dropout_params dp;
    dp.rate = 0.1;
    g.add_dropout("dropout", probs, dropped, dp);
    g.add_matmul("context", dropped, v, out);
    g.finalize();
    rndnn::compile_options o;
    o.masks = rndnn::mask_mode::recompute; // or bit (default), u8
    rndnn::compiled_graph c = g.compile(o);

    const std::size_t n = static_cast<std::size_t>(B * H * S * D);
    std::vector<float> mq(n), mk(n), mv(n), mo(n), dout(n, 1.f), dq(n),
            dk(n), dv(n), first(n);
    for (std::size_t i = 0; i < n; ++i) {
        mq[i] = std::sin(0.1f * static_cast<float>(i));
        mk[i] = std::cos(0.07f * static_cast<float>(i));
        mv[i] = static_cast<float>(i % 17) / 17.f;
    }
    const auto mem = [&](std::vector<float> &b) { return rndnn::memory(qkv, b.data()); };
    const auto step = [&](rndnn::generator &gen) {
        c.execute_forward({{q, mem(mq)}, {k, mem(mk)}, {v, mem(mv)},
                                  {out, mem(mo)}},
                gen);
        c.execute_backward({{out, mem(dout)}},
                {{q, mem(dq)}, {k, mem(dk)}, {v, mem(dv)}});
    };

    rndnn::generator gen(42);
    const rndnn::generator::state saved = gen.save();
    step(gen); // draws new masks
    first = dq;
    step(gen); // draws others
    rndnn::generator replay = rndnn::generator::load(saved);
    step(replay); // the first step's masks again
    const bool same = std::memcmp(first.data(), dq.data(), n * 4) == 0;
    std::printf("%s", c.get_memory_report().str().c_str());
    std::printf("replayed step %s the first\n", same ? "==" : "!=");
    return same ? 0 : 1;
}
