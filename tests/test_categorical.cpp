// The categorical primitive (include/rndnn/categorical.hpp) against its
// definition: the gumbel(0, 1) noise materialised by the RNG primitive and
// an argmax of x / T + G in f32.
//
// - Categorical.EqualsMaterialisedGumbelArgmax: f32 and bf16 logits,
//   temperatures 1, 0.7 and 2.5, s64 and s32 indices, every ISA cap: the
//   index and the max score exactly; a vocabulary over several noise
//   blocks; next_offset is offset + the element count.
// - Categorical.EveryAlgorithmsNoise: each engine's gumbel values, the
//   reference and the best kernels.
// - Categorical.ShardsCombineToTheUnshardedDraw: random splits of the
//   vocabulary (and blocks of rows) drawn apart and combined give the
//   whole draw.
// - Categorical.ThreadsAndTiersAgree: 1..3 threads and each tier's argmax
//   loop on blocks with ties, NaN and infinities give the same result.
// - Categorical.NanAndInfinities: NaN counts as -inf; an all -inf row
//   gives its first index.
// - Categorical.FrequenciesFollowSoftmax: 2^18 draws of a 6-word
//   vocabulary at T = 0.5 and 2 against softmax(x / T) (chi-square), and
//   the wrong temperature's probabilities refused.
// - Categorical.ErrorsNameTheBadValue: each refusal of the header.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pipeline/categorical_argmax.hpp"
#include "rndnn/rndnn.hpp"
#include "src/utils.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;

namespace {

constexpr int64_t seed = 99, offset = 1000, strm_id = 5;
const float inf = std::numeric_limits<float>::infinity();

struct result_t {
    std::vector<int64_t> idx;
    std::vector<float> max;
    int64_t next = 0;
};

// Draws from logits x (f32 values; stored as dt) of dims d in a window.
result_t draw(const std::vector<float> &x, const dims &d, data_type dt,
        double temp, const dims &global = {}, const dims &origin = {},
        int nthr = 2, cpu_isa cap = cpu_isa::all,
        data_type idx_dt = data_type::s64,
        rng_alg alg = rng_alg::philox4x32_10) {
    categorical::desc cd;
    cd.alg = alg;
    if (alg == rng_alg::multfly) cd.name = "tokens";
    cd.src = memory::desc(d, dt);
    dims od = d;
    od.back() = 1;
    cd.dst = memory::desc(od, idx_dt);
    cd.max = memory::desc(od, data_type::f32);
    cd.temperature = temp;
    cd.with_offset = true;
    cd.with_next_offset = true;
    cd.global_dims = global;
    cd.origin = origin;
    primitive_attr attr;
    attr.set_max_cpu_isa(cap);
    categorical prim {categorical::primitive_desc(cd, attr)};
    std::vector<uint16_t> xb(x.size());
    for (size_t i = 0; i < x.size(); ++i)
        xb[i] = impl::f32_to_bf16(x[i]);
    const dim_t rows = cd.dst.nelems();
    result_t r;
    r.idx.resize(static_cast<size_t>(rows));
    r.max.resize(static_cast<size_t>(rows));
    std::vector<int32_t> i32(static_cast<size_t>(rows));
    void *idx = idx_dt == data_type::s64 ? static_cast<void *>(r.idx.data())
                                         : static_cast<void *>(i32.data());
    int64_t next = -1;
    prim.execute(stream(nthr),
            {{RNDNN_ARG_SRC,
                     memory(cd.src,
                             dt == data_type::bf16
                                     ? static_cast<void *>(xb.data())
                                     : const_cast<float *>(x.data()))},
                    {RNDNN_ARG_DST, memory(cd.dst, idx)},
                    {RNDNN_ARG_MAX_SCORES, memory(cd.max, r.max.data())},
                    {RNDNN_ARG_SEED, memory::scalar(seed)},
                    {RNDNN_ARG_OFFSET, memory::scalar(offset)},
                    {RNDNN_ARG_STREAM, memory::scalar(strm_id)},
                    {RNDNN_ARG_NEXT_OFFSET,
                            memory(memory::desc({1}, data_type::s64),
                                    &next)}});
    if (idx_dt == data_type::s32)
        for (size_t i = 0; i < i32.size(); ++i)
            r.idx[i] = i32[i];
    r.next = next;
    return r;
}

// The definition over a whole [rows, v] tensor: gumbel(0, 1) materialised
// by the RNG primitive, then s = x / T + G and the first max.
result_t expected(const std::vector<float> &x, dim_t rows, dim_t v,
        data_type dt, double temp, rng_alg alg = rng_alg::philox4x32_10) {
    rng::desc rd(alg, memory::desc({rows, v}, data_type::f32));
    if (alg == rng_alg::multfly) rd.name = "tokens";
    post_ops po;
    po.append_gumbel(0.f, 1.f);
    primitive_attr attr;
    attr.set_post_ops(po);
    std::vector<float> g(static_cast<size_t>(rows * v));
    test::run_args_t ra;
    ra.seed = seed;
    ra.offset = offset;
    ra.stream = strm_id;
    test::generate(rd, attr, g.data(), ra);
    const float t = static_cast<float>(temp);
    result_t r;
    for (dim_t i = 0; i < rows; ++i) {
        float m = -inf;
        int64_t at = 0;
        for (dim_t j = 0; j < v; ++j) {
            const size_t k = static_cast<size_t>(i * v + j);
            float xv = x[k];
            if (dt == data_type::bf16)
                xv = impl::bf16_to_f32(impl::f32_to_bf16(xv));
            const float s = xv / t + g[k];
            if (s > m) {
                m = s;
                at = j;
            }
        }
        r.idx.push_back(at);
        r.max.push_back(m);
    }
    return r;
}

std::vector<float> logits(size_t n, unsigned salt) {
    std::mt19937 gen(salt);
    std::normal_distribution<float> nd(0.f, 3.f);
    std::vector<float> x(n);
    for (float &v : x)
        v = nd(gen);
    return x;
}

TEST(Categorical, EqualsMaterialisedGumbelArgmax) {
    const std::vector<cpu_isa> caps {
            cpu_isa::none, cpu_isa::avx2, cpu_isa::avx512, cpu_isa::all};
    for (const data_type dt : {data_type::f32, data_type::bf16})
        for (const double temp : {1.0, 0.7, 2.5})
            for (const dim_t v : {dim_t(1), dim_t(37), dim_t(10000)}) {
                const dim_t rows = v > 1000 ? 3 : 50;
                const std::vector<float> x = logits(
                        static_cast<size_t>(rows * v), static_cast<unsigned>(v));
                const result_t want = expected(x, rows, v, dt, temp);
                for (const cpu_isa cap : caps)
                    for (const data_type it : {data_type::s64, data_type::s32}) {
                        const result_t got = draw(x, {rows, v}, dt, temp, {}, {},
                                2, cap, it);
                        EXPECT_EQ(got.idx, want.idx)
                                << impl::cat(dt2str(dt), " T=", temp,
                                           " v=", v, " cap=", isa2str(cap));
                        EXPECT_EQ(got.max, want.max);
                        EXPECT_EQ(got.next, offset + rows * v);
                    }
            }
}

TEST(Categorical, EveryAlgorithmsNoise) {
    const dim_t rows = 3, v = 3000;
    const std::vector<float> x = logits(static_cast<size_t>(rows * v), 13);
    for (const rng_alg alg : rng_algs()) {
        const result_t want = expected(x, rows, v, data_type::f32, 1.0, alg);
        for (const cpu_isa cap : {cpu_isa::none, cpu_isa::all}) {
            const result_t got = draw(x, {rows, v}, data_type::f32, 1.0, {},
                    {}, 2, cap, data_type::s64, alg);
            EXPECT_EQ(got.idx, want.idx) << alg2str(alg);
            EXPECT_EQ(got.max, want.max) << alg2str(alg);
        }
    }
}

TEST(Categorical, ShardsCombineToTheUnshardedDraw) {
    const dim_t rows = 6, v = 9000;
    const std::vector<float> x = logits(static_cast<size_t>(rows * v), 7);
    const result_t whole = draw(x, {rows, v}, data_type::f32, 0.9);
    std::mt19937 gen(3);
    for (int trial = 0; trial < 6; ++trial) {
        // Cut points of the vocabulary and of the rows.
        std::vector<dim_t> cuts {0, v};
        const int ncuts = 1 + trial % 4;
        for (int k = 0; k < ncuts; ++k)
            cuts.push_back(1 + static_cast<dim_t>(gen() % (v - 1)));
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        const dim_t r0 = static_cast<dim_t>(gen() % rows);
        for (const auto &rr : {std::make_pair(dim_t(0), r0),
                     std::make_pair(r0, rows)}) {
            const dim_t nr = rr.second - rr.first;
            if (nr == 0) continue;
            std::vector<float> maxes;
            std::vector<int64_t> idx;
            for (size_t s = 0; s + 1 < cuts.size(); ++s) {
                const dim_t c0 = cuts[s], w = cuts[s + 1] - cuts[s];
                std::vector<float> block;
                for (dim_t i = rr.first; i < rr.second; ++i)
                    for (dim_t j = c0; j < c0 + w; ++j)
                        block.push_back(x[static_cast<size_t>(i * v + j)]);
                const result_t part = draw(block, {nr, w}, data_type::f32,
                        0.9, {rows, v}, {rr.first, c0}, 1 + trial % 3);
                EXPECT_EQ(part.next, offset + rows * v);
                maxes.insert(maxes.end(), part.max.begin(), part.max.end());
                idx.insert(idx.end(), part.idx.begin(), part.idx.end());
            }
            std::vector<float> m(static_cast<size_t>(nr));
            std::vector<int64_t> j(static_cast<size_t>(nr));
            categorical::combine(maxes.data(), idx.data(),
                    static_cast<int64_t>(cuts.size() - 1), nr, m.data(),
                    j.data());
            for (dim_t i = 0; i < nr; ++i) {
                EXPECT_EQ(j[static_cast<size_t>(i)],
                        whole.idx[static_cast<size_t>(rr.first + i)])
                        << "trial " << trial << " row " << rr.first + i;
                EXPECT_EQ(m[static_cast<size_t>(i)],
                        whole.max[static_cast<size_t>(rr.first + i)]);
            }
        }
    }
}

TEST(Categorical, ThreadsAndTiersAgree) {
    const dim_t rows = 7, v = 5000;
    const std::vector<float> x = logits(static_cast<size_t>(rows * v), 11);
    const result_t one = draw(x, {rows, v}, data_type::f32, 1.3, {}, {}, 1);
    for (const int nthr : {2, 3}) {
        const result_t r = draw(x, {rows, v}, data_type::f32, 1.3, {}, {}, nthr);
        EXPECT_EQ(r.idx, one.idx);
        EXPECT_EQ(r.max, one.max);
    }
    // Each tier's loop on blocks of small integers (many ties), NaN and
    // infinities, at every length and start, with a best so far.
    std::mt19937 gen(5);
    const float vals[] = {0.f, 1.f, 2.f, -inf, inf,
            std::numeric_limits<float>::quiet_NaN()};
    for (const bool bf16 : {false, true})
        for (int trial = 0; trial < 400; ++trial) {
            const dim_t n = 1 + static_cast<dim_t>(gen() % 70);
            std::vector<float> xf(static_cast<size_t>(n)), g(xf.size());
            std::vector<uint16_t> xb(xf.size());
            for (size_t k = 0; k < xf.size(); ++k) {
                xf[k] = vals[gen() % (trial % 2 ? 6 : 3)];
                xb[k] = impl::f32_to_bf16(xf[k]);
                g[k] = static_cast<float>(gen() % 3);
            }
            const void *xp = bf16 ? static_cast<const void *>(xb.data())
                                  : static_cast<const void *>(xf.data());
            const float start = static_cast<float>(gen() % 5) - 1.f;
            impl::argmax_t want {start, -1};
            impl::argmax_of_tier(cpu_isa::none, bf16)(
                    xp, g.data(), n, 1.f, 100, want);
            for (const cpu_isa t : test::available_tiers()) {
                if (t < cpu_isa::avx2) continue;
                impl::argmax_t got {start, -1};
                impl::argmax_of_tier(t, bf16)(xp, g.data(), n, 1.f, 100, got);
                EXPECT_EQ(got.j, want.j) << isa2str(t) << " trial " << trial;
                EXPECT_EQ(got.m, want.m) << isa2str(t) << " trial " << trial;
            }
        }
}

TEST(Categorical, NanAndInfinities) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // Row 0 all NaN, row 1 all -inf, row 2 NaN but one finite, row 3 +inf
    // twice (the first wins).
    const std::vector<float> x {nan, nan, nan, nan, -inf, -inf, -inf, -inf,
            nan, nan, -5.f, nan, 0.f, inf, 0.f, inf};
    for (const cpu_isa cap : {cpu_isa::none, cpu_isa::all}) {
        const result_t r = draw(x, {4, 4}, data_type::f32, 1.0, {}, {}, 1, cap);
        EXPECT_EQ(r.idx, (std::vector<int64_t> {0, 0, 2, 1}));
        EXPECT_EQ(r.max[0], -inf);
        EXPECT_EQ(r.max[1], -inf);
        EXPECT_TRUE(std::isfinite(r.max[2]));
        EXPECT_EQ(r.max[3], inf);
        // A shard of the columns 2..3 of that tensor: global indices.
        std::vector<float> b;
        for (int i = 0; i < 4; ++i)
            for (int j = 2; j < 4; ++j)
                b.push_back(x[static_cast<size_t>(i * 4 + j)]);
        const result_t s = draw(
                b, {4, 2}, data_type::f32, 1.0, {4, 4}, {0, 2}, 1, cap);
        EXPECT_EQ(s.idx, (std::vector<int64_t> {2, 2, 2, 3}));
    }
    const float m[] = {-inf, nan, 1.f, 1.f};
    const int64_t j[] = {4, 2, 9, 3};
    float om[2];
    int64_t oj[2];
    categorical::combine(m, j, 2, 2, om, oj); // shards {-inf,nan},{1,1}
    EXPECT_EQ(oj[0], 9);
    EXPECT_EQ(oj[1], 3);
    EXPECT_EQ(om[0], 1.f);
    const float m2[] = {nan, -inf};
    const int64_t j2[] = {5, 1};
    categorical::combine(m2, j2, 2, 1, om, oj);
    EXPECT_EQ(oj[0], 1);
    EXPECT_EQ(om[0], -inf);
}

TEST(Categorical, FrequenciesFollowSoftmax) {
    const dim_t v = 6, rows = dim_t(1) << 18;
    const float base[v] = {1.f, 0.f, -1.f, 2.f, 0.5f, -3.f};
    std::vector<float> x(static_cast<size_t>(rows * v));
    for (size_t k = 0; k < x.size(); ++k)
        x[k] = base[k % v];
    const auto chi2 = [&](const std::vector<int64_t> &idx, double t) {
        double z = 0, p[v];
        for (dim_t j = 0; j < v; ++j)
            z += p[j] = std::exp(base[j] / t);
        std::vector<double> count(v);
        for (const int64_t i : idx)
            count[static_cast<size_t>(i)] += 1;
        double c = 0;
        for (dim_t j = 0; j < v; ++j) {
            const double e = static_cast<double>(rows) * p[j] / z;
            c += (count[static_cast<size_t>(j)] - e)
                    * (count[static_cast<size_t>(j)] - e) / e;
        }
        return c;
    };
    // 5 degrees of freedom: P(chi2 > 35.9) = 1e-6 for a true sampler; the
    // deterministic seed passes or fails the same way every run.
    for (const double t : {0.5, 2.0}) {
        const result_t r = draw(x, {rows, v}, data_type::f32, t);
        EXPECT_LT(chi2(r.idx, t), 35.9) << "T = " << t;
        EXPECT_GT(chi2(r.idx, 1.0), 1000.0) << "T = " << t;
    }
}

TEST(Categorical, ErrorsNameTheBadValue) {
    const auto make = [](categorical::desc d) {
        categorical::primitive_desc pd(d);
    };
    categorical::desc d;
    d.src = memory::desc({2, 8}, data_type::f32);
    d.dst = memory::desc({2, 1}, data_type::s64);
    make(d);
    for (const double t : {0.0, -1.0, std::nan(""), 1e300, 1e-300}) {
        categorical::desc b = d;
        b.temperature = t;
        EXPECT_ERROR_NAMES(make(b), "temperature");
    }
    categorical::desc b = d;
    b.src = memory::desc({2, 8}, data_type::f16);
    EXPECT_ERROR_NAMES(make(b), "logits f16");
    b = d;
    b.dst = memory::desc({2, 8}, data_type::s64);
    EXPECT_ERROR_NAMES(make(b), "indices");
    b = d;
    b.dst = memory::desc({2, 1}, data_type::f32);
    EXPECT_ERROR_NAMES(make(b), "s64 or s32");
    b = d;
    b.max = memory::desc({2, 1}, data_type::bf16);
    EXPECT_ERROR_NAMES(make(b), "max scores");
    b = d;
    b.global_dims = {2, 10};
    b.origin = {0, 3};
    EXPECT_ERROR_NAMES(make(b), "do not fit the global dims 2x10");
    b.origin = {0, 2};
    make(b);
    post_ops po;
    po.append_gumbel(0.f, 1.f);
    primitive_attr pa;
    pa.set_post_ops(po);
    EXPECT_ERROR_NAMES(categorical::primitive_desc(d, pa), "post-ops");
    EXPECT_ERROR_NAMES(
            categorical::combine(nullptr, nullptr, 0, 1, nullptr, nullptr),
            "shards 0");
    // A missing argument, an offset too close to the end of the stream.
    categorical prim {categorical::primitive_desc(d)};
    std::vector<float> x(16);
    int64_t idx[2];
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_SRC, memory(d.src, x.data())},
                                       {RNDNN_ARG_SEED, memory::scalar(seed)}}),
            "dst");
    d.with_offset = true;
    categorical with_off {categorical::primitive_desc(d)};
    EXPECT_THROW(with_off.execute(stream(1),
                         {{RNDNN_ARG_SRC, memory(d.src, x.data())},
                                 {RNDNN_ARG_DST, memory(d.dst, idx)},
                                 {RNDNN_ARG_SEED, memory::scalar(seed)},
                                 {RNDNN_ARG_OFFSET,
                                         memory::scalar(
                                                 std::numeric_limits<
                                                         int64_t>::max()
                                                 - 100)}}),
            error);
}

} // namespace
