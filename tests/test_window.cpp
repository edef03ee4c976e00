// Windows of a global tensor: the blocks of random partitions of random
// global shapes, generated apart, hold the whole tensor's values, for every
// engine, distribution and type, ISA cap, offset and thread count.
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "src/utils.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;
using namespace rndnn::test;

namespace {

struct dist_case_t {
    const char *name;
    data_type dt;
    post_ops po;
};

std::vector<dist_case_t> dist_cases(rng_alg alg) {
    std::vector<dist_case_t> v;
    post_ops none;
    v.push_back({"bits", data_type::u32, none});
    // The default method (bitsliced:32, lazy in the JIT kernels, where the
    // algorithm allows; else threshold32), and each method named.
    post_ops def;
    def.append_bernoulli(0.3);
    v.push_back({"default bit", data_type::bit, def});
    v.push_back({"default u8", data_type::u8, def});
    post_ops t32;
    t32.append_bernoulli(0.3, bernoulli_method::threshold32);
    v.push_back({"threshold32 bit", data_type::bit, t32});
    if (alg != rng_alg::mcg31m1) {
        post_ops bs;
        bs.append_bernoulli(0.625, bernoulli_method::bitsliced, 3);
        v.push_back({"bitsliced:3 bit", data_type::bit, bs});
        post_ops bs13;
        bs13.append_bernoulli(0.3, bernoulli_method::bitsliced, 13);
        v.push_back({"bitsliced:13 bit", data_type::bit, bs13});
    }
    if (alg != rng_alg::mcg31m1 && alg != rng_alg::mt19937) {
        // A tie's word depends on the ties before it in its unit of 2048.
        post_ops bw;
        bw.append_bernoulli(0.3, bernoulli_method::bytewise);
        v.push_back({"bytewise bit", data_type::bit, bw});
        v.push_back({"bytewise f32", data_type::f32, bw});
    }
    post_ops uni;
    uni.append_uniform(-2.f, 3.f);
    v.push_back({"uniform f32", data_type::f32, uni});
    v.push_back({"uniform bf16", data_type::bf16, uni});
    v.push_back({"uniform f64", data_type::f64, uni}); // 2 words an element
    post_ops nrm;
    nrm.append_normal(1.f, 2.f);
    v.push_back({"normal f32", data_type::f32, nrm});
    v.push_back({"normal f16", data_type::f16, nrm});
    v.push_back({"normal f64", data_type::f64, nrm}); // 4 words a pair
    if (alg != rng_alg::mcg31m1) { // integers needs 32-bit words
        // 2 words an element, and 4.
        post_ops i2;
        i2.append_integers(-3, 1000);
        v.push_back({"integers s32", data_type::s32, i2});
        post_ops i8;
        i8.append_integers(0, 256);
        v.push_back({"integers u8", data_type::u8, i8});
        v.push_back({"integers f32", data_type::f32, i8});
        post_ops i4;
        i4.append_integers(INT64_MIN, INT64_MAX);
        v.push_back({"integers:4 s64", data_type::s64, i4});
    }
    post_ops ex;
    ex.append_exponential(2.f);
    v.push_back({"exponential f32", data_type::f32, ex});
    v.push_back({"exponential f16", data_type::f16, ex});
    v.push_back({"exponential f64", data_type::f64, ex});
    post_ops gu;
    gu.append_gumbel(-1.f, 0.5f);
    v.push_back({"gumbel f32", data_type::f32, gu});
    v.push_back({"gumbel bf16", data_type::bf16, gu});
    v.push_back({"gumbel f64", data_type::f64, gu});
    post_ops lp;
    lp.append_laplace(1.f, 0.25f);
    v.push_back({"laplace f32", data_type::f32, lp});
    v.push_back({"laplace f16", data_type::f16, lp});
    v.push_back({"laplace f64", data_type::f64, lp});
    post_ops ry;
    ry.append_rayleigh(1.5f);
    v.push_back({"rayleigh f32", data_type::f32, ry});
    v.push_back({"rayleigh bf16", data_type::bf16, ry});
    v.push_back({"rayleigh f64", data_type::f64, ry});
    post_ops ln;
    ln.append_lognormal(0.5f, 1.5f);
    v.push_back({"lognormal f32", data_type::f32, ln});
    v.push_back({"lognormal f16", data_type::f16, ln});
    v.push_back({"lognormal f64", data_type::f64, ln});
    // Offsets stay below 10^5 and tensors small: every element below n.
    post_ops pm;
    pm.append_permutation(int64_t(1) << 33);
    v.push_back({"permutation s64", data_type::s64, pm});
    post_ops tn;
    tn.append_truncated_normal(0.5f, 2.f, -1.f, 7.f);
    v.push_back({"truncated_normal f32", data_type::f32, tn});
    v.push_back({"truncated_normal bf16", data_type::bf16, tn});
    v.push_back({"truncated_normal f16", data_type::f16, tn});
    return v;
}

// Cut points of [0, n): sorted, starting at 0.
std::vector<dim_t> cuts(std::mt19937_64 &g, dim_t n) {
    std::vector<dim_t> c = {0};
    const int k = static_cast<int>(g() % 4);
    for (int i = 0; i < k && n > 1; ++i)
        c.push_back(1 + static_cast<dim_t>(g() % static_cast<uint64_t>(n - 1)));
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
}

// Element i of a dense tensor of type dt equals element j of another.
bool same_element(data_type dt, const std::vector<uint8_t> &a, dim_t i,
        const std::vector<uint8_t> &b, dim_t j) {
    if (dt == data_type::bit) return get_bit(a.data(), i) == get_bit(b.data(), j);
    const size_t es = dt_bits(dt) / 8;
    return std::memcmp(&a[i * es], &b[j * es], es) == 0;
}


// The row-major index over `gdims` of element i of a block of dims
// `shape` at `org`.
dim_t global_index(const dims &shape, const dims &org, const dims &gdims,
        dim_t i) {
    const int rank = static_cast<int>(shape.size());
    dim_t rest = i, gi = 0, stride = 1;
    dims idx(rank);
    for (int j = rank - 1; j >= 0; --j) {
        idx[j] = rest % shape[j];
        rest /= shape[j];
    }
    for (int j = rank - 1; j >= 0; --j) {
        gi += (org[j] + idx[j]) * stride;
        stride *= gdims[j];
    }
    return gi;
}

// Calls f(origin, block dims) for every block of a random grid of cuts of
// `global` (a random partition into boxes).
template <typename F>
void for_each_block(std::mt19937_64 &g, const dims &global, const F &f) {
    const int rank = static_cast<int>(global.size());
    std::vector<std::vector<dim_t>> c(rank);
    for (int j = 0; j < rank; ++j)
        c[j] = cuts(g, global[j]);
    std::vector<size_t> at(rank, 0);
    for (;;) {
        dims origin(rank), local(rank);
        for (int j = 0; j < rank; ++j) {
            origin[j] = c[j][at[j]];
            local[j] = (at[j] + 1 < c[j].size() ? c[j][at[j] + 1] : global[j])
                    - origin[j];
        }
        f(origin, local);
        int j = rank - 1;
        while (j >= 0 && ++at[j] == c[j].size())
            at[j--] = 0;
        if (j < 0) return;
    }
}
} // namespace

// At every tier of tier_params() (the parameter, as the ISA cap).
class RngWindowTier : public rndnn::test::tier_suite_t {};

TEST_P(RngWindowTier, PartitionsHoldTheWholeTensor) {
    std::mt19937_64 g(2026);
    for (rng_alg alg : rng_algs())
        for (const dist_case_t &dc : dist_cases(alg))
            for (int trial = 0; trial < 3; ++trial) {
                const int rank = 1 + static_cast<int>(g() % 4);
                dims global(rank);
                for (dim_t &d : global)
                    d = 1 + static_cast<dim_t>(g() % (rank == 1 ? 300 : 23));
                run_args_t r;
                r.seed = static_cast<int64_t>(g());
                r.offset = static_cast<int64_t>(g() % 100000);
                r.stream = static_cast<int64_t>(g() % 7);
                r.nthr = 1 + static_cast<int>(g() % 3);
                primitive_attr attr;
                attr.set_post_ops(dc.po);
                attr.set_max_cpu_isa(GetParam());
                rng::desc whole_d(alg, memory::desc(global, dc.dt));
                if (alg == rng_alg::multfly) whole_d.name = "layer.1";
                std::vector<uint8_t> whole(whole_d.dst.get_size() + 1);
                generate(whole_d, attr, whole.data(), r);

                for_each_block(g, global, [&](const dims &origin,
                                                  const dims &local) {
                    SCOPED_TRACE(impl::cat(alg2str(alg), " ", dc.name,
                            " global ", impl::dims2str(global), " origin ",
                            impl::dims2str(origin), " block ",
                            impl::dims2str(local), " nthr ", r.nthr, " cap ",
                            isa2str(attr.get_max_cpu_isa())));
                    rng::desc d = whole_d;
                    d.dst = memory::desc(local, dc.dt);
                    d.global_dims = global;
                    d.origin = origin;
                    std::vector<uint8_t> block(d.dst.get_size() + 1);
                    generate(d, attr, block.data(), r);
                    for (dim_t i = 0; i < d.dst.nelems(); ++i) {
                        const dim_t gi = global_index(local, origin, global, i);
                        ASSERT_TRUE(same_element(dc.dt, block, i, whole, gi))
                                << "element " << i << " (global " << gi << ")";
                    }
                });
            }
}

// Bernoulli with a p tensor: the blocks of a partition, each with its
// block of the p tensor (1 where p broadcasts), hold the whole tensor's
// values, at this tier, on 1 to 3 threads.
TEST_P(RngWindowTier, PTensorPartitionsHoldTheWholeTensor) {
    std::mt19937_64 g(34);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    for (rng_alg alg : rng_algs()) {
        if (alg == rng_alg::mcg31m1) continue; // 31-bit words: refused
        for (data_type dt : {data_type::bit, data_type::u8})
            for (int trial = 0; trial < 2; ++trial) {
                const int rank = 1 + static_cast<int>(g() % 4);
                dims global(rank), pglobal(rank);
                for (int j = 0; j < rank; ++j) {
                    global[j] = 1 + static_cast<dim_t>(g() % (rank == 1 ? 300 : 23));
                    pglobal[j] = g() % 3 == 0 ? 1 : global[j];
                }
                const data_type pdt = trial == 1 ? data_type::bf16 : data_type::f32;
                const memory::desc pmd(pglobal, pdt);
                std::vector<uint16_t> p(static_cast<size_t>(pmd.nelems() * 2));
                for (dim_t i = 0; i < pmd.nelems(); ++i) {
                    const float v = i % 7 == 0 ? float(i % 2) : u(g);
                    if (pdt == data_type::bf16)
                        p[i] = impl::f32_to_bf16(v);
                    else
                        std::memcpy(&p[2 * i], &v, 4);
                }
                const int nthr = 1 + static_cast<int>(g() % 3);
                primitive_attr attr;
                post_ops po;
                po.append_bernoulli(0.5);
                attr.set_post_ops(po);
                attr.set_max_cpu_isa(GetParam());
                // d's values with the p tensor pd over pdata.
                auto draw = [&](rng::desc d, const memory::desc &pd,
                                    void *pdata) {
                    d.p_tensor = pd;
                    d.with_offset = true;
                    if (alg == rng_alg::multfly) d.name = "layer.1";
                    std::vector<uint8_t> out(d.dst.get_size() + 1);
                    rng(rng::primitive_desc(d, attr))
                            .execute(stream(nthr),
                                    {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                                            {RNDNN_ARG_SRC, memory(pd, pdata)},
                                            {RNDNN_ARG_SEED,
                                                    memory::scalar(int64_t(5))},
                                            {RNDNN_ARG_OFFSET,
                                                    memory::scalar(int64_t(77))}});
                    return out;
                };
                const rng::desc whole_d(alg, memory::desc(global, dt));
                const auto whole = draw(whole_d, pmd, p.data());
                for_each_block(g, global, [&](const dims &origin,
                                                  const dims &local) {
                    // The block's p: p's dims, the block's where p has them.
                    dims plocal(rank), porigin(rank);
                    for (int j = 0; j < rank; ++j) {
                        plocal[j] = pglobal[j] == 1 ? 1 : local[j];
                        porigin[j] = pglobal[j] == 1 ? 0 : origin[j];
                    }
                    const memory::desc pbd(plocal, pdt);
                    const size_t es = dt_bits(pdt) / 8;
                    std::vector<uint8_t> pb(pbd.get_size() + 4);
                    for (dim_t i = 0; i < pbd.nelems(); ++i)
                        std::memcpy(&pb[i * es],
                                reinterpret_cast<const uint8_t *>(p.data())
                                        + global_index(plocal, porigin,
                                                  pglobal, i) * es,
                                es);
                    rng::desc d = whole_d;
                    d.dst = memory::desc(local, dt);
                    d.global_dims = global;
                    d.origin = origin;
                    SCOPED_TRACE(impl::cat(alg2str(alg), " ", dt2str(dt),
                            " p ", dt2str(pdt), " ", impl::dims2str(pglobal),
                            " global ", impl::dims2str(global), " origin ",
                            impl::dims2str(origin), " block ",
                            impl::dims2str(local), " nthr ", nthr));
                    const auto block = draw(d, pbd, pb.data());
                    for (dim_t i = 0; i < d.dst.nelems(); ++i) {
                        const dim_t gi = global_index(local, origin, global, i);
                        ASSERT_TRUE(same_element(dt, block, i, whole, gi))
                                << "element " << i << " (global " << gi << ")";
                    }
                });
            }
    }
}

INSTANTIATE_TEST_SUITE_P(Tiers, RngWindowTier,
        ::testing::ValuesIn(tier_params()), tier_param_name);

TEST(RngWindow, NextOffsetAdvancesByTheGlobalTensor) {
    rng::desc d(rng_alg::philox4x32_10, memory::desc({2, 3}, data_type::u32));
    d.global_dims = {4, 5};
    d.origin = {1, 2};
    d.with_offset = true;
    d.with_next_offset = true;
    rng prim {rng::primitive_desc(d)};
    std::vector<uint32_t> buf(6);
    int64_t next = 0;
    prim.execute(stream(1),
            {{RNDNN_ARG_DST, memory(d.dst, buf.data())},
                    {RNDNN_ARG_SEED, memory::scalar(int64_t(1))},
                    {RNDNN_ARG_OFFSET, memory::scalar(int64_t(10))},
                    {RNDNN_ARG_NEXT_OFFSET,
                            memory(memory::desc({1}, data_type::s64), &next)}});
    EXPECT_EQ(next, 30);
    EXPECT_NE(std::string(prim.get_primitive_desc().info()).find(
                      "window=4x5@1x2"),
            std::string::npos);
}

TEST(RngWindow, BadWindowsNameTheValue) {
    auto pd = [](const dims &local, const dims &global, const dims &origin) {
        rng::desc d(rng_alg::philox4x32_10, memory::desc(local, data_type::u32));
        d.global_dims = global;
        d.origin = origin;
        rng::primitive_desc p(d);
    };
    EXPECT_ERROR_NAMES(pd({2}, {}, {1}), "origin 1 is given without global dims");
    EXPECT_ERROR_NAMES(pd({2, 2}, {4}, {}), "same rank");
    EXPECT_ERROR_NAMES(pd({2, 2}, {4, 4}, {3, 0}), "do not fit the global dims 4x4 (dim 0)");
    EXPECT_ERROR_NAMES(pd({2}, {4}, {-1}), "origin -1");
    EXPECT_ERROR_NAMES(pd({2, 2}, {int64_t(1) << 40, int64_t(1) << 40}, {}),
            "hold more than 2^63 - 1 elements");
}

namespace {

// Runs dropout `d` (f32 data) on src into dst and mask buffers.
void run_dropout(const dropout::desc &d, std::vector<float> &src,
        std::vector<float> &dst, std::vector<uint8_t> &mask, int nthr,
        int64_t seed, int64_t offset) {
    dropout prim {dropout::primitive_desc(d)};
    const bool bwd = d.prop == prop_kind::backward;
    std::unordered_map<int, memory> args {
            {bwd ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC,
                    memory(d.src, src.data())},
            {bwd ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST,
                    memory(d.dst, dst.data())},
            {RNDNN_ARG_SEED, memory::scalar(seed)},
            {RNDNN_ARG_OFFSET, memory::scalar(offset)}};
    if (!d.mask.is_zero()) args[RNDNN_ARG_MASK] = memory(d.mask, mask.data());
    prim.execute(stream(nthr), args);
}

} // namespace

// Dropout over the blocks of a partition of a global tensor (with and
// without a broadcast noise shape, bit, u8 or no mask, forward and both
// backwards) gives the whole tensor's dst and mask.
TEST(DropoutWindow, PartitionsGiveTheWholeTensorsDropout) {
    std::mt19937_64 g(99);
    for (int trial = 0; trial < 24; ++trial) {
        const int rank = 1 + static_cast<int>(g() % 3);
        dims global(rank), noise(rank);
        for (int j = 0; j < rank; ++j) {
            global[j] = 1 + static_cast<dim_t>(g() % (rank == 1 ? 500 : 40));
            noise[j] = trial % 2 && g() % 2 ? 1 : global[j];
        }
        const data_type mdt = trial % 3 == 0 ? data_type::undef
                : trial % 3 == 1             ? data_type::bit
                                             : data_type::u8;
        const prop_kind prop = trial % 4 == 3 ? prop_kind::backward
                                              : prop_kind::forward_training;
        const int64_t seed = static_cast<int64_t>(g()), offset = g() % 1000;
        const int nthr = 1 + static_cast<int>(g() % 3);
        dropout::desc wd;
        wd.prop = prop;
        wd.src = wd.dst = memory::desc(global, data_type::f32);
        wd.noise_shape = noise;
        wd.rate = 0.3;
        wd.with_offset = true;
        if (mdt != data_type::undef) wd.mask = memory::desc(noise, mdt);
        const dim_t n = wd.src.nelems();
        std::vector<float> src(n), whole(n);
        for (dim_t i = 0; i < n; ++i)
            src[i] = static_cast<float>(i % 97) - 40.f;
        // Backward with a stored mask reads the forward's mask.
        std::vector<uint8_t> whole_mask(wd.mask.is_zero() ? 1 : wd.mask.get_size());
        if (prop == prop_kind::backward && mdt != data_type::undef) {
            dropout::desc f = wd;
            f.prop = prop_kind::forward_training;
            std::vector<float> tmp(n);
            run_dropout(f, src, tmp, whole_mask, 1, seed, offset);
        }
        run_dropout(wd, src, whole, whole_mask, 1, seed, offset);

        for_each_block(g, global, [&](const dims &origin, const dims &local) {
            dims lnoise(rank);
            for (int j = 0; j < rank; ++j)
                lnoise[j] = noise[j] == 1 ? 1 : local[j];
            SCOPED_TRACE(impl::cat("global ", impl::dims2str(global),
                    " noise ", impl::dims2str(noise), " origin ",
                    impl::dims2str(origin), " block ", impl::dims2str(local),
                    " mask ", mdt == data_type::undef ? "none" : dt2str(mdt),
                    prop == prop_kind::backward ? " backward" : "",
                    " nthr ", nthr));
            dropout::desc d = wd;
            d.src = d.dst = memory::desc(local, data_type::f32);
            d.global_dims = global;
            d.origin = origin;
            if (mdt != data_type::undef) d.mask = memory::desc(lnoise, mdt);
            const dim_t bn = d.src.nelems();
            std::vector<float> bsrc(bn), bdst(bn);
            std::vector<uint8_t> bmask(d.mask.is_zero() ? 1 : d.mask.get_size() + 1);
            dims norigin(rank);
            for (int j = 0; j < rank; ++j)
                norigin[j] = noise[j] == 1 ? 0 : origin[j];
            for (dim_t i = 0; i < bn; ++i)
                bsrc[i] = src[global_index(local, origin, global, i)];
            if (prop == prop_kind::backward && mdt != data_type::undef)
                for (dim_t i = 0; i < d.mask.nelems(); ++i) {
                    const dim_t gi = global_index(lnoise, norigin, noise, i);
                    if (mdt == data_type::u8) bmask[i] = whole_mask[gi];
                    else if (get_bit(whole_mask.data(), gi))
                        bmask[i / 8] = static_cast<uint8_t>(
                                bmask[i / 8] | (1u << (i % 8)));
                }
            run_dropout(d, bsrc, bdst, bmask, nthr, seed, offset);
            for (dim_t i = 0; i < bn; ++i) {
                const float want = whole[global_index(local, origin, global, i)];
                ASSERT_EQ(std::memcmp(&bdst[i], &want, 4), 0)
                        << "element " << i << ": " << bdst[i] << " vs " << want;
            }
            if (prop != prop_kind::backward && mdt != data_type::undef)
                for (dim_t i = 0; i < d.mask.nelems(); ++i) {
                    const dim_t gi = global_index(lnoise, norigin, noise, i);
                    const int want = mdt == data_type::u8
                            ? whole_mask[gi]
                            : get_bit(whole_mask.data(), gi);
                    const int got = mdt == data_type::u8
                            ? bmask[i]
                            : get_bit(bmask.data(), i);
                    ASSERT_EQ(got, want) << "mask element " << i;
                }
        });
    }
}

// A block of whole rows without a broadcast is one range of the global
// mask: it runs as a plain problem (one fused kernel where the JIT has
// one), with the same values as the whole tensor and next_offset past the
// whole mask; a block of columns generates its noise mask first.
TEST(DropoutWindow, BlocksOfWholeRowsRunAsAPlainProblem) {
    const dims global = {8, 3, 40};
    dropout::desc wd;
    wd.src = wd.dst = memory::desc(global, data_type::f32);
    wd.rate = 0.4;
    wd.with_offset = true;
    const dim_t n = wd.src.nelems();
    std::vector<float> src(n, 1.f), whole(n);
    std::vector<uint8_t> no_mask(1);
    run_dropout(wd, src, whole, no_mask, 2, 5, 77);

    dropout::desc rows = wd;
    rows.src = rows.dst = memory::desc({3, 3, 40}, data_type::f32);
    rows.global_dims = global;
    rows.origin = {4, 0, 0};
    rows.with_next_offset = true;
    const dropout::primitive_desc pd(rows);
#if RNDNN_ENABLE_JIT
    // One kernel: no noise mask generated before.
    const std::string name = pd.impl_name();
    EXPECT_TRUE(name.rfind("fused:", 0) == 0 && name.find('+') == name.npos)
            << name;
#endif
    std::vector<float> bsrc(360, 1.f), bdst(360);
    int64_t next = -1;
    dropout(pd).execute(stream(2),
            {{RNDNN_ARG_SRC, memory(rows.src, bsrc.data())},
                    {RNDNN_ARG_DST, memory(rows.dst, bdst.data())},
                    {RNDNN_ARG_SEED, memory::scalar(int64_t(5))},
                    {RNDNN_ARG_OFFSET, memory::scalar(int64_t(77))},
                    {RNDNN_ARG_NEXT_OFFSET,
                            memory(memory::desc({1}, data_type::s64), &next)}});
    EXPECT_EQ(std::memcmp(bdst.data(), whole.data() + 4 * 120, 360 * 4), 0);
    EXPECT_EQ(next, 77 + n);

    dropout::desc cols = wd;
    cols.src = cols.dst = memory::desc({8, 3, 10}, data_type::f32);
    cols.global_dims = global;
    cols.origin = {0, 0, 30};
#if RNDNN_ENABLE_JIT
    // The block's noise mask, generated first, then the fused kernel.
    EXPECT_NE(std::string(dropout::primitive_desc(cols).impl_name()).find('+'),
            std::string::npos);
#endif
}
