// What makes a small call cheap, and that it changes no value:
// - PdCache.*: a primitive_desc (rng, dropout, categorical,
//   softmax_dropout) equal to one made before shares its implementation
//   (src/pd_cache.hpp); a different desc, attribute, real number's bits or
//   JIT test hook makes its own.
// - ConstsCache.*: a kernel's constants, kept between executions, follow
//   every change of seed, stream and rate (rng/jit/jit_rng_generator.hpp).
// - SmallDropout.*: the fused plan's path for tensors of at most
//   fused_small_max elements (pipeline/dropout_plans.cpp) gives the chain
//   plan's values, around the limit, in every data type, in place or not.
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "src/cpu_isa.hpp"
#include "src/jit_tuning.hpp"
#include "tests/test_utils.hpp"

namespace rndnn {
namespace {

using dt = data_type;

primitive_attr normal_attr(double mean, double stddev, cpu_isa cap = cpu_isa::all) {
    post_ops po;
    po.append_normal(mean, stddev);
    primitive_attr a;
    a.set_post_ops(po);
    a.set_max_cpu_isa(cap);
    return a;
}

dropout::desc dropout_desc(dims shape, dt t, double rate) {
    dropout::desc d;
    d.src = memory::desc(shape, t);
    d.dst = d.src;
    d.rate = rate;
    d.with_offset = true;
    return d;
}

// --- the cache of primitive descriptors ----------------------------------

TEST(PdCache, EqualDescsShareTheImplementation) {
    rng::desc d;
    d.dst = memory::desc({1000}, dt::f32);
    const rng::primitive_desc a(d, normal_attr(0, 1)), b(d, normal_attr(0, 1));
    EXPECT_EQ(&a.get_desc(), &b.get_desc());
    const dropout::desc dd = dropout_desc({4, 100}, dt::f32, 0.25);
    const dropout::primitive_desc x(dd), y(dd);
    EXPECT_EQ(&x.get_desc(), &y.get_desc());
    EXPECT_EQ(x.impl_name(), y.impl_name());
    categorical::desc cd;
    cd.src = memory::desc({4, 100}, dt::f32);
    cd.dst = memory::desc({4, 1}, dt::s64);
    const categorical::primitive_desc c1(cd), c2(cd);
    EXPECT_EQ(&c1.get_desc(), &c2.get_desc());
    categorical::desc cd2 = cd;
    cd2.temperature = 0.5;
    EXPECT_NE(&c1.get_desc(), &categorical::primitive_desc(cd2).get_desc());
    softmax_dropout::desc sd;
    sd.src = sd.dst = memory::desc({4, 64}, dt::f32);
    sd.with_offset = true;
    sd.rate = 0.3;
    const softmax_dropout::primitive_desc s1(sd), s2(sd);
    EXPECT_EQ(&s1.get_desc(), &s2.get_desc());
    softmax_dropout::desc sd2 = sd;
    sd2.causal = true;
    EXPECT_NE(&s1.get_desc(), &softmax_dropout::primitive_desc(sd2).get_desc());
}

TEST(PdCache, DifferentKeysMakeTheirOwn) {
    rng::desc d;
    d.dst = memory::desc({1000}, dt::f32);
    const rng::primitive_desc a(d, normal_attr(0, 1));
    // Another attribute, another cap, another desc.
    EXPECT_NE(&a.get_desc(), &rng::primitive_desc(d, normal_attr(0, 2)).get_desc());
    EXPECT_NE(&a.get_desc(),
            &rng::primitive_desc(d, normal_attr(0, 1, cpu_isa::none)).get_desc());
    rng::desc e = d;
    e.dst = memory::desc({1001}, dt::f32);
    EXPECT_NE(&a.get_desc(), &rng::primitive_desc(e, normal_attr(0, 1)).get_desc());
    // Equal under ==, not the same bits: -0.0 and +0.0.
    EXPECT_NE(&a.get_desc(), &rng::primitive_desc(d, normal_attr(-0.0, 1)).get_desc());
    dropout::desc p = dropout_desc({4, 100}, dt::f32, 0.0), q = p;
    q.rate = -0.0;
    EXPECT_NE(&dropout::primitive_desc(p).get_desc(),
            &dropout::primitive_desc(q).get_desc());
    dropout::desc r = p;
    r.rate = 0.5;
    EXPECT_NE(&dropout::primitive_desc(p).get_desc(),
            &dropout::primitive_desc(r).get_desc());
}

// The JIT test hook makes creation choose another entry: a descriptor made
// under it is not the one made without it, and the cache gives each its
// own.
TEST(PdCache, TheJitFailHookIsPartOfTheKey) {
    rng::desc d;
    d.dst = memory::desc({512}, dt::f32);
    const rng::primitive_desc plain(d, normal_attr(0, 1));
    impl::set_jit_fail_isa(cpu_isa::sse41);
    const rng::primitive_desc hooked(d, normal_attr(0, 1));
    impl::set_jit_fail_isa(cpu_isa::all);
    EXPECT_NE(&plain.get_desc(), &hooked.get_desc());
    EXPECT_STREQ(hooked.impl_name(), "ref:any");
    EXPECT_EQ(&plain.get_desc(),
            &rng::primitive_desc(d, normal_attr(0, 1)).get_desc());
}

// Values that set_jit_tuning() forces make other kernels: a descriptor
// made under them is not the one made before, nor the one made after
// clear_jit_tuning().
TEST(PdCache, ForcedTuningIsPartOfTheKey) {
    dropout::desc d = dropout_desc({4096}, dt::f32, 0.25);
    const dropout::primitive_desc plain(d);
    impl::set_jit_tuning(impl::jit_tunings().front().values);
    const dropout::primitive_desc forced(d);
    EXPECT_EQ(&forced.get_desc(), &dropout::primitive_desc(d).get_desc());
    impl::clear_jit_tuning();
    EXPECT_NE(&plain.get_desc(), &forced.get_desc());
    const dropout::primitive_desc after(d);
    EXPECT_NE(&after.get_desc(), &forced.get_desc());
}

// A cached descriptor still refuses what creation refuses.
TEST(PdCache, ErrorsAreNotCached) {
    dropout::desc d = dropout_desc({8}, dt::f32, 1.5);
    for (int i = 0; i < 2; ++i)
        EXPECT_NE(test::error_of([&] { dropout::primitive_desc pd(d); })
                          .find("rate"),
                std::string::npos);
}

// --- the constants kept between executions ---------------------------------

std::vector<float> rng_values(const rng::primitive_desc &pd, int64_t seed,
        int64_t strm) {
    std::vector<float> v(static_cast<size_t>(pd.dst_desc().nelems()));
    rng(pd).execute(stream(1),
            {{RNDNN_ARG_DST, memory(pd.dst_desc(), v.data())},
                    {RNDNN_ARG_SEED, memory::scalar(seed)},
                    {RNDNN_ARG_OFFSET, memory::scalar(int64_t(3))},
                    {RNDNN_ARG_STREAM, memory::scalar(strm)}});
    return v;
}

TEST(ConstsCache, FollowsSeedAndStream) {
    rng::desc d;
    d.dst = memory::desc({300}, dt::f32);
    d.with_offset = true;
    const rng::primitive_desc jit(d, normal_attr(0, 1));
    const rng::primitive_desc ref(d, normal_attr(0, 1, cpu_isa::none));
    // The same kernel, its key changed at each call, then back.
    const std::pair<int64_t, int64_t> keys[] = {
            {1, 0}, {2, 0}, {2, 5}, {1, 0}, {1, 0}, {-1, 5}, {1, 0}};
    for (const auto &k : keys)
        ASSERT_EQ(rng_values(jit, k.first, k.second),
                rng_values(ref, k.first, k.second))
                << k.first << " " << k.second;
}

std::vector<float> dropout_values(const dropout::desc &d, double rate,
        int64_t seed, const primitive_attr &attr = {}) {
    std::vector<float> src(static_cast<size_t>(d.src.nelems()));
    for (size_t i = 0; i < src.size(); ++i)
        src[i] = 1.f + static_cast<float>(i);
    std::vector<float> dst(src.size(), -1.f);
    std::unordered_map<int, memory> args
            = {{RNDNN_ARG_SRC, memory(d.src, src.data())},
                    {RNDNN_ARG_DST, memory(d.dst, dst.data())},
                    {RNDNN_ARG_SEED, memory::scalar(seed)},
                    {RNDNN_ARG_OFFSET, memory::scalar(int64_t(7))}};
    if (d.runtime_rate)
        args.emplace(RNDNN_ARG_RATE, memory::scalar(static_cast<float>(rate)));
    dropout(dropout::primitive_desc(d, attr)).execute(stream(1), args);
    return dst;
}

// A runtime rate changes p and the scale between calls of one kernel.
TEST(ConstsCache, FollowsARuntimeRate) {
    for (dim_t n : {dim_t(100), dim_t(5000)}) {
        dropout::desc d = dropout_desc({n}, dt::f32, 0.5);
        d.runtime_rate = true;
        dropout::desc chain = d;
        chain.plan = dropout_plan::chain;
        for (double rate : {0.25, 0.5, 0.25, 0.0, 0.75, 0.25})
            for (int64_t seed : {3, 4, 3})
                ASSERT_EQ(dropout_values(d, rate, seed),
                        dropout_values(chain, rate, seed))
                        << n << " " << rate << " " << seed;
    }
}

// --- small tensors through the fused plan -----------------------------------

// Raw bits of n elements of type t: the fused plan's (small path or JIT)
// against the chain's, in place or not.
void expect_small_like_chain(dim_t n, dt t, double rate, int64_t seed,
        bool inplace) {
    dropout::desc d = dropout_desc({n}, t, rate);
    dropout::desc chain = d;
    chain.plan = dropout_plan::chain;
    const size_t bytes = d.src.get_size();
    std::vector<unsigned char> init(bytes);
    for (size_t i = 0; i < bytes; ++i)
        init[i] = static_cast<unsigned char>(0x3c + (i * 7) % 5);
    std::vector<unsigned char> out[2];
    int k = 0;
    for (const dropout::desc &dd : {d, chain}) {
        std::vector<unsigned char> src = init, dst(bytes, 0xee);
        dropout prim {dropout::primitive_desc(dd)};
        prim.execute(stream(1),
                {{RNDNN_ARG_SRC, memory(dd.src, src.data())},
                        {RNDNN_ARG_DST,
                                memory(dd.dst, inplace ? src.data() : dst.data())},
                        {RNDNN_ARG_SEED, memory::scalar(seed)},
                        {RNDNN_ARG_OFFSET, memory::scalar(int64_t(4093))}});
        out[k++] = inplace ? src : dst;
    }
    EXPECT_EQ(out[0], out[1]) << n << " " << dt2str(t) << " rate " << rate
                              << " seed " << seed << " inplace " << inplace;
}

TEST(SmallDropout, FusedPlanGivesTheChainsValues) {
    for (dt t : {dt::f32, dt::bf16, dt::f16})
        for (dim_t n : {1, 2, 15, 16, 17, 31, 33, 64, 100, 127, 128, 129, 200})
            for (double rate : {0.0, 0.1, 0.5, 1.0})
                for (bool inplace : {false, true})
                    expect_small_like_chain(n, t, rate, 11, inplace);
}

// Backward recomputing the mask takes the small path too, with the chain's
// values.
TEST(SmallDropout, BackwardRecomputingTheMask) {
    for (dim_t n : {7, 128}) {
        dropout::desc d = dropout_desc({n}, dt::f32, 0.3);
        d.prop = prop_kind::backward;
        dropout::desc chain = d;
        chain.plan = dropout_plan::chain;
        std::vector<float> a[2];
        int k = 0;
        for (const dropout::desc &dd : {d, chain}) {
            std::vector<float> dy(static_cast<size_t>(n), 2.f), dx(dy.size());
            dropout {dropout::primitive_desc(dd)}.execute(stream(1),
                    {{RNDNN_ARG_DIFF_DST, memory(dd.src, dy.data())},
                            {RNDNN_ARG_DIFF_SRC, memory(dd.dst, dx.data())},
                            {RNDNN_ARG_SEED, memory::scalar(int64_t(9))},
                            {RNDNN_ARG_OFFSET, memory::scalar(int64_t(1))}});
            a[k++] = dx;
        }
        EXPECT_EQ(a[0], a[1]) << n;
    }
}

} // namespace
} // namespace rndnn
