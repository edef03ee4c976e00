// The dropout pipeline: binary primitive (bit and oneDNN paths) and the
// dropout composer, against scalar references written here.
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>

#include "rng/distributions.hpp"
#include "src/utils.hpp"
#include "tests/test_utils.hpp"

namespace rndnn {
namespace test {
namespace {

// A tensor in a buffer of its own, with padding prefilled with garbage.
struct tensor_t {
    memory::desc md;
    std::vector<unsigned char> buf;
    explicit tensor_t(const memory::desc &amd)
        : md(amd), buf(std::max<size_t>(amd.get_size(), 1), 0xa5) {}
    memory mem() { return memory(md, buf.data()); }
    int64_t pos(int64_t i) const { // logical row-major index -> position
        int64_t p = md.get_offset0();
        for (int d = md.get_ndims(); d-- > 0;) {
            p += (i % md.get_dims()[d]) * md.get_strides()[d];
            i /= md.get_dims()[d];
        }
        return p;
    }
    float get(int64_t i) const {
        const int64_t p = pos(i);
        switch (md.get_data_type()) {
            case data_type::bf16: {
                uint16_t h;
                std::memcpy(&h, buf.data() + 2 * p, 2);
                return impl::bf16_to_f32(h);
            }
            case data_type::f16: {
                uint16_t h;
                std::memcpy(&h, buf.data() + 2 * p, 2);
                return impl::f16_to_f32(h);
            }
            case data_type::u8: return buf[p];
            case data_type::bit: return static_cast<float>(get_bit(buf.data(), p));
            default: {
                float f;
                std::memcpy(&f, buf.data() + 4 * p, 4);
                return f;
            }
        }
    }
    // Raw bits of element i (f32: 32 bits, bf16/f16: 16).
    uint32_t raw(int64_t i) const {
        const int64_t p = pos(i);
        if (md.get_data_type() == data_type::f32) {
            uint32_t u;
            std::memcpy(&u, buf.data() + 4 * p, 4);
            return u;
        }
        uint16_t h;
        std::memcpy(&h, buf.data() + 2 * p, 2);
        return h;
    }
    void set(int64_t i, float v) {
        const int64_t p = pos(i);
        switch (md.get_data_type()) {
            case data_type::bf16: {
                const uint16_t h = impl::f32_to_bf16(v);
                std::memcpy(buf.data() + 2 * p, &h, 2);
                break;
            }
            case data_type::f16: {
                const uint16_t h = impl::f32_to_f16(v);
                std::memcpy(buf.data() + 2 * p, &h, 2);
                break;
            }
            case data_type::bit: {
                auto &b = buf[p >> 3];
                b = static_cast<unsigned char>(v != 0.f ? b | 1u << (p & 7)
                                                        : b & ~(1u << (p & 7)));
                break;
            }
            case data_type::u8: buf[p] = static_cast<unsigned char>(v); break;
            default: std::memcpy(buf.data() + 4 * p, &v, 4);
        }
    }
    int64_t n() const { return md.nelems(); }
};

// Rounds an f32 value to dt and back, as the kernels store it.
uint32_t rounded_bits(data_type dt, float v) {
    if (dt == data_type::bf16) return impl::f32_to_bf16(v);
    if (dt == data_type::f16) return impl::f32_to_f16(v);
    return impl::float_bits(v);
}

// Values that exercise rounding, signed zeros and non-finite inputs.
void fill_values(tensor_t &t, uint32_t seed) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(-4.f, 4.f);
    const float specials[] = {0.f, -0.f, std::numeric_limits<float>::infinity(),
            -std::numeric_limits<float>::infinity(),
            std::numeric_limits<float>::quiet_NaN(), 1e-40f, 65504.f, 3e38f};
    for (int64_t i = 0; i < t.n(); ++i)
        t.set(i, g() % 16 == 0 ? specials[g() % 8] : u(g));
}

// The data index i's noise index (row-major in the noise shape).
int64_t noise_index(const dims &data, const dims &noise, int64_t i) {
    int64_t m = 0, mul = 1;
    for (size_t d = data.size(); d-- > 0;) {
        const int64_t idx = i % data[d];
        i /= data[d];
        if (noise[d] != 1) m += idx * mul;
        mul *= noise[d];
    }
    return m;
}

struct problem_t {
    dims shape = {3, 1000};
    dims noise; // empty: the data's
    data_type dt = data_type::f32;
    double rate = 0.3;
    rng_alg alg = rng_alg::philox4x32_10;
    bernoulli_method method = bernoulli_method::threshold32;
    int bits = 1;
    data_type mask_dt = data_type::undef; // undef: no mask
    bool padded = false; // data in padded buffers
    bool in_place = false;
    int nthr = 1;
    dropout_plan plan = dropout_plan::any;
    int64_t seed = -77, offset = 13, strm = 5;
    cpu_isa isa = cpu_isa::all; // no cap
};

memory::desc data_md(const problem_t &p) {
    if (!p.padded) return memory::desc(p.shape, p.dt);
    const dims before(p.shape.size(), 1), after(p.shape.size(), 2);
    return memory::pad(p.shape, p.dt, before, after).md;
}

dropout::desc make_desc(const problem_t &p, prop_kind prop) {
    dropout::desc d;
    d.prop = prop;
    d.src = d.dst = data_md(p);
    d.noise_shape = p.noise;
    if (p.mask_dt != data_type::undef)
        d.mask = memory::desc(p.noise.empty() ? p.shape : p.noise, p.mask_dt);
    d.rate = p.rate;
    d.alg = p.alg;
    d.method = p.method;
    d.bits = p.bits;
    d.with_offset = true;
    d.plan = p.plan;
    return d;
}

primitive_attr isa_attr(cpu_isa isa) {
    primitive_attr a;
    a.set_max_cpu_isa(isa);
    return a;
}

// The keep mask over the noise shape from the RNG primitive (reference).
std::vector<uint8_t> keep_mask(const problem_t &p) {
    const dims noise = p.noise.empty() ? p.shape : p.noise;
    rng::desc rd(p.alg, memory::desc(noise, data_type::u8));
    post_ops po;
    po.append_bernoulli(1.0 - p.rate, p.method, p.bits);
    primitive_attr a = isa_attr(cpu_isa::none);
    a.set_post_ops(po);
    std::vector<uint8_t> m(std::max<size_t>(rd.dst.get_size(), 1));
    run_args_t r;
    r.seed = p.seed;
    r.offset = p.offset;
    r.stream = p.strm;
    generate(rd, a, m.data(), r);
    return m;
}

struct result_t {
    tensor_t dst, mask;
};

// Runs dropout forward on src (a copy of it when in place).
result_t run_fwd(const problem_t &p, const tensor_t &src,
        std::string *impl = nullptr) {
    const dropout::desc d = make_desc(p, prop_kind::forward_training);
    dropout prim {dropout::primitive_desc(d, isa_attr(p.isa))};
    if (impl) *impl = prim.get_primitive_desc().impl_name();
    result_t r {tensor_t(d.dst), tensor_t(d.mask.is_zero() ? memory::desc({0}, data_type::u8) : d.mask)};
    tensor_t s = src;
    memory sm = s.mem();
    memory dm = p.in_place ? sm : r.dst.mem();
    std::unordered_map<int, memory> args = {{RNDNN_ARG_SRC, sm},
            {RNDNN_ARG_DST, dm}, {RNDNN_ARG_SEED, memory::scalar(p.seed)},
            {RNDNN_ARG_OFFSET, memory::scalar(p.offset)},
            {RNDNN_ARG_STREAM, memory::scalar(p.strm)}};
    if (!d.mask.is_zero()) args[RNDNN_ARG_MASK] = r.mask.mem();
    prim.execute(stream(p.nthr), args);
    if (p.in_place) r.dst = s;
    return r;
}

// Expects dst == keep ? fma(scale, src, -0) : +0, rounded to the data type,
// bit for bit, with keep from the RNG reference.
void expect_reference(const problem_t &p, const tensor_t &src,
        const tensor_t &dst, const std::string &what) {
    const std::vector<uint8_t> keep = keep_mask(p);
    const dims noise = p.noise.empty() ? p.shape : p.noise;
    const float scale
            = p.rate == 1.0 ? 0.f : static_cast<float>(1.0 / (1.0 - p.rate));
    int bad = 0;
    for (int64_t i = 0; i < src.n() && bad < 5; ++i) {
        const bool k = keep[noise_index(p.shape, noise, i)];
        const float want = k ? std::fma(scale, src.get(i), -0.f) : 0.f;
        const uint32_t w = rounded_bits(p.dt, want), got = dst.raw(i);
        const bool both_nan = std::isnan(want) && std::isnan(dst.get(i));
        if (w != got && !both_nan) {
            ADD_FAILURE() << what << ": element " << i << " keep=" << k
                          << " src=" << src.get(i) << " want=" << want
                          << " got=" << dst.get(i);
            ++bad;
        }
    }
}

TEST(Binary, BitMulSelectsWithBroadcastAndPostOps) {
    for (data_type dt : {data_type::f32, data_type::bf16, data_type::f16})
        for (const dims &s1 : {dims {4, 37}, dims {4, 1}, dims {1, 37},
                     dims {1, 1}}) {
            tensor_t a(memory::desc({4, 37}, dt)), m(memory::desc(s1, data_type::bit)),
                    out(memory::desc({4, 37}, dt));
            fill_values(a, 3);
            std::mt19937 g(9);
            for (int64_t i = 0; i < m.n(); ++i)
                m.set(i, static_cast<float>(g() & 1));
            post_ops po;
            po.append_linear(2.5f, -0.f);
            po.append_linear(1.f, 0.25f);
            primitive_attr attr;
            attr.set_post_ops(po);
            binary prim {binary::primitive_desc(
                    {binary_alg::mul, a.md, m.md, out.md}, attr)};
            prim.execute(stream(2),
                    {{RNDNN_ARG_SRC_0, a.mem()}, {RNDNN_ARG_SRC_1, m.mem()},
                            {RNDNN_ARG_DST, out.mem()}});
            for (int64_t i = 0; i < a.n(); ++i) {
                const int64_t r = i / 37, c = i % 37;
                const int64_t mi = (s1[0] == 1 ? 0 : r) * s1[1]
                        + (s1[1] == 1 ? 0 : c);
                const float x = m.get(mi) != 0.f ? a.get(i) : 0.f;
                const float want = std::fma(1.f, std::fma(2.5f, x, -0.f), 0.25f);
                if (std::isnan(want)) {
                    EXPECT_TRUE(std::isnan(out.get(i)));
                } else {
                    EXPECT_EQ(out.raw(i), rounded_bits(dt, want))
                            << dt2str(dt) << " " << i;
                }
            }
        }
}

// A broadcast bit src1 whose rows are strided (every other bit) and one
// whose whole row shares a bit: both read row by row.
TEST(Binary, BitMulBroadcastsStridedAndSharedRows) {
    for (const memory::desc &md1 :
            {memory::desc({1, 37}, data_type::bit, {80, 2}, 3),
                    memory::desc({4, 1}, data_type::bit, {3, 1}, 5)}) {
        tensor_t a(memory::desc({4, 37}, data_type::f32)), m(md1),
                out(memory::desc({4, 37}, data_type::f32));
        fill_values(a, 6);
        std::mt19937 g(3);
        for (int64_t i = 0; i < m.n(); ++i)
            m.set(i, static_cast<float>(g() & 1));
        binary {binary::primitive_desc({binary_alg::mul, a.md, m.md, out.md})}
                .execute(stream(1),
                        {{RNDNN_ARG_SRC_0, a.mem()}, {RNDNN_ARG_SRC_1, m.mem()},
                                {RNDNN_ARG_DST, out.mem()}});
        for (int64_t i = 0; i < a.n(); ++i) {
            const int64_t mi = md1.get_dims()[0] == 1 ? i % 37 : i / 37;
            const float want = m.get(mi) != 0.f ? a.get(i) : 0.f;
            ASSERT_EQ(out.raw(i), impl::float_bits(want)) << md1.str() << " " << i;
        }
    }
}

TEST(Binary, BitAddAndInPlaceStrided) {
    const auto pad = memory::pad({5, 70}, data_type::f32, {1, 2}, {0, 3});
    tensor_t a(pad.md), m(memory::desc({5, 70}, data_type::bit, {80, 1}, 3));
    fill_values(a, 4);
    const tensor_t a0 = a;
    for (int64_t i = 0; i < m.n(); ++i)
        m.set(i, static_cast<float>(i % 3 == 0));
    binary prim {binary::primitive_desc({binary_alg::add, a.md, m.md, a.md})};
    memory am = a.mem();
    prim.execute(stream(1),
            {{RNDNN_ARG_SRC_0, am}, {RNDNN_ARG_SRC_1, m.mem()},
                    {RNDNN_ARG_DST, am}});
    for (int64_t i = 0; i < a.n(); ++i) {
        const float want = a0.get(i) + (i % 3 == 0 ? 1.f : 0.f);
        if (!std::isnan(want)) {
            EXPECT_EQ(a.get(i), want) << i;
        }
    }
    // The padding kept its garbage.
    EXPECT_EQ(a.buf[0], 0xa5);
}

TEST(Binary, NonBitSrc1GoesToOneDNN) {
    tensor_t a(memory::desc({3, 50}, data_type::f32)),
            m(memory::desc({3, 1}, data_type::u8)),
            out(memory::desc({3, 50}, data_type::f32));
    fill_values(a, 5);
    m.set(0, 1);
    m.set(1, 0);
    m.set(2, 3);
    post_ops po;
    po.append_linear(0.5f, 1.f);
    primitive_attr attr;
    attr.set_post_ops(po);
    binary::primitive_desc pd({binary_alg::mul, a.md, m.md, out.md}, attr);
    EXPECT_EQ(std::string(pd.impl_name()).rfind("onednn:", 0), 0u)
            << pd.impl_name();
    binary {pd}.execute(stream(2),
            {{RNDNN_ARG_SRC_0, a.mem()}, {RNDNN_ARG_SRC_1, m.mem()},
                    {RNDNN_ARG_DST, out.mem()}});
    for (int64_t i = 0; i < a.n(); ++i) {
        const float want = 0.5f * (a.get(i) * m.get(i / 50)) + 1.f;
        if (std::isfinite(want)) {
            EXPECT_NEAR(out.get(i), want, 1e-6f * std::fabs(want)) << i;
        }
    }
}

TEST(Binary, BadProblemsNameTheValue) {
    const memory::desc f({2, 8}, data_type::f32), b({2, 8}, data_type::bit);
    EXPECT_ERROR_NAMES(binary::primitive_desc(
                               {binary_alg::mul, f, memory::desc({3, 8}, data_type::bit), f}),
            "3x8");
    EXPECT_ERROR_NAMES(binary::primitive_desc({binary_alg::mul,
                               memory::desc({2, 8}, data_type::s32), b,
                               memory::desc({2, 8}, data_type::s32)}),
            "s32");
    EXPECT_ERROR_NAMES(binary::primitive_desc({binary_alg::mul, f, b,
                               memory::desc({2, 8}, data_type::bf16)}),
            "dst");
    post_ops po;
    po.append_bernoulli(0.5);
    primitive_attr attr;
    attr.set_post_ops(po);
    EXPECT_ERROR_NAMES(binary::primitive_desc({binary_alg::mul, f, b, f}, attr),
            "linear");
    EXPECT_ERROR_NAMES(binary::primitive_desc({static_cast<binary_alg>(5), f, b, f}),
            "binary algorithm value 5 is not a binary_alg");
    primitive_attr bad_isa;
    bad_isa.set_max_cpu_isa(static_cast<cpu_isa>(17));
    EXPECT_ERROR_NAMES(binary::primitive_desc({binary_alg::mul, f, b, f}, bad_isa),
            "ISA cap value 17");
    post_ops inf;
    inf.append_linear(std::numeric_limits<float>::infinity(), 0.f);
    attr.set_post_ops(inf);
    EXPECT_ERROR_NAMES(binary::primitive_desc({binary_alg::mul, f, b, f}, attr),
            "alpha=inf");
    // Arguments are checked before anything is written.
    binary prim {binary::primitive_desc({binary_alg::mul, f, b, f})};
    tensor_t x(f), y(b), z(memory::desc({2, 9}, data_type::f32));
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_SRC_0, x.mem()},
                                       {RNDNN_ARG_DST, x.mem()}}),
            "src1");
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_SRC_0, x.mem()},
                                       {RNDNN_ARG_SRC_1, y.mem()},
                                       {RNDNN_ARG_DST, z.mem()}}),
            "2x9");
    // The RNG refuses linear post-ops.
    rng::desc rd(rng_alg::philox4x32_10, memory::desc({8}, data_type::u32));
    post_ops lin;
    lin.append_linear(1.f, 0.f);
    primitive_attr la;
    la.set_post_ops(lin);
    EXPECT_ERROR_NAMES(rng::primitive_desc(rd, la), "linear");
}

// Forward training against the reference for one problem, every plan.
void check_forward(problem_t p, const char *what) {
    tensor_t src(data_md(p));
    fill_values(src, static_cast<uint32_t>(p.shape.back()));
    std::string first_mask;
    for (dropout_plan plan : {dropout_plan::chain, dropout_plan::any}) {
        p.plan = plan;
        std::string impl;
        const result_t r = run_fwd(p, src, &impl);
        const std::string tag = std::string(what) + " " + impl;
        expect_reference(p, src, r.dst, tag);
        if (p.mask_dt != data_type::undef) {
            const std::vector<uint8_t> keep = keep_mask(p);
            for (int64_t m = 0; m < r.mask.n(); ++m)
                ASSERT_EQ(r.mask.get(m), keep[m]) << tag << " mask " << m;
        }
    }
}

TEST(Dropout, ForwardMatchesReferenceOverTypesShapesAndMasks) {
    for (data_type dt : {data_type::f32, data_type::bf16, data_type::f16})
        for (data_type mdt : {data_type::undef, data_type::bit, data_type::u8})
            for (const dims &shape : {dims {1, 1}, dims {7, 9}, dims {2, 3, 4099},
                         dims {70000}}) {
                problem_t p;
                p.shape = shape;
                p.dt = dt;
                p.mask_dt = mdt;
                check_forward(p, "types");
            }
}

TEST(Dropout, ForwardOverMethodsAlgsThreadsAndLayouts) {
    problem_t p;
    p.shape = {3, 40000};
    p.mask_dt = data_type::bit;
    for (rng_alg alg : rng_algs()) {
        p.alg = alg;
        check_forward(p, alg2str(alg));
    }
    p.alg = rng_alg::philox4x32_10;
    for (int b : {1, 3}) {
        p.method = bernoulli_method::bitsliced;
        p.bits = b;
        p.rate = 0.5;
        check_forward(p, "bitsliced");
    }
    p.method = bernoulli_method::bytewise;
    p.rate = 0.3;
    check_forward(p, "bytewise");
    p.method = bernoulli_method::threshold32;
    p.nthr = 2;
    p.offset = 1000003;
    check_forward(p, "two threads");
    p.padded = true;
    check_forward(p, "padded");
    p.in_place = true;
    check_forward(p, "padded in place");
    p.padded = false;
    check_forward(p, "in place");
    p.isa = cpu_isa::none;
    check_forward(p, "reference kernels");
}

// The data and the forward problem of the large-tensor tests below:
// values in [-500, 512], rate 0.3, an offset argument.
memory large_data(const memory::desc &md) {
    memory x(md);
    auto *xs = static_cast<float *>(x.get_data_handle());
    for (dim_t i = 0; i < md.nelems(); ++i)
        xs[i] = static_cast<float>(i % 1013) - 500.f;
    return x;
}

dropout::desc large_desc(const memory::desc &md, const memory::desc &mmd,
        dropout_plan plan) {
    dropout::desc d;
    d.src = d.dst = md;
    d.mask = mmd;
    d.rate = 0.3;
    d.with_offset = true;
    d.plan = plan;
    return d;
}

// A u8 mask of at least 16 MiB is written non-temporally from its first
// 16-byte boundary on (pipeline/jit/jit_fused.cpp): the chain's bytes, with
// a mask offset (8 bytes) that leaves a head before that boundary, with two
// threads.
TEST(Dropout, LargeU8MaskStreamsTheSameBytes) {
    const dim_t n = (dim_t(1) << 24) + 37;
    const memory::desc md({n}, data_type::f32);
    const memory::desc mmd({n}, data_type::u8, {1}, 8);
    const memory x = large_data(md);
    std::vector<uint8_t> masks[2];
    for (dropout_plan plan : {dropout_plan::chain, dropout_plan::any}) {
        dropout prim {dropout::primitive_desc(large_desc(md, mmd, plan))};
        memory y(md), mask(mmd);
        prim.execute(stream(2),
                {{RNDNN_ARG_SRC, x}, {RNDNN_ARG_DST, y},
                        {RNDNN_ARG_MASK, mask},
                        {RNDNN_ARG_SEED, memory::scalar(int64_t(4))},
                        {RNDNN_ARG_OFFSET, memory::scalar(int64_t(32))}});
        const auto *m = static_cast<const uint8_t *>(mask.get_data_handle());
        masks[plan == dropout_plan::any].assign(m + 8, m + 8 + n);
        // (A build without JIT kernels has only the chain.)
        if (plan == dropout_plan::any && get_max_cpu_isa() != cpu_isa::none) {
            EXPECT_EQ(std::string(prim.get_primitive_desc().impl_name())
                              .rfind("fused:", 0),
                    0u)
                    << prim.get_primitive_desc().impl_name();
        }
    }
    EXPECT_TRUE(masks[0] == masks[1]);
}

// f32 data of at least 16 MiB goes through the fused kernel's
// non-temporal function where it is 64-byte aligned (memories that rndnn
// allocates are): the chain's bits, with two threads, in place or not.
TEST(Dropout, LargeDataStreamsTheSameBits) {
    const memory::desc md({1, (dim_t(1) << 22) + 37}, data_type::f32);
    const memory::desc mmd(md.get_dims(), data_type::bit);
    memory x = large_data(md), chain_y(md), chain_m(mmd);
    const auto *xs = static_cast<const float *>(x.get_data_handle());
    // The last byte's three bits past the tensor are nobody's: the same
    // in every mask (a memory rndnn allocates is not initialized).
    const auto clear = [&](memory &mask) {
        std::memset(mask.get_data_handle(), 0, mmd.get_size());
    };
    clear(chain_m);
    auto run = [&](dropout_plan plan, memory &src, memory &dst, memory &mask) {
        dropout prim {dropout::primitive_desc(large_desc(md, mmd, plan))};
        prim.execute(stream(2),
                {{RNDNN_ARG_SRC, src}, {RNDNN_ARG_DST, dst},
                        {RNDNN_ARG_MASK, mask},
                        {RNDNN_ARG_SEED, memory::scalar(int64_t(9))},
                        {RNDNN_ARG_OFFSET, memory::scalar(int64_t(3))}});
        return std::string(prim.get_primitive_desc().impl_name());
    };
    run(dropout_plan::chain, x, chain_y, chain_m);
    memory y(md), m(mmd), z(md), zm(mmd);
    clear(m);
    clear(zm);
    std::memcpy(z.get_data_handle(), xs, md.get_size());
    for (memory *out : {&y, &z}) {
        memory &mask = out == &y ? m : zm;
        const std::string impl = run(dropout_plan::any,
                out == &y ? x : z, *out, mask);
        SCOPED_TRACE(impl + (out == &z ? " in place" : ""));
        EXPECT_EQ(std::memcmp(out->get_data_handle(),
                          chain_y.get_data_handle(), md.get_size()),
                0);
        EXPECT_EQ(std::memcmp(mask.get_data_handle(),
                          chain_m.get_data_handle(), mmd.get_size()),
                0);
    }
    // Backward with the stored mask: the apply plan, which streams its
    // output too, against the chain.
    auto bwd = [&](dropout_plan plan, memory &dx) {
        dropout::desc d;
        d.prop = prop_kind::backward;
        d.src = d.dst = md;
        d.mask = mmd;
        d.rate = 0.3;
        d.plan = plan;
        dropout prim {dropout::primitive_desc(d)};
        prim.execute(stream(2),
                {{RNDNN_ARG_DIFF_DST, x}, {RNDNN_ARG_DIFF_SRC, dx},
                        {RNDNN_ARG_MASK, chain_m}});
        return std::string(prim.get_primitive_desc().impl_name());
    };
    memory dx_chain(md), dx(md);
    bwd(dropout_plan::chain, dx_chain);
    SCOPED_TRACE(bwd(dropout_plan::any, dx));
    EXPECT_EQ(std::memcmp(dx.get_data_handle(), dx_chain.get_data_handle(),
                      md.get_size()),
            0);
}

TEST(Dropout, NoiseShapeAndAxesShareTheMask) {
    problem_t p;
    p.shape = {4, 3, 50};
    for (const dims &noise : {dims {4, 3, 1}, dims {1, 3, 50}, dims {4, 1, 50},
                 dims {1, 1, 1}}) {
        p.noise = noise;
        for (data_type mdt : {data_type::undef, data_type::bit, data_type::u8}) {
            p.mask_dt = mdt;
            check_forward(p, "noise");
            tensor_t src(data_md(p));
            fill_values(src, 1);
            const result_t r = run_fwd(p, src);
            // Elements that share a mask element are kept or dropped
            // together.
            for (int64_t i = 0; i < src.n(); ++i) {
                const int64_t m = noise_index(p.shape, noise, i);
                if (mdt != data_type::undef && std::isfinite(src.get(i))
                        && src.get(i) != 0.f) {
                    EXPECT_EQ(r.dst.get(i) != 0.f, r.mask.get(m) != 0.f) << i;
                }
            }
        }
    }
    EXPECT_EQ(dropout::noise_shape_for_axes({4, 3, 50}, {0, -1}),
            (dims {1, 3, 1}));
    EXPECT_ERROR_NAMES(dropout::noise_shape_for_axes({4, 3}, {2}), "axis 2");
    EXPECT_ERROR_NAMES(dropout::noise_shape_for_axes({4, 3}, {1, -1}),
            "axis -1");
}

TEST(Dropout, MaskMemoryIsTheNoiseShapesBits) {
    problem_t p;
    p.shape = {64, 1000};
    p.mask_dt = data_type::bit;
    dropout::primitive_desc pd(make_desc(p, prop_kind::forward_training));
    EXPECT_EQ(pd.mask_bytes(), 64u * 1000 / 8);
    p.noise = {64, 1};
    dropout::primitive_desc pdn(make_desc(p, prop_kind::forward_training));
    EXPECT_EQ(pdn.mask_bytes(), 8u);
    p.mask_dt = data_type::u8;
    dropout::primitive_desc pdu(make_desc(p, prop_kind::forward_training));
    EXPECT_EQ(pdu.mask_bytes(), 64u);
    p.mask_dt = data_type::undef;
    dropout::primitive_desc pd0(make_desc(p, prop_kind::forward_training));
    EXPECT_EQ(pd0.mask_bytes(), 0u);
}

TEST(Dropout, DroppedInfAndNaNGivePlusZeroAndEdgeRates) {
    problem_t p;
    p.shape = {5000};
    p.mask_dt = data_type::u8;
    tensor_t src(data_md(p));
    for (int64_t i = 0; i < src.n(); ++i)
        src.set(i, i % 3 == 0 ? std::numeric_limits<float>::quiet_NaN()
                        : (i % 3 == 1 ? -std::numeric_limits<float>::infinity()
                                      : -1.f));
    for (dropout_plan plan : {dropout_plan::chain, dropout_plan::any}) {
        p.plan = plan;
        const result_t r = run_fwd(p, src);
        int dropped = 0;
        for (int64_t i = 0; i < src.n(); ++i)
            if (r.mask.get(i) == 0.f) {
                ++dropped;
                EXPECT_EQ(r.dst.raw(i), 0u) << i; // +0, not -0 or NaN
            }
        EXPECT_GT(dropped, 1000);
    }
    // rate 0: identity, bit for bit (-0 stays -0); rate 1: all +0.
    fill_values(src, 7);
    for (double rate : {0.0, 1.0})
        for (dropout_plan plan : {dropout_plan::chain, dropout_plan::any}) {
            p.rate = rate;
            p.plan = plan;
            const result_t r = run_fwd(p, src);
            for (int64_t i = 0; i < src.n(); ++i) {
                if (rate == 1.0) {
                    ASSERT_EQ(r.dst.raw(i), 0u) << i;
                } else if (!std::isnan(src.get(i))) {
                    ASSERT_EQ(r.dst.raw(i), src.raw(i)) << i;
                }
            }
        }
}

// Backward: diff_src = keep ? diff_dst * scale : +0, the mask read (bit,
// u8) or recomputed.
TEST(Dropout, BackwardStoredAndRecomputedAgree) {
    for (data_type dt : {data_type::f32, data_type::bf16})
        for (const dims &noise : {dims {}, dims {3, 1}}) {
            problem_t p;
            p.shape = {3, 33000};
            p.noise = noise;
            p.dt = dt;
            p.nthr = 2;
            tensor_t dy(data_md(p));
            fill_values(dy, 11);
            std::vector<tensor_t> grads;
            for (data_type mdt : {data_type::undef, data_type::bit, data_type::u8})
                for (dropout_plan plan : {dropout_plan::chain, dropout_plan::any}) {
                    p.mask_dt = mdt;
                    p.plan = plan;
                    tensor_t mask(memory::desc({0}, data_type::u8));
                    if (mdt != data_type::undef) {
                        tensor_t x(data_md(p));
                        mask = run_fwd(p, x).mask;
                    }
                    const dropout::desc d = make_desc(p, prop_kind::backward);
                    dropout prim {dropout::primitive_desc(d)};
                    tensor_t dx(d.dst);
                    std::unordered_map<int, memory> args = {
                            {RNDNN_ARG_DIFF_DST, dy.mem()},
                            {RNDNN_ARG_DIFF_SRC, dx.mem()}};
                    if (mdt != data_type::undef) {
                        args[RNDNN_ARG_MASK] = mask.mem();
                    } else {
                        args[RNDNN_ARG_SEED] = memory::scalar(p.seed);
                        args[RNDNN_ARG_OFFSET] = memory::scalar(p.offset);
                        args[RNDNN_ARG_STREAM] = memory::scalar(p.strm);
                    }
                    prim.execute(stream(p.nthr), args);
                    expect_reference(p, dy, dx,
                            std::string("backward ")
                                    + prim.get_primitive_desc().impl_name());
                    grads.push_back(dx);
                }
            for (const tensor_t &g : grads)
                EXPECT_EQ(g.buf, grads[0].buf);
        }
}

// Tensors without elements: nothing is written, nothing fails.
TEST(Dropout, EmptyTensors) {
    for (data_type mdt : {data_type::undef, data_type::bit, data_type::u8})
        for (dropout_plan plan : {dropout_plan::chain, dropout_plan::any}) {
            problem_t p;
            p.shape = {0, 5};
            p.mask_dt = mdt;
            p.plan = plan;
            tensor_t src(data_md(p));
            const result_t r = run_fwd(p, src);
            EXPECT_EQ(r.dst.n(), 0);
        }
    const memory::desc f({3, 0}, data_type::f32), b({3, 0}, data_type::bit);
    tensor_t x(f), m(b);
    binary {binary::primitive_desc({binary_alg::mul, f, b, f})}.execute(
            stream(2), {{RNDNN_ARG_SRC_0, x.mem()}, {RNDNN_ARG_SRC_1, m.mem()},
                               {RNDNN_ARG_DST, x.mem()}});
}

// A stored u8 mask keeps where its byte is non-zero, whatever the value.
// Backward with a stored mask still writes next_offset (offset + mask
// elements; offset 0 without with_offset), and needs no seed.
TEST(Dropout, BackwardStoredMaskWritesNextOffset) {
    for (bool with_offset : {false, true}) {
        problem_t p;
        p.shape = {3, 1000};
        p.noise = {3, 1};
        p.mask_dt = data_type::u8;
        dropout::desc d = make_desc(p, prop_kind::backward);
        d.with_offset = with_offset;
        d.with_next_offset = true;
        tensor_t dy(d.src), dx(d.dst), mask(d.mask);
        fill_values(dy, 5);
        for (int64_t i = 0; i < mask.n(); ++i)
            mask.buf[i] = uint8_t(i % 2);
        int64_t next = -1;
        std::unordered_map<int, memory> args = {{RNDNN_ARG_DIFF_DST, dy.mem()},
                {RNDNN_ARG_DIFF_SRC, dx.mem()}, {RNDNN_ARG_MASK, mask.mem()},
                {RNDNN_ARG_NEXT_OFFSET,
                        memory(memory::desc({1}, data_type::s64), &next)}};
        if (with_offset) args[RNDNN_ARG_OFFSET] = memory::scalar(int64_t(40));
        dropout {dropout::primitive_desc(d)}.execute(stream(1), args);
        EXPECT_EQ(next, (with_offset ? 40 : 0) + mask.n()) << with_offset;
    }
}

TEST(Dropout, BackwardU8MaskKeepsNonZeroBytes) {
    problem_t p;
    p.shape = {1000};
    p.mask_dt = data_type::u8;
    const dropout::desc d = make_desc(p, prop_kind::backward);
    tensor_t dy(d.src), dx(d.dst), mask(d.mask);
    fill_values(dy, 5);
    const uint8_t values[] = {0, 1, 2, 128, 255, 0, 7};
    for (int64_t i = 0; i < mask.n(); ++i)
        mask.buf[i] = values[i % 7];
    dropout {dropout::primitive_desc(d)}.execute(stream(1),
            {{RNDNN_ARG_DIFF_DST, dy.mem()}, {RNDNN_ARG_DIFF_SRC, dx.mem()},
                    {RNDNN_ARG_MASK, mask.mem()}});
    const float scale = static_cast<float>(1.0 / (1.0 - p.rate));
    for (int64_t i = 0; i < dy.n(); ++i) {
        const float want = mask.buf[i] ? std::fma(scale, dy.get(i), -0.f) : 0.f;
        if (!std::isnan(want)) {
            ASSERT_EQ(dx.raw(i), rounded_bits(p.dt, want)) << i;
        }
    }
}

// f(x) = sum(w * dropout(x)^2) / 2 has df/dx = dropout_bwd(w * dropout(x)):
// central differences with the same seed (the same mask) agree.
TEST(Dropout, GradientCheckInAComposedFunction) {
    problem_t p;
    p.shape = {257};
    p.rate = 0.25;
    p.mask_dt = data_type::undef;
    tensor_t x(data_md(p)), w(data_md(p));
    std::mt19937 g(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (int64_t i = 0; i < x.n(); ++i) {
        x.set(i, u(g));
        w.set(i, u(g));
    }
    auto f = [&](const tensor_t &in) {
        const tensor_t y = run_fwd(p, in).dst;
        double s = 0;
        for (int64_t i = 0; i < y.n(); ++i)
            s += 0.5 * w.get(i) * double(y.get(i)) * y.get(i);
        return s;
    };
    const tensor_t y = run_fwd(p, x).dst;
    tensor_t dy(data_md(p)), dx(data_md(p));
    for (int64_t i = 0; i < y.n(); ++i)
        dy.set(i, w.get(i) * y.get(i));
    dropout bwd {dropout::primitive_desc(make_desc(p, prop_kind::backward))};
    bwd.execute(stream(1),
            {{RNDNN_ARG_DIFF_DST, dy.mem()}, {RNDNN_ARG_DIFF_SRC, dx.mem()},
                    {RNDNN_ARG_SEED, memory::scalar(p.seed)},
                    {RNDNN_ARG_OFFSET, memory::scalar(p.offset)},
                    {RNDNN_ARG_STREAM, memory::scalar(p.strm)}});
    const float h = 1e-2f;
    for (int64_t i = 0; i < x.n(); ++i) {
        tensor_t xp = x, xm = x;
        xp.set(i, x.get(i) + h);
        xm.set(i, x.get(i) - h);
        const double fd = (f(xp) - f(xm)) / (double(xp.get(i)) - xm.get(i));
        EXPECT_NEAR(dx.get(i), fd, 1e-3 * (1 + std::fabs(fd))) << i;
    }
}

TEST(Dropout, InferenceIsIdentity) {
    problem_t p;
    p.shape = {2, 5000};
    p.padded = true;
    tensor_t src(data_md(p));
    fill_values(src, 2);
    dropout::desc d = make_desc(p, prop_kind::forward_inference);
    d.dst = memory::desc(p.shape, p.dt);
    dropout prim {dropout::primitive_desc(d)};
    tensor_t dst(d.dst);
    prim.execute(stream(2), {{RNDNN_ARG_SRC, src.mem()}, {RNDNN_ARG_DST, dst.mem()}});
    for (int64_t i = 0; i < src.n(); ++i)
        ASSERT_EQ(dst.raw(i), src.raw(i)) << i;
}

TEST(Dropout, RuntimeRateAndNextOffset) {
    problem_t p;
    p.shape = {40000};
    p.rate = 0.6;
    tensor_t src(data_md(p));
    fill_values(src, 8);
    for (dropout_plan plan : {dropout_plan::chain, dropout_plan::any}) {
        p.plan = plan;
        dropout::desc d = make_desc(p, prop_kind::forward_training);
        d.runtime_rate = true;
        d.with_next_offset = true;
        dropout prim {dropout::primitive_desc(d)};
        tensor_t dst(d.dst);
        int64_t next = -1;
        prim.execute(stream(1),
                {{RNDNN_ARG_SRC, src.mem()}, {RNDNN_ARG_DST, dst.mem()},
                        {RNDNN_ARG_SEED, memory::scalar(p.seed)},
                        {RNDNN_ARG_OFFSET, memory::scalar(p.offset)},
                        {RNDNN_ARG_STREAM, memory::scalar(p.strm)},
                        {RNDNN_ARG_RATE, memory::scalar(0.6f)},
                        {RNDNN_ARG_NEXT_OFFSET,
                                memory(memory::desc({1}, data_type::s64), &next)}});
        EXPECT_EQ(next, p.offset + 40000);
        p.rate = double(0.6f);
        expect_reference(p, src, dst, "runtime rate");
        p.rate = 0.6;
        EXPECT_ERROR_NAMES(prim.execute(stream(1),
                                   {{RNDNN_ARG_SRC, src.mem()},
                                           {RNDNN_ARG_DST, dst.mem()},
                                           {RNDNN_ARG_SEED, memory::scalar(p.seed)},
                                           {RNDNN_ARG_OFFSET, memory::scalar(p.offset)},
                                           {RNDNN_ARG_RATE, memory::scalar(1.5f)}}),
                "rate=1.5");
    }
}

// The known answer: oneDNN 3.14's dropout attribute, 1 x 4099 f32,
// p = 0.1, seed 7, offset 99 (rndnn's stream).
TEST(Dropout, OneDNNCompatMatchesOneDNNsMask) {
    std::ifstream f(RNDNN_TEST_DATA_DIR "/onednn-dropout-mask.u8", std::ios::binary);
    ASSERT_TRUE(f) << "missing " RNDNN_TEST_DATA_DIR "/onednn-dropout-mask.u8";
    const std::vector<uint8_t> want((std::istreambuf_iterator<char>(f)),
            std::istreambuf_iterator<char>());
    ASSERT_EQ(want.size(), 4099u);
    problem_t p;
    p.shape = {1, 4099};
    p.rate = 0.1;
    p.seed = 7;
    p.offset = 0;
    p.strm = 99;
    p.alg = rng_alg::philox4x32_10_onednn;
    p.mask_dt = data_type::u8;
    tensor_t src(data_md(p));
    fill_values(src, 3);
    // threshold32 named, or the default method: onednn_compat keeps
    // oneDNN's word an element.
    for (bernoulli_method method :
            {bernoulli_method::threshold32, bernoulli_method::automatic})
    for (dropout_plan plan : {dropout_plan::chain, dropout_plan::any})
        for (cpu_isa isa : {cpu_isa::none, cpu_isa::all}) {
            p.plan = plan;
            p.isa = isa;
            p.method = method;
            dropout::desc d = make_desc(p, prop_kind::forward_training);
            d.onednn_compat = true;
            dropout prim {dropout::primitive_desc(d, isa_attr(isa))};
            tensor_t dst(d.dst), mask(d.mask);
            prim.execute(stream(1),
                    {{RNDNN_ARG_SRC, src.mem()}, {RNDNN_ARG_DST, dst.mem()},
                            {RNDNN_ARG_MASK, mask.mem()},
                            {RNDNN_ARG_SEED, memory::scalar(p.seed)},
                            {RNDNN_ARG_OFFSET, memory::scalar(p.offset)},
                            {RNDNN_ARG_STREAM, memory::scalar(p.strm)}});
            EXPECT_EQ(mask.buf, want) << prim.get_primitive_desc().impl_name();
            const float scale = 1.f / (1.f - 0.1f);
            for (int64_t i = 0; i < src.n(); ++i) {
                const float v = want[i] ? src.get(i) * scale : 0.f;
                if (!std::isnan(v)) {
                    ASSERT_EQ(dst.get(i), v) << i;
                }
            }
        }
    // The RNG draws the same mask with oneDNN's rule named in its post-op.
    rng::desc rd(p.alg, memory::desc({4099}, data_type::u8));
    post_ops po;
    po.append_bernoulli(dropout::keep_probability(p.rate, true),
            bernoulli_method::onednn);
    for (cpu_isa isa : {cpu_isa::none, cpu_isa::all}) {
        primitive_attr a = isa_attr(isa);
        a.set_post_ops(po);
        std::vector<uint8_t> got(4099);
        run_args_t r;
        r.seed = p.seed;
        r.stream = p.strm;
        generate(rd, a, got.data(), r);
        EXPECT_EQ(got, want) << isa2str(isa);
    }
    dropout::desc d = make_desc(p, prop_kind::forward_training);
    d.onednn_compat = true;
    EXPECT_EQ(dropout::keep_post_ops(d).get(0), po.get(0));
    d.alg = rng_alg::philox4x32_10;
    EXPECT_ERROR_NAMES(dropout::primitive_desc {d}, "philox4x32_10_onednn");
    d.alg = rng_alg::philox4x32_10_onednn;
    d.method = bernoulli_method::bitsliced;
    d.bits = 32;
    EXPECT_ERROR_NAMES(dropout::primitive_desc {d}, "method=bitsliced");
}

// dropout::keep_post_ops() names the RNG problem of dropout's mask: the
// RNG over the noise shape (a window of the global one) writes the mask
// that dropout writes, over methods, algorithms, noise shapes, windows and
// oneDNN's rule.
// Inverted dropout keeps E[y] = x under every method: kept elements are
// scaled by the inverse of the keep probability the method draws
// (bitsliced(b) rounds it to a multiple of 2^-b), so y is 0 or exactly
// that scale for x = 1, and the mean is 1 within six standard deviations;
// a rate whose keep probability rounds to 0 is refused, naming the rate,
// the method and the nearest rates it draws; the same with a runtime rate.
TEST(Dropout, OutputMeanIsTheInputsUnderEveryMethod) {
    struct method_t {
        bernoulli_method method;
        int bits;
    };
    std::vector<method_t> methods = {{bernoulli_method::threshold32, 1},
            {bernoulli_method::bytewise, 1},
            {bernoulli_method::automatic, 1}};
    for (int b = 1; b <= 32; ++b)
        methods.push_back({bernoulli_method::bitsliced, b});
    const dim_t n = dim_t(1) << 18;
    const memory::desc md({n}, data_type::f32);
    std::vector<float> ones(n, 1.f), y(n);
    for (const method_t &m : methods)
        for (double rate : {0.01, 0.1, 0.25, 0.3, 0.5, 0.77, 0.9, 0.99})
            for (bool runtime : {false, true}) {
                SCOPED_TRACE(impl::cat(bernoulli_method2str(m.method), ":",
                        m.bits, " rate ", rate,
                        runtime ? " (runtime)" : ""));
                const double p = 1.0 - rate;
                const double drawn = m.method == bernoulli_method::bitsliced
                        ? std::ldexp(double(impl::bitsliced_level(p, m.bits)),
                                -m.bits)
                        : p;
                dropout::desc d;
                d.prop = prop_kind::forward_training;
                d.src = d.dst = md;
                d.rate = rate;
                d.runtime_rate = runtime;
                d.method = m.method;
                d.bits = m.bits;
                const auto run = [&] {
                    dropout prim {dropout::primitive_desc(d)};
                    std::unordered_map<int, memory> args
                            = {{RNDNN_ARG_SRC, memory(md, ones.data())},
                                    {RNDNN_ARG_DST, memory(md, y.data())},
                                    {RNDNN_ARG_SEED, memory::scalar(int64_t(9))}};
                    if (runtime)
                        args[RNDNN_ARG_RATE]
                                = memory::scalar(static_cast<float>(rate));
                    prim.execute(stream(2), args);
                };
                if (runtime) d.rate = double(static_cast<float>(rate));
                const double r = d.rate;
                if (drawn == 0.0) {
                    EXPECT_ERROR_NAMES(run(),
                            impl::cat("rate=", r, " with method bitsliced:",
                                    m.bits, " keeps no element"));
                    EXPECT_ERROR_NAMES(run(),
                            impl::cat("the nearest rates it draws are ",
                                    1.0 - std::ldexp(1.0, -m.bits), " and 1"));
                    continue;
                }
                run();
                const double q = m.method == bernoulli_method::bitsliced
                        ? std::ldexp(double(impl::bitsliced_level(
                                             1.0 - r, m.bits)),
                                -m.bits)
                        : 1.0 - r;
                const float scale = m.method == bernoulli_method::bitsliced
                                && m.bits < 32
                        ? static_cast<float>(1.0 / q)
                        : static_cast<float>(1.0 / (1.0 - r));
                double sum = 0;
                for (float v : y) {
                    ASSERT_TRUE(v == 0.f || v == scale) << v << " " << scale;
                    sum += v;
                }
                const double sigma = std::sqrt((1.0 - q) / (q * double(n)));
                EXPECT_NEAR(sum / double(n), 1.0, 6 * sigma + 1e-6);
            }
}

TEST(Dropout, KeepPostOpsMakeTheRngWriteTheMask) {
    struct case_t {
        rng_alg alg;
        bernoulli_method method;
        int bits;
        dims noise, global, origin; // global empty: no window
        bool onednn_compat = false;
    };
    const auto ph = rng_alg::philox4x32_10;
    const auto thr = bernoulli_method::threshold32;
    const auto sl = bernoulli_method::bitsliced;
    const auto au = bernoulli_method::automatic;
    const std::vector<case_t> cases = {{ph, thr, 1, {}, {}, {}},
            {ph, au, 1, {}, {}, {}}, {ph, sl, 5, {3, 1}, {}, {}},
            {rng_alg::threefry4x32_20, sl, 32, {1, 1000}, {}, {}},
            {rng_alg::mcg31m1, au, 1, {}, {}, {}},
            {rng_alg::mt19937, thr, 1, {3, 1}, {}, {}},
            {ph, sl, 3, {}, {7, 1500}, {2, 300}},
            {ph, au, 1, {7, 1}, {7, 1500}, {4, 500}},
            {ph, bernoulli_method::bytewise, 1, {}, {}, {}},
            {rng_alg::multfly, bernoulli_method::bytewise, 1, {7, 1}, {7, 1500},
                    {2, 300}},
            {rng_alg::philox4x32_10_onednn, thr, 1, {}, {9, 1000}, {5, 0},
                    true},
            {rng_alg::philox4x32_10_onednn, au, 1, {1, 1000}, {}, {}, true}};
    for (const case_t &k : cases)
        for (data_type mdt : {data_type::bit, data_type::u8}) {
            problem_t p;
            p.alg = k.alg;
            p.method = k.method;
            p.bits = k.bits;
            p.mask_dt = mdt;
            dropout::desc d = make_desc(p, prop_kind::forward_training);
            d.onednn_compat = k.onednn_compat;
            d.noise_shape = k.noise;
            d.global_dims = k.global;
            d.origin = k.origin;
            // The block's mask: 1 where the noise broadcasts.
            dims block_mask = p.shape;
            const dims &global = k.global.empty() ? p.shape : k.global;
            const dims noise_global = k.noise.empty() ? global : k.noise;
            rng::desc rd(p.alg, {}); // dst set below
            if (!k.global.empty()) {
                rd.global_dims = noise_global;
                rd.origin = k.origin;
            }
            for (size_t j = 0; j < block_mask.size(); ++j)
                if (noise_global[j] == 1) {
                    block_mask[j] = 1;
                    if (!rd.origin.empty()) rd.origin[j] = 0;
                }
            d.mask = memory::desc(block_mask, mdt);
            rd.dst = d.mask;
            const std::string what = impl::cat(alg2str(k.alg), " ",
                    bernoulli_method2str(k.method), " noise=",
                    impl::dims2str(k.noise), " window=",
                    impl::dims2str(k.global), " ", dt2str(mdt));
            tensor_t src(d.src), dst(d.dst), mask(d.mask);
            fill_values(src, 5);
            // Both leave the bits past a bit mask's end as they are.
            std::vector<uint8_t> got = mask.buf;
            dropout {dropout::primitive_desc(d)}.execute(stream(2),
                    {{RNDNN_ARG_SRC, src.mem()}, {RNDNN_ARG_DST, dst.mem()},
                            {RNDNN_ARG_MASK, mask.mem()},
                            {RNDNN_ARG_SEED, memory::scalar(p.seed)},
                            {RNDNN_ARG_OFFSET, memory::scalar(p.offset)},
                            {RNDNN_ARG_STREAM, memory::scalar(p.strm)}});
            primitive_attr a;
            a.set_post_ops(dropout::keep_post_ops(d));
            run_args_t r;
            r.seed = p.seed;
            r.offset = p.offset;
            r.stream = p.strm;
            generate(rd, a, got.data(), r);
            EXPECT_EQ(got, mask.buf) << what;
        }
}

TEST(Dropout, KeepProbabilityAndPostOpsRefuseBadValues) {
    EXPECT_EQ(dropout::keep_probability(0.25, false), 0.75);
    EXPECT_EQ(dropout::keep_probability(0.1, true),
            impl::onednn_keep_probability(0.1f));
    for (double r : {-0.1, 1.5, std::nan("")}) {
        EXPECT_ERROR_NAMES(dropout::keep_probability(r, false), "rate=");
        EXPECT_ERROR_NAMES(dropout::keep_probability(r, true), "rate=");
    }
    problem_t p;
    dropout::desc d = make_desc(p, prop_kind::forward_training);
    d.runtime_rate = true;
    EXPECT_ERROR_NAMES(dropout::keep_post_ops(d), "runtime rate");
    d.runtime_rate = false;
    d.rate = 2.0;
    EXPECT_ERROR_NAMES(dropout::keep_post_ops(d), "rate=2");
    d.rate = 0.5;
    d.onednn_compat = true;
    EXPECT_ERROR_NAMES(dropout::keep_post_ops(d), "philox4x32_10_onednn");
    // Dropout names oneDNN's rule by onednn_compat alone; the message names
    // the C++ API's field and enumerators (the CLI names its own options).
    d.onednn_compat = false;
    d.method = bernoulli_method::onednn;
    const char *const onednn_refused
            = "dropout::desc::method = bernoulli_method::onednn is refused: "
              "oneDNN's rule is dropout::desc::onednn_compat = true, with "
              "method bernoulli_method::threshold32 or "
              "bernoulli_method::automatic";
    EXPECT_ERROR_NAMES(dropout::keep_post_ops(d), onednn_refused);
    EXPECT_ERROR_NAMES(dropout::primitive_desc {d}, onednn_refused);
    // The RNG's oneDNN rule needs 32-bit words.
    post_ops po;
    po.append_bernoulli(0.5, bernoulli_method::onednn);
    primitive_attr a;
    a.set_post_ops(po);
    EXPECT_ERROR_NAMES(
            rng::primitive_desc(rng::desc(rng_alg::mcg31m1,
                                        memory::desc({8}, data_type::u8)),
                    a),
            "onednn bernoulli needs 32-bit words; mcg31m1 has 31");
}

TEST(Dropout, BadProblemsNameTheValue) {
    problem_t p;
    p.shape = {4, 6};
    auto pd = [&](const dropout::desc &d) { dropout::primitive_desc {d}; };
    dropout::desc d = make_desc(p, prop_kind::forward_training);
    for (double r : {-0.1, 1.5, std::nan("")}) {
        d.rate = r;
        EXPECT_ERROR_NAMES(pd(d), "rate=");
    }
    d = make_desc(p, prop_kind::forward_training);
    d.noise_shape = {4, 3};
    EXPECT_ERROR_NAMES(pd(d), "noise shape 4x3 does not fit the data shape 4x6");
    d.noise_shape = {4};
    EXPECT_ERROR_NAMES(pd(d), "4x6");
    d = make_desc(p, prop_kind::forward_training);
    d.mask = memory::desc({4, 5}, data_type::bit);
    EXPECT_ERROR_NAMES(pd(d), "4x5");
    d.mask = memory::desc({4, 6}, data_type::f32);
    EXPECT_ERROR_NAMES(pd(d), "mask type f32");
    d = make_desc(p, prop_kind::forward_inference);
    d.mask = memory::desc({4, 6}, data_type::bit);
    EXPECT_ERROR_NAMES(pd(d), "forward_inference");
    d = make_desc(p, prop_kind::forward_training);
    d.dst = memory::desc({4, 6}, data_type::bf16);
    EXPECT_ERROR_NAMES(pd(d), "dst");
    d = make_desc(p, prop_kind::forward_training);
    d.src = d.dst = memory::desc({4, 6}, data_type::s32);
    EXPECT_ERROR_NAMES(pd(d), "s32");
    // f64 is the RNG's continuous distributions' type only.
    d.src = d.dst = memory::desc({4, 6}, data_type::f64);
    EXPECT_ERROR_NAMES(pd(d), "f64");
    d = make_desc(p, prop_kind::forward_training);
    d.alg = rng_alg::mcg31m1;
    d.method = bernoulli_method::bitsliced;
    EXPECT_ERROR_NAMES(pd(d), "mcg31m1");
    // Enums outside their range.
    d = make_desc(p, prop_kind::forward_training);
    d.prop = static_cast<prop_kind>(3);
    EXPECT_ERROR_NAMES(pd(d), "propagation kind value 3 is not a prop_kind");
    d = make_desc(p, prop_kind::forward_training);
    d.plan = static_cast<dropout_plan>(-2);
    EXPECT_ERROR_NAMES(pd(d), "plan value -2 is not a dropout_plan");
    d = make_desc(p, prop_kind::forward_training);
    d.method = static_cast<bernoulli_method>(7);
    EXPECT_ERROR_NAMES(pd(d), "bernoulli method value 7");
    d = make_desc(p, prop_kind::forward_training);
    d.alg = static_cast<rng_alg>(42);
    EXPECT_ERROR_NAMES(pd(d), "algorithm value 42 is not a rng_alg");
    // The fused plan, asked for where it does not apply, says why.
    d = make_desc(p, prop_kind::forward_training);
    d.alg = rng_alg::mt19937;
    d.plan = dropout_plan::fused;
    const std::string why = error_of([&] { pd(d); }, status::unimplemented);
    EXPECT_NE(why.find("fused plan does not apply"), std::string::npos) << why;
    // Missing or mismatched arguments, before anything is written.
    d = make_desc(p, prop_kind::forward_training);
    dropout prim {dropout::primitive_desc(d)};
    tensor_t x(d.src), y(memory::desc({4, 7}, data_type::f32));
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_SRC, x.mem()}, {RNDNN_ARG_DST, x.mem()},
                                       {RNDNN_ARG_OFFSET, memory::scalar(int64_t(0))}}),
            "seed");
    EXPECT_ERROR_NAMES(prim.execute(stream(1),
                               {{RNDNN_ARG_SRC, x.mem()}, {RNDNN_ARG_DST, y.mem()},
                                       {RNDNN_ARG_SEED, memory::scalar(int64_t(0))}}),
            "4x7");
}

} // namespace
} // namespace test
} // namespace rndnn
