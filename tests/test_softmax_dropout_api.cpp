// The public softmax-dropout (include/rndnn/softmax_dropout.hpp) against
// the unfused computation: a softmax in double, then rndnn::dropout of
// the same seed, offset and stream.
//
// - SoftmaxDropoutApi.ForwardIsSoftmaxThenDropout: f32 and bf16, causal
//   or not: the mask (u8 and bit) is dropout's bit for bit, y within
//   1e-5 of the row's largest value (bf16: plus one rounding), the stats
//   the row's max and 1 / sum; a stream other than 0 draws another mask.
// - SoftmaxDropoutApi.BackwardIsTheUnfusedGradient: dx = P (dp - sum P dp)
//   with dp dropout's backward of dy, the mask recomputed or read (bit,
//   u8), in place or not, the same bits each way.
// - SoftmaxDropoutApi.WindowIsTheBlockOfTheWhole: blocks of heads, of
//   batches and of query rows (causal: rows count from the global row)
//   give exactly the whole tensor's block, forward and backward;
//   next_offset is offset + the global count.
// - SoftmaxDropoutApi.InferenceIsTheSoftmax: forward_inference reads no
//   seed and equals training at rate 0.
// - SoftmaxDropoutApi.ErrorsNameTheBadValue: each refusal of the header.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "src/utils.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;

namespace {

using impl::bf16_to_f32;
using impl::cat;
using impl::f32_to_bf16;

constexpr int64_t seed = 1234, offset = 77, strm_id = 3;

// A tensor of f32 or bf16 values, read and written as floats.
struct tensor_t {
    memory::desc md;
    std::vector<uint8_t> bytes;
    explicit tensor_t(const memory::desc &d)
        : md(d), bytes(d.get_size()) {}
    bool bf16() const { return md.get_data_type() == data_type::bf16; }
    int64_t size() const { return md.nelems(); }
    float get(int64_t i) const {
        if (!bf16()) return reinterpret_cast<const float *>(bytes.data())[i];
        return bf16_to_f32(reinterpret_cast<const uint16_t *>(bytes.data())[i]);
    }
    void set(int64_t i, float v) {
        if (bf16())
            reinterpret_cast<uint16_t *>(bytes.data())[i] = f32_to_bf16(v);
        else
            reinterpret_cast<float *>(bytes.data())[i] = v;
    }
    memory mem() { return memory(md, bytes.data()); }
};

tensor_t random_tensor(const memory::desc &md, uint64_t s, float scale) {
    tensor_t t(md);
    test::prng_t g(s);
    for (int64_t i = 0; i < t.size(); ++i)
        t.set(i, static_cast<float>(test::uniform_s64(g, -1000, 1000))
                        / 1000.f * scale);
    return t;
}

softmax_dropout::desc make_desc(const dims &d, data_type dt, bool causal) {
    softmax_dropout::desc sd;
    sd.src = sd.dst = memory::desc(d, dt);
    sd.stats = true;
    sd.causal = causal;
    sd.rate = 0.3;
    sd.with_offset = true;
    return sd;
}

std::unordered_map<int, memory> rng_args(int64_t stream_id = strm_id) {
    return {{RNDNN_ARG_SEED, memory::scalar(seed)},
            {RNDNN_ARG_OFFSET, memory::scalar(offset)},
            {RNDNN_ARG_STREAM, memory::scalar(stream_id)}};
}

// Forward: y, stats and (if the desc has one) the mask.
struct forward_t {
    tensor_t y;
    std::vector<float> stats;
    std::vector<uint8_t> mask;
};

forward_t forward(const softmax_dropout::desc &sd, tensor_t &x,
        int64_t stream_id = strm_id) {
    const softmax_dropout::primitive_desc pd(sd);
    forward_t f {tensor_t(sd.dst), {}, std::vector<uint8_t>(pd.mask_bytes())};
    f.stats.resize(pd.stats_md().is_zero() ? 0 : pd.stats_md().nelems());
    auto args = rng_args(stream_id);
    args[RNDNN_ARG_SRC] = x.mem();
    args[RNDNN_ARG_DST] = f.y.mem();
    if (sd.stats)
        args[RNDNN_ARG_STATS] = memory(pd.stats_md(), f.stats.data());
    if (!sd.mask.is_zero())
        args[RNDNN_ARG_MASK] = memory(sd.mask, f.mask.data());
    softmax_dropout(pd).execute(stream(2), args);
    return f;
}

// The softmax in double of each row (causal: of its first i + 1).
std::vector<double> softmax_ref(const tensor_t &x, bool causal) {
    const dims &d = x.md.get_dims();
    const int64_t n = d.back(), m = d[d.size() - 2];
    std::vector<double> p(x.size(), 0.0);
    for (int64_t r = 0; r < x.size() / n; ++r) {
        const int64_t len = causal ? std::min(r % m + 1, n) : n;
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < len; ++j)
            mx = std::max(mx, double(x.get(r * n + j)));
        for (int64_t j = 0; j < len; ++j)
            sum += std::exp(double(x.get(r * n + j)) - mx);
        for (int64_t j = 0; j < len; ++j)
            p[r * n + j] = std::exp(double(x.get(r * n + j)) - mx) / sum;
    }
    return p;
}

// rndnn::dropout's u8 keep mask of the data dims @p d at the test's seed,
// offset and @p stream_id, with @p sd's rate and draw.
std::vector<uint8_t> dropout_mask(
        const softmax_dropout::desc &sd, int64_t stream_id = strm_id) {
    const dims &d = sd.src.get_dims();
    dropout::desc dd;
    static_cast<draw_desc &>(dd) = sd;
    dd.src = dd.dst = memory::desc(d, data_type::f32);
    dd.mask = memory::desc(d, data_type::u8);
    dd.rate = sd.rate;
    std::vector<float> x(dd.src.nelems(), 1.f), y(x.size());
    std::vector<uint8_t> mask(x.size());
    auto args = rng_args(stream_id);
    args[RNDNN_ARG_SRC] = memory(dd.src, x.data());
    args[RNDNN_ARG_DST] = memory(dd.dst, y.data());
    args[RNDNN_ARG_MASK] = memory(dd.mask, mask.data());
    dropout(dropout::primitive_desc(dd)).execute(stream(1), args);
    return mask;
}

float dropout_scale(double rate) { return 1.f / static_cast<float>(1 - rate); }

TEST(SoftmaxDropoutApi, ForwardIsSoftmaxThenDropout) {
    const dims d = {2, 3, 5, 37};
    for (data_type dt : {data_type::f32, data_type::bf16})
        for (bool causal : {false, true}) {
            SCOPED_TRACE(cat(dt2str(dt), causal ? " causal" : ""));
            softmax_dropout::desc sd = make_desc(d, dt, causal);
            sd.mask = memory::desc(d, data_type::u8);
            tensor_t x = random_tensor(sd.src, 1, 6.f);
            const forward_t f = forward(sd, x);
            const std::vector<uint8_t> keep = dropout_mask(sd);
            ASSERT_EQ(f.mask, keep);
            const std::vector<double> p = softmax_ref(x, causal);
            const double scale = dropout_scale(sd.rate);
            const double ulp = dt == data_type::bf16 ? 1.0 / 256 : 0.0;
            for (int64_t i = 0; i < x.size(); ++i) {
                const double want = keep[i] ? p[i] * scale : 0.0;
                ASSERT_NEAR(f.y.get(i), want, 1e-5 * scale + ulp * want)
                        << "element " << i;
                if (!keep[i] || p[i] == 0.0) {
                    ASSERT_EQ(f.y.get(i), 0.f);
                }
            }
            const int64_t n = d.back();
            for (int64_t r = 0; r < x.size() / n; ++r) {
                const int64_t len = causal ? std::min(r % d[2] + 1, n) : n;
                double mx = -INFINITY, sum = 0;
                for (int64_t j = 0; j < len; ++j)
                    mx = std::max(mx, double(x.get(r * n + j)));
                for (int64_t j = 0; j < len; ++j)
                    sum += std::exp(double(x.get(r * n + j)) - mx);
                ASSERT_EQ(f.stats[2 * r], mx) << "row " << r;
                ASSERT_NEAR(f.stats[2 * r + 1], 1 / sum, 1e-6 / sum);
            }
            // The bit mask holds the same bits.
            softmax_dropout::desc bits = sd;
            bits.mask = memory::desc(d, data_type::bit);
            const forward_t fb = forward(bits, x);
            for (int64_t i = 0; i < x.size(); ++i)
                ASSERT_EQ(test::get_bit(fb.mask.data(), i), keep[i]);
            ASSERT_EQ(0, std::memcmp(fb.y.bytes.data(), f.y.bytes.data(),
                                 f.y.bytes.size()));
            // Another stream, another mask: the stream is read.
            const forward_t f0 = forward(sd, x, 0);
            EXPECT_EQ(f0.mask, dropout_mask(sd, 0));
            EXPECT_NE(f0.mask, f.mask);
        }
}

// Backward of @p sd (forward's desc) over dy, the scores x and the
// stats; @p in_place writes dx over dy.
tensor_t backward(softmax_dropout::desc sd, tensor_t &x, forward_t &f,
        const tensor_t &dy, bool in_place) {
    sd.prop = prop_kind::backward;
    const softmax_dropout::primitive_desc pd(sd);
    tensor_t g = dy, dx(sd.dst);
    auto args = rng_args();
    args[RNDNN_ARG_SRC] = x.mem();
    args[RNDNN_ARG_DIFF_DST] = g.mem();
    args[RNDNN_ARG_DIFF_SRC] = in_place ? g.mem() : dx.mem();
    args[RNDNN_ARG_STATS] = memory(pd.stats_md(), f.stats.data());
    if (!sd.mask.is_zero())
        args[RNDNN_ARG_MASK] = memory(sd.mask, f.mask.data());
    softmax_dropout(pd).execute(stream(2), args);
    return in_place ? g : dx;
}

TEST(SoftmaxDropoutApi, BackwardIsTheUnfusedGradient) {
    const dims d = {2, 3, 6, 21};
    for (data_type dt : {data_type::f32, data_type::bf16})
        for (bool causal : {false, true}) {
            SCOPED_TRACE(cat(dt2str(dt), causal ? " causal" : ""));
            const softmax_dropout::desc sd = make_desc(d, dt, causal);
            tensor_t x = random_tensor(sd.src, 2, 4.f);
            const tensor_t dy = random_tensor(sd.src, 3, 1.f);
            forward_t f = forward(sd, x);
            const std::vector<uint8_t> keep = dropout_mask(sd);
            const std::vector<double> p = softmax_ref(x, causal);
            const double scale = dropout_scale(sd.rate);
            const int64_t n = d.back();
            std::vector<double> want(x.size());
            for (int64_t r = 0; r < x.size() / n; ++r) {
                double c = 0;
                for (int64_t j = 0; j < n; ++j)
                    c += p[r * n + j] * (keep[r * n + j] ? scale : 0.0)
                            * dy.get(r * n + j);
                for (int64_t j = 0; j < n; ++j) {
                    const int64_t i = r * n + j;
                    want[i] = p[i] * ((keep[i] ? scale : 0.0) * dy.get(i) - c);
                }
            }
            const tensor_t dx = backward(sd, x, f, dy, false);
            const double ulp = dt == data_type::bf16 ? 1.0 / 128 : 0.0;
            for (int64_t i = 0; i < x.size(); ++i)
                ASSERT_NEAR(dx.get(i), want[i], 1e-5 * 4 + ulp * std::fabs(want[i]))
                        << "element " << i;
            // In place, and with the mask read (bit, u8): the same bits.
            EXPECT_EQ(backward(sd, x, f, dy, true).bytes, dx.bytes);
            for (data_type mdt : {data_type::bit, data_type::u8}) {
                softmax_dropout::desc m = sd;
                m.mask = memory::desc(d, mdt);
                forward_t fm = forward(m, x);
                EXPECT_EQ(backward(m, x, fm, dy, false).bytes, dx.bytes)
                        << dt2str(mdt);
            }
        }
}

TEST(SoftmaxDropoutApi, WindowIsTheBlockOfTheWhole) {
    const dims global = {2, 4, 6, 19};
    struct block_t {
        dims local, origin;
    };
    const block_t blocks[] = {
            {{2, 2, 6, 19}, {0, 2, 0, 0}}, // heads
            {{1, 4, 6, 19}, {1, 0, 0, 0}}, // batches
            {{2, 4, 3, 19}, {0, 0, 3, 0}}, // queries
            {{1, 1, 2, 19}, {1, 3, 4, 0}},
    };
    for (bool causal : {false, true}) {
        softmax_dropout::desc whole = make_desc(global, data_type::f32, causal);
        whole.mask = memory::desc(global, data_type::bit);
        tensor_t x = random_tensor(whole.src, 4, 5.f);
        const tensor_t dy = random_tensor(whole.src, 5, 1.f);
        forward_t fw = forward(whole, x);
        const tensor_t dxw = backward(whole, x, fw, dy, false);
        for (const block_t &b : blocks) {
            SCOPED_TRACE(cat(impl::dims2str(b.local), " at ",
                    impl::dims2str(b.origin), causal ? " causal" : ""));
            softmax_dropout::desc sd = make_desc(b.local, data_type::f32, causal);
            sd.global_dims = global;
            sd.origin = b.origin;
            sd.with_next_offset = true;
            // The block's scores and dy, cut from the whole's.
            tensor_t xb(sd.src), dyb(sd.src);
            const auto whole_index = [&](int64_t i) {
                int64_t g = 0, rest = i, stride = 1;
                for (size_t k = b.local.size(); k-- > 0;) {
                    g += (b.origin[k] + rest % b.local[k]) * stride;
                    rest /= b.local[k];
                    stride *= global[k];
                }
                return g;
            };
            for (int64_t i = 0; i < xb.size(); ++i) {
                xb.set(i, x.get(whole_index(i)));
                dyb.set(i, dy.get(whole_index(i)));
            }
            const softmax_dropout::primitive_desc pd(sd);
            tensor_t y(sd.dst);
            std::vector<float> stats(pd.stats_md().nelems());
            int64_t next = -1;
            auto args = rng_args();
            args[RNDNN_ARG_SRC] = xb.mem();
            args[RNDNN_ARG_DST] = y.mem();
            args[RNDNN_ARG_STATS] = memory(pd.stats_md(), stats.data());
            args[RNDNN_ARG_NEXT_OFFSET]
                    = memory(memory::desc({1}, data_type::s64), &next);
            softmax_dropout(pd).execute(stream(2), args);
            EXPECT_EQ(next, offset + 2 * 4 * 6 * 19);
            forward_t fb {y, stats, {}};
            sd.with_next_offset = false;
            const tensor_t dx = backward(sd, xb, fb, dyb, false);
            for (int64_t i = 0; i < xb.size(); ++i) {
                ASSERT_EQ(y.get(i), fw.y.get(whole_index(i))) << i;
                ASSERT_EQ(dx.get(i), dxw.get(whole_index(i))) << i;
            }
        }
    }
}

TEST(SoftmaxDropoutApi, InferenceIsTheSoftmax) {
    const dims d = {3, 4, 33};
    softmax_dropout::desc sd = make_desc(d, data_type::f32, true);
    tensor_t x = random_tensor(sd.src, 6, 3.f);
    sd.rate = 0.0;
    const forward_t train = forward(sd, x);
    sd.prop = prop_kind::forward_inference;
    sd.rate = 0.9; // not read
    const softmax_dropout::primitive_desc pd(sd);
    tensor_t y(sd.dst);
    std::vector<float> stats(pd.stats_md().nelems());
    softmax_dropout(pd).execute(stream(1),
            {{RNDNN_ARG_SRC, x.mem()}, {RNDNN_ARG_DST, y.mem()},
                    {RNDNN_ARG_STATS, memory(pd.stats_md(), stats.data())}});
    EXPECT_EQ(y.bytes, train.y.bytes);
    EXPECT_EQ(stats, train.stats);
    EXPECT_NE(std::string(pd.info()).find("prop=forward_inference"),
            std::string::npos)
            << pd.info();
}

TEST(SoftmaxDropoutApi, ErrorsNameTheBadValue) {
    const dims d = {2, 4, 8};
    const softmax_dropout::desc good = make_desc(d, data_type::f32, false);
    const auto pd_of = [](const softmax_dropout::desc &sd) {
        return softmax_dropout::primitive_desc(sd);
    };
    softmax_dropout::desc sd = good;
    sd.prop = prop_kind::backward;
    sd.stats = false;
    EXPECT_ERROR_NAMES(pd_of(sd), "desc.stats must be true");
    sd = good;
    sd.prop = prop_kind::forward_inference;
    sd.mask = memory::desc(d, data_type::bit);
    EXPECT_ERROR_NAMES(pd_of(sd), "forward_inference draws no mask");
    sd = good;
    sd.global_dims = {2, 4, 16};
    sd.origin = {0, 0, 8};
    EXPECT_ERROR_NAMES(pd_of(sd), "the window splits rows");
    sd.global_dims = {2, 4};
    EXPECT_ERROR_NAMES(pd_of(sd), "origin");
    sd = good;
    sd.src = sd.dst = memory::desc(d, data_type::f16);
    EXPECT_ERROR_NAMES(pd_of(sd), "is not f32 or bf16");
    sd = good;
    sd.dst = memory::desc({2, 4, 9}, data_type::f32);
    EXPECT_ERROR_NAMES(pd_of(sd), "must have the dims and type of src");
    sd = good;
    sd.rate = 1.5;
    EXPECT_ERROR_NAMES(pd_of(sd), "rate");
    sd.prop = prop_kind::forward_inference;
    EXPECT_ERROR_NAMES(pd_of(sd), "rate");
    sd = good;
    sd.mask = memory::desc({2, 4, 1}, data_type::bit);
    EXPECT_ERROR_NAMES(pd_of(sd), "mask");
    sd.mask = memory::desc(d, data_type::f32);
    EXPECT_ERROR_NAMES(pd_of(sd), "mask type f32 is not bit or u8");
    sd.mask = memory::desc(d, data_type::u8, {64, 8, 1});
    EXPECT_ERROR_NAMES(pd_of(sd), "is not dense");
    sd = good;
    sd.src = sd.dst = memory::desc({8}, data_type::f32);
    sd.causal = true;
    EXPECT_ERROR_NAMES(pd_of(sd), "causal needs 2 dims");
    sd = good;
    sd.prop = static_cast<prop_kind>(99);
    EXPECT_ERROR_NAMES(pd_of(sd), "propagation kind");

    // Execution: a missing argument is named.
    const softmax_dropout prim(pd_of(good));
    std::vector<float> x(64), y(64), stats(16);
    const memory xm(good.src, x.data()), ym(good.dst, y.data());
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_SRC, xm}, {RNDNN_ARG_DST, ym},
                                       {RNDNN_ARG_SEED, memory::scalar(seed)},
                                       {RNDNN_ARG_OFFSET,
                                               memory::scalar(offset)}}),
            "stats");
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_SRC, xm}, {RNDNN_ARG_DST, ym},
                                       {RNDNN_ARG_STATS,
                                               memory(softmax_dropout::stats_desc(d),
                                                       stats.data())},
                                       {RNDNN_ARG_OFFSET,
                                               memory::scalar(offset)}}),
            "seed");
    EXPECT_ERROR_NAMES(softmax_dropout().execute(stream(1), {}),
            "empty softmax_dropout primitive");
}

} // namespace
