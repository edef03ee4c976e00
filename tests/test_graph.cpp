// The graph executor: attention forward and backward against loops in
// double, finite differences, mask plans, the generator's replay, summed
// gradients, layouts, and the errors of bad graphs.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "src/utils.hpp"
#include "tests/attention_graph.hpp"
#include "tests/test_utils.hpp"

namespace rndnn {
namespace test {
namespace {

// A tensor and its host buffer (strided layouts allowed).
struct tensor_t {
    memory::desc md;
    std::vector<float> buf;
    memory mem;

    explicit tensor_t(const memory::desc &amd)
        : md(amd), buf(amd.get_size() / sizeof(float) + 1, 0.f),
          mem(amd, buf.data()) {}
    tensor_t(const tensor_t &o) : tensor_t(o.md) { buf = o.buf; }
    tensor_t &operator=(const tensor_t &) = delete;

    dim_t n() const { return md.nelems(); }
    // Position of logical element i (row-major index) in buf.
    dim_t pos(dim_t i) const {
        dim_t p = md.get_offset0();
        for (int d = md.get_ndims() - 1; d >= 0; --d) {
            p += (i % md.get_dims()[d]) * md.get_strides()[d];
            i /= md.get_dims()[d];
        }
        return p;
    }
    float &at(dim_t i) { return buf[pos(i)]; }
    float at(dim_t i) const { return buf[pos(i)]; }
};

void fill(tensor_t &t, unsigned seed, float lo = -1.f, float hi = 1.f) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    for (dim_t i = 0; i < t.n(); ++i)
        t.at(i) = u(g);
}

// Element-wise equality of the logical elements, bit for bit.
void expect_same(const tensor_t &a, const tensor_t &b, const char *what) {
    ASSERT_EQ(a.n(), b.n());
    dim_t diffs = 0;
    for (dim_t i = 0; i < a.n(); ++i)
        diffs += impl::float_bits(a.at(i)) != impl::float_bits(b.at(i));
    EXPECT_EQ(diffs, 0) << what;
}

// |got - want| <= tol * (1 + |want|) for every element.
void expect_near(const tensor_t &got, const std::vector<double> &want,
        double tol, const char *what) {
    ASSERT_EQ(static_cast<size_t>(got.n()), want.size());
    for (dim_t i = 0; i < got.n(); ++i)
        ASSERT_NEAR(got.at(i), want[i], tol * (1 + std::fabs(want[i])))
                << what << " element " << i;
}

// The keep mask the dropout node draws at @p offset, one byte an element.
std::vector<uint8_t> keep_mask(
        const attn_t &a, int64_t seed, int64_t offset) {
    const memory::desc md(a.sc(), data_type::bit);
    std::vector<uint8_t> bits(md.get_size());
    post_ops po;
    po.append_bernoulli(1.0 - a.rate);
    primitive_attr attr;
    attr.set_post_ops(po);
    run_args_t r;
    r.seed = seed;
    r.offset = offset;
    generate(rng::desc(rng_alg::philox4x32_10, md), attr, bits.data(), r);
    std::vector<uint8_t> keep(md.nelems());
    for (size_t i = 0; i < keep.size(); ++i)
        keep[i] = static_cast<uint8_t>(get_bit(bits.data(), int64_t(i)));
    return keep;
}

// Attention and its gradients in plain loops, accumulating in double.
struct attn_ref_t {
    std::vector<double> out, dq, dk, dv;
};

attn_ref_t attention_ref(const attn_t &a, const tensor_t &q,
        const tensor_t &k, const tensor_t &v, const std::vector<uint8_t> &keep,
        const tensor_t *dout) {
    const dim_t S = a.s, D = a.d;
    const double scale = a.scale();
    const double drop = static_cast<float>(1.0 / (1.0 - a.rate));
    attn_ref_t r;
    r.out.assign(q.n(), 0);
    r.dq.assign(q.n(), 0);
    r.dk.assign(q.n(), 0);
    r.dv.assign(q.n(), 0);
    std::vector<double> p(S * S), pd(S * S), dp(S * S), ds(S * S);
    for (dim_t bh = 0; bh < a.b * a.h; ++bh) {
        const dim_t x0 = bh * S * D, m0 = bh * S * S;
        for (dim_t i = 0; i < S; ++i) {
            double mx = -INFINITY;
            const dim_t len = a.causal ? i + 1 : S;
            for (dim_t j = 0; j < len; ++j) {
                double acc = 0;
                for (dim_t t = 0; t < D; ++t)
                    acc += double(q.at(x0 + i * D + t)) * k.at(x0 + j * D + t);
                p[i * S + j] = acc * scale;
                mx = std::max(mx, p[i * S + j]);
            }
            double sum = 0;
            for (dim_t j = 0; j < S; ++j)
                sum += p[i * S + j] = j < len ? std::exp(p[i * S + j] - mx) : 0;
            for (dim_t j = 0; j < S; ++j) {
                p[i * S + j] /= sum;
                pd[i * S + j] = keep[m0 + i * S + j] ? p[i * S + j] * drop : 0;
            }
            for (dim_t t = 0; t < D; ++t) {
                double acc = 0;
                for (dim_t j = 0; j < S; ++j)
                    acc += pd[i * S + j] * v.at(x0 + j * D + t);
                r.out[x0 + i * D + t] = acc;
            }
        }
        if (!dout) continue;
        for (dim_t i = 0; i < S; ++i)
            for (dim_t j = 0; j < S; ++j) {
                double acc = 0;
                for (dim_t t = 0; t < D; ++t)
                    acc += double(dout->at(x0 + i * D + t))
                            * v.at(x0 + j * D + t);
                dp[i * S + j] = keep[m0 + i * S + j] ? acc * drop : 0;
            }
        for (dim_t j = 0; j < S; ++j)
            for (dim_t t = 0; t < D; ++t) {
                double acc = 0;
                for (dim_t i = 0; i < S; ++i)
                    acc += pd[i * S + j] * dout->at(x0 + i * D + t);
                r.dv[x0 + j * D + t] = acc;
            }
        for (dim_t i = 0; i < S; ++i) {
            double dot = 0;
            for (dim_t j = 0; j < S; ++j)
                dot += dp[i * S + j] * p[i * S + j];
            for (dim_t j = 0; j < S; ++j)
                ds[i * S + j] = p[i * S + j] * (dp[i * S + j] - dot) * scale;
        }
        for (dim_t i = 0; i < S; ++i)
            for (dim_t t = 0; t < D; ++t) {
                double aq = 0, ak = 0;
                for (dim_t j = 0; j < S; ++j) {
                    aq += ds[i * S + j] * k.at(x0 + j * D + t);
                    ak += ds[j * S + i] * q.at(x0 + j * D + t);
                }
                r.dq[x0 + i * D + t] = aq;
                r.dk[x0 + i * D + t] = ak;
            }
    }
    return r;
}

// One training step of the attention graph on its own tensors.
struct attn_run_t {
    attn_t a;
    tensor_t q, k, v, out, dout, dq, dk, dv;

    explicit attn_run_t(const attn_t &aa)
        : a(aa), q(md()), k(md()), v(md()), out(md()), dout(md()), dq(md()),
          dk(md()), dv(md()) {
        fill(q, 1, -2.f, 2.f);
        fill(k, 2, -2.f, 2.f);
        fill(v, 3);
        fill(dout, 4);
    }
    memory::desc md() const { return memory::desc(a.qkv(), a.dt); }

    std::unordered_map<tensor_id, memory> tensors() const {
        return {{q_id, q.mem}, {k_id, k.mem}, {v_id, v.mem},
                {out_id, out.mem}};
    }
    // The gradients of q, k, and of v if @p v_grad.
    std::unordered_map<tensor_id, memory> diff_src(bool v_grad) const {
        std::unordered_map<tensor_id, memory> m
                = {{q_id, dq.mem}, {k_id, dk.mem}};
        if (v_grad) m[v_id] = dv.mem;
        return m;
    }

    void step(compiled_graph &c, generator &gen) {
        c.execute_forward(tensors(), gen);
        c.execute_backward({{out_id, dout.mem}}, diff_src(a.v_grad));
    }
};

compiled_graph compile(const graph &g, mask_mode masks, bool remat = false,
        bool fuse = true) {
    compile_options o;
    o.masks = masks;
    o.threads = 1;
    o.recompute_dropout_output = remat;
    o.fuse_softmax_dropout = fuse;
    return g.compile(o);
}

// Every mask mode, with the dropout output kept or recomputed, with
// softmax and dropout fused or not, causal or not.
TEST(Graph, AttentionMatchesLoopReference) {
    for (bool causal : {false, true})
    for (bool fuse : {true, false})
    for (mask_mode mm : {mask_mode::bit, mask_mode::u8, mask_mode::recompute})
        for (bool remat : {false, true}) {
            attn_t a;
            a.causal = causal;
            const graph g = attention_graph(a);
            SCOPED_TRACE(impl::cat(mask_mode2str(mm), remat ? " remat" : "",
                    fuse ? " fused" : " unfused", causal ? " causal" : ""));
            compiled_graph c = compile(g, mm, remat, fuse);
            const std::string plan = c.str();
            EXPECT_EQ(plan.find("fwd softmax+dropout") != std::string::npos,
                    fuse)
                    << plan;
            attn_run_t r(a);
            generator gen(11, 1000);
            r.step(c, gen);
            EXPECT_EQ(gen.get_offset(), 1000 + a.b * a.h * a.s * a.s);
            const attn_ref_t want = attention_ref(
                    a, r.q, r.k, r.v, keep_mask(a, 11, 1000), &r.dout);
            expect_near(r.out, want.out, 1e-5, "out");
            expect_near(r.dq, want.dq, 1e-5, "dq");
            expect_near(r.dk, want.dk, 1e-5, "dk");
            expect_near(r.dv, want.dv, 1e-5, "dv");
        }
}

// loss = sum(out * w): the graph's gradients with diff_dst = w against
// central differences of the double reference with the same mask.
TEST(Graph, AttentionGradientsPassFiniteDifferences) {
    for (bool causal : {false, true})
    for (bool fuse : {true, false}) {
    SCOPED_TRACE(impl::cat(
            fuse ? "fused" : "unfused", causal ? " causal" : ""));
    attn_t a;
    a.b = 1;
    a.s = 5;
    a.d = 3;
    a.causal = causal;
    const graph g = attention_graph(a);
    compiled_graph c = compile(g, mask_mode::recompute, false, fuse);
    attn_run_t r(a);
    generator gen(5);
    r.step(c, gen);
    const std::vector<uint8_t> keep = keep_mask(a, 5, 0);
    const auto loss = [&](const tensor_t &q, const tensor_t &k,
                              const tensor_t &v) {
        const attn_ref_t o = attention_ref(a, q, k, v, keep, nullptr);
        double s = 0;
        for (dim_t i = 0; i < r.dout.n(); ++i)
            s += o.out[i] * r.dout.at(i);
        return s;
    };
    const double h = 1e-3;
    for (int which = 0; which < 3; ++which) {
        const tensor_t &grad = which == 0 ? r.dq : which == 1 ? r.dk : r.dv;
        for (dim_t i = 0; i < r.q.n(); ++i) {
            tensor_t q = r.q, k = r.k, v = r.v;
            tensor_t &x = which == 0 ? q : which == 1 ? k : v;
            const float x0 = x.at(i);
            x.at(i) = static_cast<float>(x0 + h);
            const double up = loss(q, k, v);
            const double xu = x.at(i);
            x.at(i) = static_cast<float>(x0 - h);
            const double down = loss(q, k, v);
            const double fd = (up - down) / (xu - x.at(i));
            EXPECT_NEAR(grad.at(i), fd, 1e-4 + 1e-3 * std::fabs(fd))
                    << "tensor " << which << " element " << i;
        }
    }
    }
}

TEST(Graph, InferencePlanSkipsDropoutAndBackward) {
    const attn_t a;
    compile_options o;
    o.training = false;
    compiled_graph c = attention_graph(a).compile(o);
    attn_run_t r(a);
    generator gen(4, 8);
    c.execute_forward(r.tensors(), gen);
    EXPECT_EQ(gen.get_offset(), 8);
    attn_t keep_all = a;
    keep_all.rate = 0;
    const attn_ref_t want = attention_ref(keep_all, r.q, r.k, r.v,
            std::vector<uint8_t>(a.b * a.h * a.s * a.s, 1), nullptr);
    expect_near(r.out, want.out, 1e-5, "out");
    const memory_report m = c.get_memory_report();
    EXPECT_EQ(m.mask_bytes + m.activation_bytes + m.caller_bytes, 0u)
            << m.str();
    EXPECT_ERROR_NAMES(
            c.execute_backward({{out_id, r.dout.mem}}, r.diff_src(true)),
            "the plan is for inference");
}

TEST(Graph, StoredAndRecomputedMasksGiveIdenticalGradients) {
    attn_t a;
    a.s = 37; // masks of odd sizes: bits do not end on a byte
    const graph g = attention_graph(a);
    std::vector<attn_run_t> runs;
    for (mask_mode mm : {mask_mode::bit, mask_mode::u8, mask_mode::recompute})
        for (bool remat : {false, true}) {
            compiled_graph c = compile(g, mm, remat);
            runs.emplace_back(a);
            generator gen(3, 77);
            runs.back().step(c, gen);
        }
    for (const attn_run_t &r : runs) {
        expect_same(r.out, runs[0].out, "out");
        expect_same(r.dq, runs[0].dq, "dq");
        expect_same(r.dk, runs[0].dk, "dk");
        expect_same(r.dv, runs[0].dv, "dv");
    }
}

TEST(Graph, ReplayFromSavedStateIsBitExact) {
    const attn_t a;
    const graph g = attention_graph(a);
    for (mask_mode mm : {mask_mode::bit, mask_mode::recompute}) {
        compiled_graph c = compile(g, mm);
        generator gen(2024, 5);
        const generator::state saved = gen.save();
        attn_run_t first(a), second(a), replay(a);
        first.step(c, gen);
        second.step(c, gen);
        EXPECT_EQ(gen.get_offset(), 5 + 2 * a.b * a.h * a.s * a.s);
        // The second step drew another mask: its output differs.
        dim_t differ = 0;
        for (dim_t i = 0; i < first.out.n(); ++i)
            differ += first.out.at(i) != second.out.at(i);
        EXPECT_GT(differ, 0);
        generator restored = generator::load(saved);
        replay.step(c, restored);
        expect_same(replay.out, first.out, "out");
        expect_same(replay.dq, first.dq, "dq");
        expect_same(replay.dk, first.dk, "dk");
        expect_same(replay.dv, first.dv, "dv");
    }
}

// Data and tensor parallelism: blocks of the batch or of the heads, each
// run as its own graph whose dropout is a window of the global scores,
// draw exactly the whole graph's masks from generators in the same state,
// which each advance by the whole mask; outputs and gradients agree to
// float rounding (oneDNN may block a smaller matmul differently).
TEST(Graph, WindowsOfTheBatchOrHeadsDrawTheWholeMasks) {
    attn_t full;
    full.b = 4;
    full.h = 3;
    full.s = 9;
    full.dropped_out = true;
    compiled_graph cf = compile(attention_graph(full), mask_mode::bit);
    attn_run_t whole(full);
    tensor_t dropped(memory::desc(full.sc(), full.dt));
    tensor_t ddropped(memory::desc(full.sc(), full.dt)); // zeros
    generator gen_full(5, 11);
    auto tensors = whole.tensors();
    tensors[dropped_id] = dropped.mem;
    cf.execute_forward(tensors, gen_full);
    cf.execute_backward({{out_id, whole.dout.mem}, {dropped_id, ddropped.mem}},
            whole.diff_src(true));

    // Copies the block at origin o of a whole tensor t into r.
    const auto copy_block = [](const tensor_t &t, const dims &o, tensor_t &r) {
        const dims &g = t.md.get_dims(), &d = r.md.get_dims();
        for (dim_t i = 0; i < r.n(); ++i) {
            dim_t rem = i, gi = 0, stride = 1;
            for (int j = static_cast<int>(d.size()) - 1; j >= 0; --j) {
                gi += (o[j] + rem % d[j]) * stride;
                rem /= d[j];
                stride *= g[j];
            }
            r.at(i) = t.at(gi);
        }
    };
    const auto block = [&](const tensor_t &t, const attn_t &p, const dims &o,
                               const dims &d) {
        tensor_t r(memory::desc(d, p.dt));
        copy_block(t, o, r);
        return r;
    };
    for (int by_heads = 0; by_heads < 2; ++by_heads)
        for (dim_t first : {dim_t(0), dim_t(1)}) {
            attn_t p = full;
            const dim_t len = (by_heads ? full.h : full.b) - first;
            (by_heads ? p.h : p.b) = first == 0 ? 1 : len;
            p.window_global = full.sc();
            p.window_origin = by_heads ? dims {0, first, 0, 0}
                                       : dims {first, 0, 0, 0};
            SCOPED_TRACE(testing::Message() << (by_heads ? "heads" : "batch")
                                            << " from " << first);
            const dims o = p.window_origin;
            attn_run_t part(p);
            copy_block(whole.q, o, part.q);
            copy_block(whole.k, o, part.k);
            copy_block(whole.v, o, part.v);
            copy_block(whole.dout, o, part.dout);
            tensor_t pdropped(memory::desc(p.sc(), p.dt));
            tensor_t pddropped(memory::desc(p.sc(), p.dt));
            compiled_graph c = compile(attention_graph(p), mask_mode::bit);
            generator gen(5, 11);
            auto t = part.tensors();
            t[dropped_id] = pdropped.mem;
            c.execute_forward(t, gen);
            c.execute_backward({{out_id, part.dout.mem},
                                       {dropped_id, pddropped.mem}},
                    part.diff_src(true));
            EXPECT_EQ(gen.get_offset(), gen_full.get_offset());
            // Softmax is never 0: an element is dropped iff it is 0.
            const tensor_t want = block(dropped, p, o, p.sc());
            for (dim_t i = 0; i < want.n(); ++i)
                ASSERT_EQ(pdropped.at(i) == 0.f, want.at(i) == 0.f)
                        << "mask element " << i;
            const auto near = [&](const tensor_t &got, const tensor_t &w,
                                      const char *what) {
                for (dim_t i = 0; i < w.n(); ++i)
                    ASSERT_NEAR(got.at(i), w.at(i), 1e-5f) << what << " " << i;
            };
            near(part.out, block(whole.out, p, o, p.qkv()), "out");
            near(part.dq, block(whole.dq, p, o, p.qkv()), "dq");
            near(part.dk, block(whole.dk, p, o, p.qkv()), "dk");
            near(part.dv, block(whole.dv, p, o, p.qkv()), "dv");
        }
}

TEST(Graph, GeneratorStateIsSixteenLittleEndianBytes) {
    generator g(0x0102030405060708, 0x1122);
    const generator::state s = g.save();
    const uint8_t want[16] = {8, 7, 6, 5, 4, 3, 2, 1, 0x22, 0x11, 0, 0, 0, 0,
            0, 0};
    EXPECT_EQ(std::memcmp(s.data(), want, 16), 0);
    EXPECT_EQ(generator::load(want, sizeof(want)), g);
    EXPECT_EQ(g.reserve(10), 0x1122);
    EXPECT_EQ(g.reserve(0), 0x1122 + 10);
    EXPECT_EQ(g.get_offset(), 0x1122 + 10);
    generator neg(-1);
    EXPECT_EQ(generator::load(neg.save()).get_seed(), -1);

    EXPECT_ERROR_NAMES(generator(0, -1), "negative");
    EXPECT_ERROR_NAMES(g.reserve(-1), "negative");
    generator full(0, INT64_MAX - 4);
    EXPECT_ERROR_NAMES(full.reserve(5), "2^63 - 1");
    EXPECT_EQ(full.get_offset(), INT64_MAX - 4);
    EXPECT_ERROR_NAMES(generator::load(want, 15), "16 bytes");
    uint8_t bad[16] = {};
    bad[15] = 0x80;
    EXPECT_ERROR_NAMES(generator::load(bad, 16), "negative");
    EXPECT_ERROR_NAMES(generator::load(nullptr, 16), "null");
}

// x feeds relu, a broadcast mul and both operands of a matmul: its
// gradient is the sum of all four.
TEST(Graph, BranchingGraphSumsGradients) {
    const dims xd = {2, 3, 4};
    const memory::desc xmd(xd, data_type::f32), wmd({1, 3, 1}, data_type::f32),
            gram({2, 3, 3}, data_type::f32);
    enum : tensor_id { x, w, r, m, z, xx };
    graph g;
    g.add_input(x, xmd);
    g.add_input(w, wmd);
    g.add_tensor(r, xmd);
    g.add_tensor(m, xmd);
    g.add_output(z, xmd);
    g.add_output(xx, gram);
    g.add_eltwise("relu", eltwise_alg::relu, x, r);
    g.add_binary("mul", binary_alg::mul, x, w, m);
    g.add_binary("sum", binary_alg::add, r, m, z);
    matmul_params tb;
    tb.transpose_b = true;
    g.add_matmul("gram", x, x, xx, tb);
    g.finalize();
    compiled_graph c = compile(g, mask_mode::bit);

    tensor_t tx(xmd), tw(wmd), tz(xmd), txx(gram), dz(xmd), dxx(gram),
            dx(xmd), dw(wmd);
    fill(tx, 1);
    fill(tw, 2);
    fill(dz, 3);
    fill(dxx, 4);
    generator gen;
    c.execute_forward({{x, tx.mem}, {w, tw.mem}, {z, tz.mem}, {xx, txx.mem}},
            gen);
    c.execute_backward(
            {{z, dz.mem}, {xx, dxx.mem}}, {{x, dx.mem}, {w, dw.mem}});

    std::vector<double> want_dx(tx.n()), want_dw(tw.n(), 0.0);
    for (dim_t b = 0; b < 2; ++b)
        for (dim_t i = 0; i < 3; ++i)
            for (dim_t k = 0; k < 4; ++k) {
                const dim_t e = (b * 3 + i) * 4 + k;
                const double xv = tx.at(e), dzv = dz.at(e);
                double v = (xv > 0 ? dzv : 0) + tw.at(i) * dzv;
                // xx = x x^T: d x[i] = sum_j (dxx[i][j] + dxx[j][i]) x[j]
                for (dim_t j = 0; j < 3; ++j)
                    v += (double(dxx.at((b * 3 + i) * 3 + j))
                                 + dxx.at((b * 3 + j) * 3 + i))
                            * tx.at((b * 3 + j) * 4 + k);
                want_dx[e] = v;
                want_dw[i] += xv * dzv;
            }
    expect_near(dx, want_dx, 1e-5, "dx");
    expect_near(dw, want_dw, 1e-5, "dw");
    const std::string plan = c.str();
    EXPECT_NE(plan.find("add gradient"), std::string::npos) << plan;
    EXPECT_NE(plan.find("reduce gradient"), std::string::npos) << plan;
}

// relu's backward overwrites its dst's gradient with t's in place; the
// later contribution to t (from o2) still adds to it.
TEST(Graph, InPlaceGradientsStillSum) {
    const memory::desc md({4, 33}, data_type::f32);
    enum : tensor_id { x, t, u, o1, o2 };
    graph g;
    g.add_input(x, md);
    g.add_tensor(t, md);
    g.add_tensor(u, md);
    g.add_output(o1, md);
    g.add_output(o2, md);
    g.add_eltwise("double", eltwise_alg::linear, x, t, 2.f);
    g.add_eltwise("o2", eltwise_alg::linear, t, o2, -3.f, 1.f);
    g.add_eltwise("relu", eltwise_alg::relu, t, u);
    g.add_eltwise("o1", eltwise_alg::linear, u, o1, 0.5f);
    g.finalize();
    compiled_graph c = compile(g, mask_mode::bit);
    tensor_t tx(md), t1(md), t2(md), d1(md), d2(md), dx(md);
    fill(tx, 1);
    fill(d1, 2);
    fill(d2, 3);
    generator gen;
    c.execute_forward({{x, tx.mem}, {o1, t1.mem}, {o2, t2.mem}}, gen);
    c.execute_backward({{o1, d1.mem}, {o2, d2.mem}}, {{x, dx.mem}});
    std::vector<double> want(tx.n());
    for (dim_t i = 0; i < tx.n(); ++i)
        want[i] = 2 * ((tx.at(i) > 0 ? 0.5 * d1.at(i) : 0) - 3.0 * d2.at(i));
    expect_near(dx, want, 1e-6, "dx");
}

TEST(Graph, EltwiseAndBinaryBackward) {
    const memory::desc md({3, 50}, data_type::f32),
            row({1, 50}, data_type::f32);
    // gelu_tanh's constant sqrt(2 / pi) and erf's sqrt(2 pi).
    static const double k = std::sqrt(2.0 / std::acos(-1.0)),
                        root2pi = std::sqrt(2.0 * std::acos(-1.0));
    struct case_t {
        eltwise_alg alg;
        float alpha, beta;
        double (*f)(double x, double alpha, double beta);
        double (*df)(double x, double alpha, double beta);
    };
    const case_t cases[] = {
            {eltwise_alg::relu, 0.1f, 0.f,
                    [](double x, double al, double) {
                        return x > 0 ? x : al * x;
                    },
                    [](double x, double al, double) {
                        return x > 0 ? 1 : al;
                    }},
            {eltwise_alg::linear, 1.5f, -0.5f,
                    [](double x, double al, double be) { return al * x + be; },
                    [](double, double al, double) { return al; }},
            {eltwise_alg::gelu_erf, 0.f, 0.f,
                    [](double x, double, double) {
                        return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
                    },
                    [](double x, double, double) {
                        return 0.5 * (1 + std::erf(x / std::sqrt(2.0)))
                                + x * std::exp(-x * x / 2) / root2pi;
                    }},
            {eltwise_alg::gelu_tanh, 0.f, 0.f,
                    [](double x, double, double) {
                        const double u = k * (x + 0.044715 * x * x * x);
                        return 0.5 * x * (1 + std::tanh(u));
                    },
                    [](double x, double, double) {
                        const double t
                                = std::tanh(k * (x + 0.044715 * x * x * x));
                        return 0.5 * (1 + t)
                                + 0.5 * x * (1 - t * t) * k
                                * (1 + 3 * 0.044715 * x * x);
                    }},
    };
    enum : tensor_id { x, b, y, out };
    for (const case_t &e : cases) {
        SCOPED_TRACE(eltwise_alg2str(e.alg));
        // out = f(x) + b, b broadcast over rows.
        graph g;
        g.add_input(x, md);
        g.add_input(b, row);
        g.add_tensor(y, md);
        g.add_output(out, md);
        g.add_eltwise("f", e.alg, x, y, e.alpha, e.beta);
        g.add_binary("bias", binary_alg::add, y, b, out);
        g.finalize();
        compiled_graph c = compile(g, mask_mode::bit);
        tensor_t tx(md), tb(row), to(md), dout(md), dx(md), db(row);
        fill(tx, 1, -3.f, 3.f);
        fill(tb, 2);
        fill(dout, 3);
        generator gen;
        c.execute_forward({{x, tx.mem}, {b, tb.mem}, {out, to.mem}}, gen);
        c.execute_backward({{out, dout.mem}}, {{x, dx.mem}, {b, db.mem}});
        std::vector<double> wo(tx.n()), wdx(tx.n()), wdb(50, 0.0);
        for (dim_t i = 0; i < tx.n(); ++i) {
            wo[i] = e.f(tx.at(i), e.alpha, e.beta) + tb.at(i % 50);
            wdx[i] = e.df(tx.at(i), e.alpha, e.beta) * dout.at(i);
            wdb[i % 50] += dout.at(i);
        }
        expect_near(to, wo, 1e-5, "out");
        expect_near(dx, wdx, 1e-5, "dx");
        expect_near(db, wdb, 1e-5, "db");
    }
}

// A transposed input and output: softmax gets dense copies, and results
// equal the dense graph's bit for bit.
TEST(Graph, LayoutsGetReordersWherePrimitivesNeedThem) {
    const dims d = {6, 40};
    const memory::desc dense(d, data_type::f32),
            cols(d, data_type::f32, {1, 6});
    enum : tensor_id { x, y, out };
    std::vector<tensor_t> outs, grads;
    std::vector<std::string> plans;
    for (const memory::desc &io : {dense, cols}) {
        graph g;
        g.add_input(x, io);
        g.add_tensor(y, dense);
        g.add_output(out, io);
        g.add_softmax("softmax", x, y, 1);
        g.add_reorder("to output", y, out);
        g.finalize();
        compiled_graph c = compile(g, mask_mode::bit);
        plans.push_back(c.str());
        tensor_t tx(io), to(io), dout(io), dx(io);
        fill(tx, 1, -4.f, 4.f);
        fill(dout, 2);
        generator gen;
        c.execute_forward({{x, tx.mem}, {out, to.mem}}, gen);
        c.execute_backward({{out, dout.mem}}, {{x, dx.mem}});
        outs.push_back(to);
        grads.push_back(dx);
    }
    EXPECT_EQ(plans[0].find("reorder src"), std::string::npos) << plans[0];
    EXPECT_NE(plans[1].find("reorder src for forward"), std::string::npos)
            << plans[1];
    expect_same(outs[1], outs[0], "out");
    expect_same(grads[1], grads[0], "dx");
}

TEST(Graph, MemoryReportPerMaskMode) {
    attn_t a;
    a.s = 9;
    const graph g = attention_graph(a);
    const size_t n = a.b * a.h * a.s * a.s, act = n * sizeof(float),
                 qkv = a.b * a.h * a.s * a.d * sizeof(float),
                 stats = a.b * a.h * a.s * 2 * sizeof(float);
    const struct {
        mask_mode mm;
        bool remat;
        size_t masks, activations;
    } cases[] = {
            {mask_mode::bit, false, (n + 7) / 8, 2 * act},
            {mask_mode::u8, false, n, 2 * act},
            {mask_mode::recompute, false, 0, 2 * act},
            {mask_mode::bit, true, (n + 7) / 8, act},
            {mask_mode::recompute, true, 0, act},
    };
    for (bool fuse : {true, false})
        for (const auto &e : cases) {
            SCOPED_TRACE(impl::cat(mask_mode2str(e.mm), e.remat ? " remat" : "",
                    fuse ? " fused" : " unfused"));
            const memory_report r
                    = compile(g, e.mm, e.remat, fuse).get_memory_report();
            EXPECT_EQ(r.mask_bytes, e.masks) << r.str();
            // Fused, the scores are held instead of the probabilities, with
            // 8 bytes a row.
            EXPECT_EQ(r.activation_bytes, e.activations + (fuse ? stats : 0))
                    << r.str();
            EXPECT_EQ(r.caller_bytes, 3 * qkv) << r.str();
            EXPECT_GE(r.workspace_bytes, r.mask_bytes + r.activation_bytes);
            // Unfused, softmax writes over the scores, which nothing else
            // reads.
            EXPECT_EQ(r.str().find("softmax         dst (in place)")
                            != std::string::npos,
                    !fuse)
                    << r.str();
            EXPECT_EQ(r.str().find("dropout         softmax stats")
                            != std::string::npos,
                    fuse)
                    << r.str();
        }
}

// The fused kernel draws the two nodes' masks bit for bit (a dropped
// element is +0 in both, a kept one is not: probabilities are > 0), at
// every thread count; values and gradients agree to float rounding.
TEST(Graph, FusedAndUnfusedDrawTheSameMasks) {
    for (bool causal : {false, true})
        for (dim_t s : {dim_t(37), dim_t(64)}) {
            attn_t a;
            a.s = s; // 37: rows do not end on a byte of the mask
            a.dropped_out = true;
            a.causal = causal;
            SCOPED_TRACE(impl::cat("seq ", s, causal ? " causal" : ""));
            const graph g = attention_graph(a);
            const memory::desc sc(a.sc(), a.dt);
            std::vector<attn_run_t> runs;
            std::vector<tensor_t> dropped;
            for (bool fuse : {false, true})
                for (mask_mode mm : {mask_mode::bit, mask_mode::recompute})
                    for (int threads : {1, 2}) {
                        compile_options o;
                        o.masks = mm;
                        o.threads = threads;
                        o.fuse_softmax_dropout = fuse;
                        compiled_graph c = g.compile(o);
                        runs.emplace_back(a);
                        dropped.emplace_back(sc);
                        generator gen(17, 123);
                        auto t = runs.back().tensors();
                        t[dropped_id] = dropped.back().mem;
                        c.execute_forward(t, gen);
                        c.execute_backward({{out_id, runs.back().dout.mem},
                                                   {dropped_id,
                                                           tensor_t(sc).mem}},
                                runs.back().diff_src(true));
                    }
            const std::vector<uint8_t> keep = keep_mask(a, 17, 123);
            for (size_t k = 0; k < runs.size(); ++k) {
                for (dim_t i = 0; i < dropped[k].n(); ++i) {
                    const bool future = causal && i % s > i / s % s;
                    ASSERT_EQ(dropped[k].at(i) != 0.f, keep[i] && !future)
                            << "run " << k << " element " << i;
                    ASSERT_NEAR(dropped[k].at(i), dropped[0].at(i),
                            1e-6 * (1 + std::fabs(dropped[0].at(i))))
                            << "run " << k << " element " << i;
                }
                for (int t = 0; t < 4; ++t) {
                    const tensor_t &x = t == 0 ? runs[k].out
                            : t == 1           ? runs[k].dq
                            : t == 2           ? runs[k].dk
                                               : runs[k].dv;
                    const tensor_t &y = t == 0 ? runs[0].out
                            : t == 1           ? runs[0].dq
                            : t == 2           ? runs[0].dk
                                               : runs[0].dv;
                    for (dim_t i = 0; i < x.n(); ++i)
                        ASSERT_NEAR(x.at(i), y.at(i),
                                1e-5 * (1 + std::fabs(y.at(i))))
                                << "run " << k << " tensor " << t
                                << " element " << i;
                }
            }
        }
}

// A softmax that no dropout follows, causal or not, over rows of several
// lengths and a strided layout: forward and backward against loops in
// double (its backward is rndnn's where oneDNN's is its reference or the
// softmax is causal).
TEST(Graph, SoftmaxAloneMatchesLoopReference) {
    for (bool causal : {false, true})
        for (bool strided : {false, true})
            for (dim_t n : {dim_t(1), dim_t(7), dim_t(33)}) {
                SCOPED_TRACE(impl::cat("n ", n, causal ? " causal" : "",
                        strided ? " strided" : ""));
                const dims d = {2, 5, n};
                // Strided: rows padded to n + 3 elements.
                const memory::desc md = strided
                        ? memory::desc(d, data_type::f32,
                                {5 * (n + 3), n + 3, 1})
                        : memory::desc(d, data_type::f32);
                graph g;
                g.add_input(0, md);
                g.add_output(1, md);
                softmax_params sp;
                sp.causal = causal;
                g.add_softmax("softmax", 0, 1, -1, sp);
                g.finalize();
                compile_options o;
                o.threads = 2;
                compiled_graph c = g.compile(o);
                tensor_t x(md), y(md), dy(md), dx(md);
                fill(x, 1, -5.f, 5.f);
                fill(dy, 2);
                generator gen(1);
                c.execute_forward({{0, x.mem}, {1, y.mem}}, gen);
                c.execute_backward({{1, dy.mem}}, {{0, dx.mem}});
                std::vector<double> wy(x.n()), wdx(x.n());
                for (dim_t r = 0; r < 10; ++r) {
                    const dim_t len = causal ? std::min(r % 5 + 1, n) : n;
                    double mx = -INFINITY, sum = 0, dot = 0;
                    for (dim_t j = 0; j < len; ++j)
                        mx = std::max(mx, double(x.at(r * n + j)));
                    for (dim_t j = 0; j < len; ++j)
                        sum += wy[r * n + j] = std::exp(x.at(r * n + j) - mx);
                    for (dim_t j = 0; j < len; ++j) {
                        wy[r * n + j] /= sum;
                        dot += wy[r * n + j] * dy.at(r * n + j);
                    }
                    for (dim_t j = 0; j < len; ++j)
                        wdx[r * n + j]
                                = wy[r * n + j] * (dy.at(r * n + j) - dot);
                }
                expect_near(y, wy, 1e-6, "y");
                expect_near(dx, wdx, 1e-5, "dx");
            }
}

TEST(Graph, InputsWithoutGradientsAreSkipped) {
    attn_t a;
    a.v_grad = false;
    const graph g = attention_graph(a);
    compiled_graph c = compile(g, mask_mode::bit);
    const std::string plan = c.str();
    EXPECT_EQ(plan.find("context         backward b"), std::string::npos)
            << plan;
    attn_run_t r(a);
    generator gen(1);
    r.step(c, gen);
    gen = generator(1);
    attn_t all = a;
    all.v_grad = true;
    compiled_graph c2 = compile(attention_graph(all), mask_mode::bit);
    attn_run_t r2(all);
    r2.step(c2, gen);
    expect_same(r.dq, r2.dq, "dq");
    EXPECT_ERROR_NAMES(
            c.execute_backward({{out_id, r.dout.mem}}, r.diff_src(false)),
            "needs a forward");
    c.execute_forward(r.tensors(), gen);
    EXPECT_ERROR_NAMES(
            c.execute_backward({{out_id, r.dout.mem}}, r.diff_src(true)),
            "tensor 2 is not an input of the graph that requires a gradient");
}

TEST(Graph, Bf16AttentionIsCloseToF32) {
    attn_t a;
    a.dt = data_type::bf16;
    compiled_graph c;
    try {
        c = compile(attention_graph(a), mask_mode::bit);
    } catch (const error &e) {
        if (e.status() != status::unimplemented) throw;
        GTEST_SKIP() << "bf16 attention is not available here: " << e.what();
    }
    attn_t f = a;
    f.dt = data_type::f32;
    attn_run_t rf(f);
    generator gen(9);
    compiled_graph cf = compile(attention_graph(f), mask_mode::bit);
    rf.step(cf, gen);
    // The bf16 run takes the f32 run's values rounded to bf16.
    std::vector<std::vector<uint16_t>> bufs;
    const memory::desc md(a.qkv(), data_type::bf16);
    std::vector<memory> mems;
    for (const tensor_t *t : {&rf.q, &rf.k, &rf.v, &rf.dout}) {
        bufs.emplace_back(t->n());
        for (dim_t i = 0; i < t->n(); ++i)
            bufs.back()[i] = impl::f32_to_bf16(t->at(i));
    }
    for (int i = 0; i < 4; ++i)
        mems.emplace_back(md, bufs[i].data());
    std::vector<std::vector<uint16_t>> outs(
            4, std::vector<uint16_t>(md.nelems()));
    std::vector<memory> out_mems;
    for (auto &o : outs)
        out_mems.emplace_back(md, o.data());
    gen = generator(9);
    c.execute_forward({{q_id, mems[0]}, {k_id, mems[1]}, {v_id, mems[2]},
                              {out_id, out_mems[0]}},
            gen);
    c.execute_backward({{out_id, mems[3]}},
            {{q_id, out_mems[1]}, {k_id, out_mems[2]}, {v_id, out_mems[3]}});
    const tensor_t *want[4] = {&rf.out, &rf.dq, &rf.dk, &rf.dv};
    for (int t = 0; t < 4; ++t)
        for (dim_t i = 0; i < md.nelems(); ++i)
            ASSERT_NEAR(impl::bf16_to_f32(outs[t][i]), want[t]->at(i),
                    0.05 * (1 + std::fabs(want[t]->at(i))))
                    << "tensor " << t << " element " << i;
}

TEST(Graph, BadGraphsFailAtFinalize) {
    const memory::desc m23({2, 3}, data_type::f32), m34({3, 4}, data_type::f32),
            m24({2, 4}, data_type::f32), m22({2, 2}, data_type::f32);
    {
        graph g; // shape mismatch: 2x3 x 2x3
        g.add_input(0, m23);
        g.add_input(1, m23);
        g.add_output(2, m24);
        g.add_matmul("mm", 0, 1, 2);
        EXPECT_ERROR_NAMES(g.finalize(),
                "node 'mm' (matmul): a f32:2x3 x b f32:2x3: a has K=3 but b "
                "has K=2");
    }
    {
        graph g; // dst of the wrong shape
        g.add_input(0, m23);
        g.add_input(1, m34);
        g.add_output(2, m22);
        g.add_matmul("mm", 0, 1, 2);
        EXPECT_ERROR_NAMES(g.finalize(), "not dst f32:2x2");
    }
    {
        graph g; // a cycle: a -> t1 -> b -> t2 -> a
        g.add_input(0, m23);
        g.add_tensor(1, m23);
        g.add_tensor(2, m23);
        g.add_output(3, m23);
        g.add_binary("a", binary_alg::add, 0, 2, 1);
        g.add_eltwise("b", eltwise_alg::relu, 1, 2);
        g.add_eltwise("c", eltwise_alg::relu, 2, 3);
        EXPECT_ERROR_NAMES(g.finalize(), "cycle through nodes 'a', 'b'");
    }
    {
        graph g; // a tensor nobody writes
        g.add_input(0, m23);
        g.add_tensor(1, m23);
        g.add_output(2, m23);
        g.add_binary("add", binary_alg::add, 0, 1, 2);
        EXPECT_ERROR_NAMES(g.finalize(),
                "node 'add' (binary) reads tensor 1 (f32:2x3), which no node "
                "writes and which is not an input (missing input)");
    }
    {
        graph g; // an undeclared tensor
        g.add_input(0, m23);
        g.add_output(2, m23);
        g.add_binary("add", binary_alg::add, 0, 7, 2);
        EXPECT_ERROR_NAMES(g.finalize(),
                "node 'add' (binary) reads src1 from tensor 7, which is not "
                "declared");
    }
    {
        graph g; // two writers, an input written
        g.add_input(0, m23);
        g.add_output(1, m23);
        g.add_eltwise("r1", eltwise_alg::relu, 0, 1);
        g.add_eltwise("r2", eltwise_alg::relu, 0, 1);
        EXPECT_ERROR_NAMES(g.finalize(),
                "tensor 1 (f32:2x3) is written by node 'r1' (eltwise) and by "
                "node 'r2' (eltwise)");
        graph h;
        h.add_input(0, m23);
        h.add_output(1, m23);
        h.add_eltwise("r", eltwise_alg::relu, 1, 0);
        EXPECT_ERROR_NAMES(h.finalize(), "writes input tensor 0");
    }
    {
        graph g; // unused input, unwritten output
        g.add_input(0, m23);
        g.add_input(5, m23);
        g.add_output(1, m23);
        g.add_eltwise("r", eltwise_alg::relu, 0, 1);
        EXPECT_ERROR_NAMES(
                g.finalize(), "input tensor 5 (f32:2x3) is read by no node");
        graph h;
        h.add_input(0, m23);
        h.add_output(1, m23);
        h.add_output(2, m23);
        h.add_eltwise("r", eltwise_alg::relu, 0, 1);
        EXPECT_ERROR_NAMES(h.finalize(),
                "output tensor 2 (f32:2x3) is written by no node");
    }
    {
        graph g; // types, axis, dropout attributes, broadcast
        g.add_input(0, m23);
        g.add_output(1, memory::desc({2, 3}, data_type::bf16));
        g.add_eltwise("r", eltwise_alg::relu, 0, 1);
        EXPECT_ERROR_NAMES(g.finalize(), "differ in type");
        graph h;
        h.add_input(0, m23);
        h.add_output(1, m23);
        h.add_softmax("s", 0, 1, 2);
        EXPECT_ERROR_NAMES(h.finalize(),
                "node 's' (softmax): axis 2 is outside [-2, 2)");
        softmax_params causal;
        causal.causal = true;
        graph h2;
        h2.add_input(0, m23);
        h2.add_output(1, m23);
        h2.add_softmax("s", 0, 1, 0, causal);
        EXPECT_ERROR_NAMES(h2.finalize(),
                "node 's' (softmax): causal needs the last of 2 dims or more "
                "as the axis, got axis 0 of f32:2x3");
        dropout_params dp;
        dp.rate = 1.5;
        graph i;
        i.add_input(0, m23);
        i.add_output(1, m23);
        i.add_dropout("d", 0, 1, dp);
        EXPECT_ERROR_NAMES(i.finalize(), "node 'd' (dropout): rate=1.5");
        dp.rate = 0.5;
        dp.noise_shape = {2, 2};
        graph j;
        j.add_input(0, m23);
        j.add_output(1, m23);
        j.add_dropout("d", 0, 1, dp);
        EXPECT_ERROR_NAMES(j.finalize(), "noise shape 2x2 does not fit");
        graph k;
        k.add_input(0, m23);
        k.add_input(1, m22);
        k.add_output(2, m23);
        k.add_binary("b", binary_alg::mul, 0, 1, 2);
        EXPECT_ERROR_NAMES(k.finalize(), "src1 shape 2x2 does not broadcast");
    }
    {
        graph g; // declarations and order of calls
        g.add_input(0, m23);
        EXPECT_ERROR_NAMES(g.add_tensor(0, m23),
                "tensor 0 (f32:2x3) is already declared");
        EXPECT_ERROR_NAMES(g.add_tensor(1, memory::desc({2}, data_type::s32)),
                "tensor 1 has type s32");
        g.add_output(1, m23);
        g.add_eltwise("r", eltwise_alg::relu, 0, 1);
        EXPECT_ERROR_NAMES(g.add_eltwise("r", eltwise_alg::relu, 0, 1),
                "node name 'r' is taken");
        EXPECT_ERROR_NAMES(g.compile(), "call finalize() before compile()");
        g.finalize();
        EXPECT_ERROR_NAMES(g.add_tensor(3, m23), "finalized");
        compile_options bad;
        bad.masks = static_cast<mask_mode>(3);
        EXPECT_ERROR_NAMES(g.compile(bad), "mask mode value 3 is not a mask_mode");
    }
    {
        graph g; // enums outside their range
        g.add_input(0, m23);
        g.add_output(1, m23);
        g.add_eltwise("e", static_cast<eltwise_alg>(9), 0, 1);
        EXPECT_ERROR_NAMES(g.finalize(), "eltwise algorithm value 9");
    }
}

TEST(Graph, ExecuteChecksItsArguments) {
    const attn_t a;
    compiled_graph c = compile(attention_graph(a), mask_mode::bit);
    attn_run_t r(a);
    generator gen(1, 10);
    EXPECT_ERROR_NAMES(c.execute_forward({{q_id, r.q.mem}, {k_id, r.k.mem},
                                                 {v_id, r.v.mem}},
                               gen),
            "forward: tensor 6 (f32:2x2x6x4) is missing");
    EXPECT_ERROR_NAMES(c.execute_forward({{q_id, r.q.mem}, {k_id, r.k.mem},
                                                 {v_id, r.dout.mem},
                                                 {out_id, r.out.mem},
                                                 {probs_id, r.out.mem}},
                               gen),
            "forward: tensor 4 is not an input or output of the graph");
    const memory wrong(memory::desc({2, 2}, data_type::f32));
    EXPECT_ERROR_NAMES(c.execute_forward({{q_id, wrong}, {k_id, r.k.mem},
                                                 {v_id, r.v.mem},
                                                 {out_id, r.out.mem}},
                               gen),
            "forward: memory f32:2x2 does not match tensor 0 (f32:2x2x6x4)");
    EXPECT_EQ(gen.get_offset(), 10);
    EXPECT_ERROR_NAMES(c.execute_backward({{out_id, r.dout.mem}}, {}),
            "needs a forward");
    EXPECT_ERROR_NAMES(
            compiled_graph().get_step_times(), "empty compiled graph");
}

} // namespace
} // namespace test
} // namespace rndnn
