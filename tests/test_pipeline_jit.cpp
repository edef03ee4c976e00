// The pipeline's JIT kernels against the reference, bit for bit, at every
// JIT tier this process may use (sse41 .. get_max_cpu_isa()):
//
// - ApplyJit.*: the apply kernels (pipeline/apply.hpp) for alg mul/add, dt
//   f32/bf16/f16 and 0..2 linear post-ops, n = 0..200 and large, NaN, Inf,
//   -0 and denormal data and post-op values, separate and in-place dst;
//   and which problems a tier declines.
// - FusedJit.*: the fused dropout kernel (pipeline/fused.hpp) against the
//   reference RNG kernel's mask applied by the reference apply kernel, for
//   every algorithm and Bernoulli method the RNG JIT covers, every dt,
//   with and without the mask output, unaligned mask offset0, data offsets
//   and sizes that cut units, 1..3 threads, runtime p, the oneDNN keep rule
//   and p = 0 and 1; and which problems it declines. Its combos force
//   each bitsliced evaluation (lazy, eager), as
//   RngJit.LazyBitslicedEqualsEager (test_rng_jit.cpp) does for the RNG's
//   kernels.
//
// Cases come from a std::mt19937_64 with a fixed seed; every failure prints
// its case. In a build without JIT the apply tests skip and the others,
// whose entry points do not exist there, are not built.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pipeline/apply.hpp"
#include "pipeline/fused.hpp"
#include "rng/rng_impl.hpp"
#include "src/jit_tuning.hpp"
#include "src/utils.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;
using namespace rndnn::impl;

namespace {

// The tiers with JIT kernels that this process may use (best first).
using rndnn::test::available_tiers;
// The case generator's helpers and SKIP_WITHOUT_JIT: test_utils.hpp.
using rndnn::test::first_diff;
using rndnn::test::pick;
using rndnn::test::prng_t;
using rndnn::test::tier_param_name;
using rndnn::test::tier_suite_t;
using rndnn::test::uniform_s64;

std::string hex(const void *p, size_t n) {
    std::ostringstream os;
    for (size_t i = 0; i < n; ++i)
        os << std::hex << std::setw(2) << std::setfill('0')
           << int(static_cast<const uint8_t *>(p)[i]);
    return os.str();
}

const data_type all_dts[] = {data_type::f32, data_type::bf16, data_type::f16};

// f32 bit patterns where the kernels' paths differ: zeros, infinities,
// quiet and signaling NaNs with payloads, denormals, the largest values,
// bf16 and f16 rounding ties and overflow, f16 denormals.
const std::vector<uint32_t> special_f32 = {0x00000000u, 0x80000000u,
        0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7fc12345u,
        0x7f800001u, 0xff812345u, 0x7fbfffffu, 0x00000001u, 0x80000001u,
        0x007fffffu, 0x807fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu,
        0x3f808000u, 0x3f818000u, 0x3f808001u, 0xbf7f8000u, 0x7f7f8000u,
        0x477fe000u, 0x477ff000u, 0x477fefffu, 0xc77ff000u, 0x33800000u,
        0x33000000u, 0x33000001u, 0x387fc000u, 0x38800000u, 0xb3c00000u,
        0x3f800000u, 0xbf800000u, 0x3f801000u, 0x3f803000u};

// n values of type dt (4 or 2 bytes each): special values and random bit
// patterns (which include NaNs and denormals) in random order.
std::vector<uint8_t> make_data(prng_t &g, data_type dt, size_t n) {
    const size_t es = dt == data_type::f32 ? 4 : 2;
    std::vector<uint8_t> v(n * es);
    for (size_t i = 0; i < n; ++i) {
        uint32_t u = static_cast<uint32_t>(g());
        if (g() % 4 == 0) u = pick(g, special_f32);
        else if (g() % 3 == 0) // ordinary magnitudes
            u = float_bits(std::uniform_real_distribution<float>(-8.f, 8.f)(g));
        if (es == 4) {
            std::memcpy(&v[i * 4], &u, 4);
        } else {
            // Halves of f32 patterns: bf16 specials, f16 anything.
            const auto h = static_cast<uint16_t>(g() % 2 ? u >> 16 : u);
            std::memcpy(&v[i * 2], &h, 2);
        }
    }
    return v;
}

// Mask bits: random, with whole words of 0s and of 1s.
std::vector<uint8_t> make_mask(prng_t &g, size_t n) {
    std::vector<uint8_t> m((n + 7) / 8 + 4);
    for (size_t i = 0; i < m.size(); ++i) {
        const int kind = static_cast<int>((i / 4) % 4);
        m[i] = kind == 0 ? 0x00 : kind == 1 ? 0xff : static_cast<uint8_t>(g());
    }
    return m;
}

// --- apply ------------------------------------------------------------------

const std::vector<float> linear_values = {1.f, 2.f, -1.5f, 0.f, -0.f, 3.25f,
        1e30f, -1e30f, 1e-30f, 0x1p-149f, -0x1p-126f, 65504.f, 0.1f,
        std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity()};

struct apply_case_t {
    apply_conf_t conf;
    int64_t n = 0;
    size_t lead = 0; // elements before src and dst in their buffers
    bool in_place = false;
    std::vector<float> linear;
    std::string str() const {
        std::ostringstream os;
        os << "alg=" << (conf.alg == binary_alg::mul ? "mul" : "add")
           << " dt=" << dt2str(conf.dt)
           << " n=" << n << " lead=" << lead << " in_place=" << in_place
           << " linear={" << std::hexfloat;
        for (float v : linear)
            os << v << " ";
        os << "}";
        return os.str();
    }
};

// Runs c with kernel k on copies of src; returns the dst buffer with
// `guard` bytes around the n elements (which must keep their values).
std::vector<uint8_t> run_apply(const apply_kernel_t &k, const apply_case_t &c,
        const std::vector<uint8_t> &src, const std::vector<uint8_t> &mask) {
    const size_t es = c.conf.dt == data_type::f32 ? 4 : 2;
    std::vector<uint8_t> s(src.begin(), src.begin() + (c.lead + c.n) * es);
    std::vector<uint8_t> d(s.size() + 64, 0xa5);
    if (c.in_place) d = s, d.resize(s.size() + 64, 0xa5);
    const void *sp = (c.in_place ? d.data() : s.data()) + c.lead * es;
    k({sp, mask.data(), d.data() + c.lead * es, c.n, c.linear.data()});
    return d;
}

void check_apply(const apply_impl_t &entry, const apply_case_t &c,
        const std::vector<uint8_t> &src, const std::vector<uint8_t> &mask,
        const apply_kernel_t &jit, const apply_kernel_t &ref) {
    const auto want = run_apply(ref, c, src, mask);
    const auto got = run_apply(jit, c, src, mask);
    const int64_t at = first_diff(want, got);
    const size_t es = c.conf.dt == data_type::f32 ? 4 : 2;
    if (at < 0) return;
    const size_t e = static_cast<size_t>(at) / es;
    ADD_FAILURE() << entry.name << ": " << c.str() << ": element "
                  << int64_t(e) - int64_t(c.lead) << " differs: src "
                  << hex(&src[e * es], es) << " ref " << hex(&want[e * es], es)
                  << " jit " << hex(&got[e * es], es);
}

// The JIT entries of the apply list.
std::vector<const apply_impl_t *> jit_apply_entries() {
    std::vector<const apply_impl_t *> v;
    for (const apply_impl_t &e : apply_impl_list())
        if (std::string(e.name).rfind("jit:", 0) == 0) v.push_back(&e);
    return v;
}

cpu_isa tier_of(const char *name) {
    return str2isa(std::string(name).substr(4));
}

// One test a JIT tier (the tier in its name), for each suite below.
class ApplyJitTier : public tier_suite_t {};

TEST_P(ApplyJitTier, EqualsReference) {
    prng_t g(1);
    constexpr int64_t large = 100003;
    for (const apply_impl_t *entry : jit_apply_entries()) {
        const cpu_isa isa = tier_of(entry->name);
        if (isa != GetParam()) continue;
        for (binary_alg alg : {binary_alg::mul, binary_alg::add})
            for (data_type dt : all_dts)
                for (int n_linear = 0; n_linear <= 2; ++n_linear) {
                    apply_conf_t conf;
                    conf.alg = alg;
                    conf.dt = dt;
                    conf.n_linear = n_linear;
                    std::string why;
                    const bool expect = isa <= get_max_cpu_isa()
                            && !(isa < cpu_isa::avx2
                                    && (dt == data_type::f16 || n_linear > 0));
                    ASSERT_EQ(entry->init(conf, why), expect)
                            << entry->name << " dt=" << dt2str(dt)
                            << " n_linear=" << n_linear << ": " << why;
                    if (!expect) continue;
                    const auto jit = entry->create(conf);
                    const auto ref = create_ref_apply(conf);
                    const auto src = make_data(g, dt, large + 3);
                    const auto mask = make_mask(g, large);
                    std::vector<int64_t> sizes;
                    for (int64_t n = 0; n <= 200; ++n)
                        sizes.push_back(n);
                    sizes.push_back(4096 + 17);
                    sizes.push_back(large);
                    for (int64_t n : sizes) {
                        apply_case_t c;
                        c.conf = conf;
                        c.n = n;
                        c.lead = static_cast<size_t>(n % 3);
                        c.in_place = n % 2 == 1;
                        for (int k = 0; k < 2 * n_linear; ++k)
                            c.linear.push_back(pick(g, linear_values));
                        check_apply(*entry, c, src, mask, *jit, *ref);
                        if (::testing::Test::HasFailure()) return;
                    }
                }
    }
}

INSTANTIATE_TEST_SUITE_P(Tiers, ApplyJitTier,
        ::testing::ValuesIn(impl::jit_tiers()), tier_param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ApplyJitTier);

TEST(ApplyJit, Declines) {
    SKIP_WITHOUT_JIT();
    for (const apply_impl_t *entry : jit_apply_entries()) {
        if (tier_of(entry->name) != cpu_isa::sse41) continue;
        apply_conf_t conf;
        std::string why;
        conf.dt = data_type::f16;
        EXPECT_FALSE(entry->init(conf, why));
        EXPECT_NE(why.find("F16C"), std::string::npos) << why;
        conf.dt = data_type::f32;
        conf.n_linear = 1;
        EXPECT_FALSE(entry->init(conf, why));
        EXPECT_NE(why.find("FMA"), std::string::npos) << why;
    }
    // The cap: a tier above it declines, saying so; a tier the CPU lacks
    // (as detection reports it) says that first.
    apply_conf_t conf;
    conf.max_isa = cpu_isa::none;
    for (const apply_impl_t *entry : jit_apply_entries()) {
        std::string why;
        EXPECT_FALSE(entry->init(conf, why));
        const bool has = tier_of(entry->name) <= impl::cpu_isa_detected();
        EXPECT_NE(why.find(has ? "capped" : "the CPU lacks"),
                std::string::npos)
                << entry->name << ": " << why;
    }
    EXPECT_STREQ(pick_apply_impl(conf, "test").name(), "ref:any");
    conf.max_isa = cpu_isa::all;
    const std::vector<cpu_isa> tiers = available_tiers();
    EXPECT_STREQ(pick_apply_impl(conf, "test").name(),
            jit_impl_name(*std::max_element(tiers.begin(), tiers.end())));
}

#if RNDNN_ENABLE_JIT

// --- fused ------------------------------------------------------------------

struct fused_combo_t {
    rng_alg alg;
    bernoulli_method method;
    int b; // bitsliced b
    bitsliced_eval_t eval = bitsliced_eval_t::automatic;
    std::string str() const {
        std::ostringstream os;
        os << alg2str(alg) << " " << bernoulli_method2str(method);
        if (method == bernoulli_method::bitsliced) os << "(" << b << ")";
        if (eval == bitsliced_eval_t::lazy) os << " lazy";
        if (eval == bitsliced_eval_t::eager) os << " eager";
        return os.str();
    }
};

std::vector<fused_combo_t> fused_combos() {
    std::vector<fused_combo_t> v;
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::mcg31m1}) {
        v.push_back({alg, bernoulli_method::threshold32, 1});
        if (alg == rng_alg::mcg31m1) continue;
        for (int b : {1, 2, 5, 32})
            v.push_back({alg, bernoulli_method::bitsliced, b});
        for (int b : {3, 13, 32})
            v.push_back({alg, bernoulli_method::bitsliced, b,
                    bitsliced_eval_t::lazy});
        v.push_back({alg, bernoulli_method::bitsliced, 32,
                bitsliced_eval_t::eager});
    }
    v.push_back({rng_alg::multfly, bernoulli_method::bitsliced, 32});
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::multfly})
        v.push_back({alg, bernoulli_method::bytewise, 1});
    v.push_back({rng_alg::philox4x32_10_onednn, bernoulli_method::onednn, 1});
    v.push_back({rng_alg::philox4x32_10, bernoulli_method::onednn, 1});
    return v;
}

struct fused_case_t {
    fused_combo_t combo;
    data_type dt = data_type::f32;
    bool write_mask = false;
    bool mask_u8 = false; // the mask memory is u8 (else bit)
    int64_t n = 0;
    int64_t offset = 0; // run.rng.offset
    int64_t mask_off0 = 0;
    bool runtime_p = false;
    double p = 0.5;
    float scale = 2.f;
    uint64_t seed = 0, stream = 0;
    int nthr = 1;
    bool in_place = false;
    // The JIT's dst (and src in place) starts on 64 bytes: its whole units
    // may then take the streaming function (nt_ok()).
    bool aligned = false;

    std::string str() const {
        std::ostringstream os;
        os << combo.str() << " dt=" << dt2str(dt) << " write_mask="
           << write_mask << (mask_u8 ? " (u8)" : "") << " n=" << n << " offset=" << offset
           << " mask offset0=" << mask_off0 << " p=" << std::setprecision(17)
           << p << (runtime_p ? " (runtime)" : "") << " scale="
           << std::hexfloat << scale << std::defaultfloat << " seed=" << seed
           << " stream=" << stream << " nthr=" << nthr
           << " in_place=" << in_place << " aligned=" << aligned;
        return os.str();
    }

    // The RNG problem of the mask, with its dst at mask offset0 `off0`.
    rng_conf_t rng_conf(int64_t off0, data_type mdt = data_type::bit) const {
        const memory::desc md({n}, mdt, {1}, off0);
        rng::desc d(combo.alg, md);
        d.with_offset = true;
        d.runtime_p = runtime_p;
        post_ops po;
        po.append_bernoulli(runtime_p ? 0.25 : p, combo.method, combo.b);
        primitive_attr attr;
        attr.set_post_ops(po);
        rng_conf_t c = make_rng_conf(d, attr);
        c.eval = combo.eval;
        return c;
    }

    rng_run_t rng_run(void *mask) const {
        rng_run_t r;
        r.seed = seed;
        r.stream = stream;
        r.offset = offset;
        r.p = p;
        r.dst = mask;
        r.nthr = nthr;
        return r;
    }
};

fused_case_t make_fused_case(prng_t &g, const fused_combo_t &combo,
        data_type dt, int index) {
    fused_case_t c;
    c.combo = combo;
    c.dt = dt;
    c.write_mask = index % 2 == 0;
    c.mask_u8 = index % 4 == 2;
    c.in_place = index % 3 == 1;
    c.aligned = index % 2 == 1;
    switch (index % 5) {
        case 0: c.n = uniform_s64(g, 0, 70); break;
        case 1: c.n = uniform_s64(g, 60, 200); break;
        case 2: c.n = uniform_s64(g, 2000, 7000); break;
        case 3: c.n = pick<int64_t>(g, {64, 128, 2048, 4096, 6144}); break;
        default: c.n = uniform_s64(g, 33000, 70000);
    }
    if (index == 5) c.n = 0;
    c.nthr = static_cast<int>(uniform_s64(g, 1, 3));
    c.offset = pick<int64_t>(g, {0, 1, 3, 5, 31, 33, 63, 64, 65, 2047, 2048,
            2049, 4095, (int64_t(1) << 40) + 3, uniform_s64(g, 0, 1 << 30)});
    c.mask_off0 = c.write_mask
            ? pick<int64_t>(g, {0, 1, 3, 7, 8, 9, 13, 64, 100})
            : 0;
    c.runtime_p = index % 4 == 3;
    const bool bitsliced = combo.method == bernoulli_method::bitsliced;
    switch (index % 7) {
        case 0: c.p = 0.0; break;
        case 1: c.p = 1.0; break;
        case 2: c.p = 0.5; break;
        case 3: c.p = bitsliced ? 0.75 : 0.9; break;
        default:
            c.p = std::uniform_real_distribution<double>(0.0, 1.0)(g);
            if (c.runtime_p) c.p = static_cast<float>(c.p);
    }
    // The keep probability's scale, or a value that stresses the product
    // (a negative scale: a dropped element is -0).
    c.scale = index % 3 == 1
            ? pick(g, linear_values)
            : static_cast<float>(1.0 / std::max(c.p, 0.01));
    c.seed = g();
    c.stream = index % 3 == 0 ? 0 : g();
    return c;
}

// The reference: the mask from the reference RNG kernel, applied by the
// reference apply kernel. Returns dst (with 64 guard bytes) and the mask
// memory (with its offset0 and 8 guard bytes, from `mask_init`).
void run_fused_ref(const fused_case_t &c, const std::vector<uint8_t> &src,
        const std::vector<uint8_t> &mask_init, std::vector<uint8_t> &dst,
        std::vector<uint8_t> &mask) {
    const size_t es = c.dt == data_type::f32 ? 4 : 2;
    // The dense mask the apply kernel reads.
    std::vector<uint8_t> bits((c.n + 7) / 8 + 1);
    create_ref_rng(c.rng_conf(0))->execute(c.rng_run(bits.data()));
    apply_conf_t ac;
    ac.dt = c.dt;
    ac.n_linear = 1;
    const float linear[2] = {c.scale, -0.f};
    dst.assign(c.n * es + 64, 0x5a);
    create_ref_apply(ac)->operator()(
            {src.data(), bits.data(), dst.data(), c.n, linear});
    mask = mask_init;
    if (c.write_mask)
        create_ref_rng(c.rng_conf(c.mask_off0,
                               c.mask_u8 ? data_type::u8 : data_type::bit))
                ->execute(c.rng_run(mask.data()));
}

void run_fused_jit(const fused_kernel_t &k, const fused_case_t &c,
        const std::vector<uint8_t> &src, const std::vector<uint8_t> &mask_init,
        std::vector<uint8_t> &dst, std::vector<uint8_t> &mask) {
    const size_t es = c.dt == data_type::f32 ? 4 : 2;
    const size_t bytes = c.n * es + 64;
    // dst at 64 bytes plus 0 (aligned) or 4.
    std::vector<uint8_t> buf(bytes + 128);
    uint8_t *d = buf.data()
            + (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64
            + (c.aligned ? 0 : 4);
    std::memset(d, 0x5a, bytes);
    if (c.in_place) std::copy(src.begin(), src.begin() + c.n * es, d);
    mask = mask_init;
    fused_run_t run;
    run.rng = c.rng_run(c.write_mask ? mask.data() : nullptr);
    run.src = c.in_place ? d : src.data();
    run.dst = d;
    run.scale = c.scale;
    k.execute(run);
    dst.assign(d, d + bytes);
}

// Case `i` of combo and dt at tier isa: the fused kernel against the
// reference, bit for bit (a failure names the case after `what`).
void check_fused_case(cpu_isa isa, prng_t &g, const fused_combo_t &combo,
        data_type dt, int i, const std::string &what = "") {
    const fused_case_t c = make_fused_case(g, combo, dt, i);
    const auto src = make_data(g, dt, static_cast<size_t>(c.n));
    std::vector<uint8_t> mask_init(
            (c.mask_u8 ? c.mask_off0 + c.n : (c.mask_off0 + c.n + 7) / 8) + 8);
    for (uint8_t &b : mask_init)
        b = static_cast<uint8_t>(g());
    std::vector<uint8_t> want_dst, want_mask;
    run_fused_ref(c, src, mask_init, want_dst, want_mask);
    fused_conf_t fc;
    fc.rng = c.rng_conf(c.mask_u8 ? 0 : c.mask_off0);
    fc.dt = dt;
    fc.write_mask = c.write_mask;
    fc.mask = c.mask_u8 ? c.rng_conf(c.mask_off0, data_type::u8).dst
                        : fc.rng.dst;
    std::string why;
    const bool expect = isa >= cpu_isa::avx2 || dt != data_type::f16;
    ASSERT_EQ(init_jit_fused(isa, fc, why), expect)
            << what << c.str() << ": " << why;
    if (!expect) return;
    std::vector<uint8_t> dst, mask;
    run_fused_jit(*create_jit_fused(isa, fc), c, src, mask_init, dst, mask);
    const int64_t d = first_diff(want_dst, dst);
    const int64_t m = first_diff(want_mask, mask);
    ASSERT_EQ(d, -1) << what << c.str() << ": dst byte " << d << " differs";
    ASSERT_EQ(m, -1) << what << c.str() << ": mask byte " << m << " differs";
}

class FusedJitTier : public tier_suite_t {};

TEST_P(FusedJitTier, EqualsReference) {
    const cpu_isa isa = GetParam();
    prng_t g(2);
    constexpr int cases = 10;
    for (const fused_combo_t &combo : fused_combos())
        for (data_type dt : all_dts)
            for (int i = 0; i < cases; ++i) {
                check_fused_case(isa, g, combo, dt, i);
                if (::testing::Test::HasFatalFailure()) return;
            }
}

// --- tuning -----------------------------------------------------------------

// Kernels created while it lives use `t` (src/jit_tuning.hpp).
struct tuning_scope_t {
    explicit tuning_scope_t(const jit_tuning_t &t) { set_jit_tuning(t); }
    ~tuning_scope_t() { clear_jit_tuning(); }
    tuning_scope_t(const tuning_scope_t &) = delete;
    tuning_scope_t &operator=(const tuning_scope_t &) = delete;
};

// The tunings the kernels must give the same bits under: every entry;
// each entry with each field set to every other entry's value of it, one
// at a time (so each form of the code runs beside each value of the
// others); and non-temporal stores from 0 bytes, in place and not, so that
// the streaming functions run on the tests' sizes.
std::vector<std::pair<std::string, jit_tuning_t>> test_tunings() {
    std::vector<std::pair<std::string, jit_tuning_t>> v;
    const auto add = [&](const std::string &text) {
        jit_tuning_t t {};
        std::string why;
        EXPECT_TRUE(parse_jit_tuning(text, t, why)) << text << ": " << why;
        v.emplace_back(text, t);
    };
    for (const jit_tuning_entry_t &e : jit_tunings()) {
        const std::string name = e.values.name;
        add(name);
        for (const jit_tuning_entry_t &o : jit_tunings()) {
            const jit_tuning_t &a = e.values, &b = o.values;
            if (b.step_prefetch_units != a.step_prefetch_units)
                add(cat(name, ",step_prefetch_units=", b.step_prefetch_units));
            if (b.unit_prefetch_bytes != a.unit_prefetch_bytes)
                add(cat(name, ",unit_prefetch_bytes=", b.unit_prefetch_bytes));
            if (b.step_loop != a.step_loop)
                add(cat(name, ",step_loop=", int(b.step_loop)));
            if (b.scaled_select != a.scaled_select)
                add(cat(name, ",scaled_select=", int(b.scaled_select)));
            if (b.lazy_row_steps != a.lazy_row_steps)
                add(cat(name, ",lazy_row_steps=", b.lazy_row_steps));
            if (b.lazy_unit_groups != a.lazy_unit_groups)
                add(cat(name, ",lazy_unit_groups=", b.lazy_unit_groups));
            if (b.stream_in_place != a.stream_in_place)
                add(cat(name, ",stream_in_place=", int(b.stream_in_place)));
        }
        add(name + ",nt_min_bytes=0,stream_in_place=0");
        add(name + ",nt_min_bytes=0,stream_in_place=1");
    }
    // Every b lazy; prefetches past the data's end at each unit.
    add("default,lazy_min_bits=1");
    add("default,unit_prefetch_bytes=4096");
    // Duplicates (entries with equal values) run once.
    std::vector<std::pair<std::string, jit_tuning_t>> unique;
    for (const auto &t : v) {
        bool seen = false;
        for (const auto &u : unique) {
            const jit_tuning_t &a = u.second, &b = t.second;
            seen = seen
                    || (a.step_prefetch_units == b.step_prefetch_units
                            && a.unit_prefetch_bytes == b.unit_prefetch_bytes
                            && a.step_loop == b.step_loop
                            && a.scaled_select == b.scaled_select
                            && a.lazy_row_steps == b.lazy_row_steps
                            && a.lazy_unit_groups == b.lazy_unit_groups
                            && a.lazy_min_bits == b.lazy_min_bits
                            && a.nt_min_bytes == b.nt_min_bytes
                            && a.stream_in_place == b.stream_in_place);
        }
        if (!seen) unique.push_back(t);
    }
    return unique;
}

// Each CPU takes its entry: Zen 5 issue 30's values, and Intel family 6
// model 167, measured faster with them (and threshold32's units
// prefetched); Zen 4, Zen 3, other Intel CPUs and
// any other CPU those from before it (aee9367's), until measured.
TEST(JitTuning, EntriesByCpu) {
    const auto name = [](cpu_id_t::vendor_t v, int family, int model,
                              bool avx512f) {
        cpu_id_t c;
        c.vendor = v;
        c.family = family;
        c.model = model;
        c.avx512f = avx512f;
        return std::string(jit_tuning_for(c).name);
    };
    EXPECT_EQ(name(cpu_id_t::amd, 26, 2, true), "zen5");
    EXPECT_EQ(name(cpu_id_t::amd, 26, 68, true), "zen5");
    EXPECT_EQ(name(cpu_id_t::amd, 25, 17, true), "zen4");
    EXPECT_EQ(name(cpu_id_t::amd, 25, 1, false), "zen3");
    EXPECT_EQ(name(cpu_id_t::amd, 23, 49, false), "default");
    EXPECT_EQ(name(cpu_id_t::intel, 6, 167, true), "intel-6-167");
    EXPECT_EQ(name(cpu_id_t::intel, 6, 143, true), "intel");
    EXPECT_EQ(name(cpu_id_t::other, 6, 15, false), "default");
    EXPECT_STREQ(jit_tunings().back().values.name, "default");

    for (const char *n : {"zen5", "intel-6-167"}) {
        const jit_tuning_t &t = *find_jit_tuning(n);
        EXPECT_EQ(t.step_prefetch_units, 1) << n;
        EXPECT_TRUE(t.step_loop) << n;
        EXPECT_TRUE(t.scaled_select) << n;
        EXPECT_EQ(t.lazy_row_steps, 4) << n;
        EXPECT_FALSE(t.stream_in_place) << n;
    }
    EXPECT_EQ(find_jit_tuning("zen5")->lazy_unit_groups, 128);
    EXPECT_EQ(find_jit_tuning("intel-6-167")->lazy_unit_groups, 64);
    EXPECT_EQ(find_jit_tuning("intel-6-167")->unit_prefetch_bytes, 2048);
    for (const char *n : {"zen4", "zen3", "intel", "default"}) {
        const jit_tuning_t &t = *find_jit_tuning(n);
        EXPECT_EQ(t.step_prefetch_units, 0) << n;
        EXPECT_FALSE(t.step_loop) << n;
        EXPECT_FALSE(t.scaled_select) << n;
        EXPECT_EQ(t.lazy_row_steps, 2) << n;
        EXPECT_EQ(t.lazy_unit_groups, 64) << n;
        EXPECT_TRUE(t.stream_in_place) << n;
    }
    for (const char *n : {"zen5", "zen4", "zen3", "intel", "default"})
        EXPECT_EQ(find_jit_tuning(n)->unit_prefetch_bytes, 0) << n;
    for (const jit_tuning_entry_t &e : jit_tunings()) {
        EXPECT_EQ(e.values.lazy_min_bits, 8) << e.values.name;
        EXPECT_EQ(e.values.nt_min_bytes, 16.0 * 1024 * 1024) << e.values.name;
    }
}

// set_jit_tuning() and clear_jit_tuning() move the epoch that caches key
// on, and jit_tuning() follows them.
TEST(JitTuning, SetAndClear) {
    const uint64_t e0 = jit_tuning_epoch();
    const std::string detected = jit_tuning().name;
    jit_tuning_t t = *find_jit_tuning("zen4");
    t.lazy_row_steps = 4;
    set_jit_tuning(t);
    EXPECT_STREQ(jit_tuning().name, "zen4");
    EXPECT_EQ(jit_tuning().lazy_row_steps, 4);
    EXPECT_GT(jit_tuning_epoch(), e0);
    const uint64_t e1 = jit_tuning_epoch();
    clear_jit_tuning();
    EXPECT_GT(jit_tuning_epoch(), e1);
    EXPECT_EQ(jit_tuning().name, detected);
}

// RNDNN_JIT_TUNING's text: an entry and fields over it; errors name the
// part they refuse.
TEST(JitTuning, Parse) {
    jit_tuning_t t {};
    std::string why;
    ASSERT_TRUE(parse_jit_tuning("zen4,scaled_select=1,lazy_unit_groups=128,"
                                 "nt_min_bytes=0",
            t, why))
            << why;
    EXPECT_STREQ(t.name, "zen4");
    EXPECT_TRUE(t.scaled_select);
    EXPECT_EQ(t.lazy_unit_groups, 128);
    EXPECT_EQ(t.nt_min_bytes, 0.0);
    EXPECT_EQ(t.lazy_row_steps, 2);
    ASSERT_TRUE(parse_jit_tuning("", t, why)) << why;
    EXPECT_STREQ(t.name, detected_jit_tuning().name);
    EXPECT_FALSE(parse_jit_tuning("zen9", t, why));
    EXPECT_NE(why.find("'zen9' names no tuning (expected zen5, zen4"),
            std::string::npos)
            << why;
    for (const char *bad : {"zen5,lazy_unit_groups=96", "zen5,step_loop=2",
                 "zen5,lazy_row_steps=3", "zen5,prefetch=1",
                 "zen5,scaled_select", "zen5,nt_min_bytes=-1",
                 "zen5,step_prefetch_units=1.5"}) {
        EXPECT_FALSE(parse_jit_tuning(bad, t, why)) << bad;
        EXPECT_NE(why.find(std::string(bad).substr(5)), std::string::npos)
                << bad << ": " << why;
    }
}

class FusedJitTuning : public tier_suite_t {};

// The fused dropout kernel under every tuning: every form of its code (the
// consumer's prefetch, loop or unrolled steps, the scaled select or the
// general form, two or four steps a lazy row, lazy units of 64 or 128
// groups, streaming stores in place or not) writes the reference's bits.
TEST_P(FusedJitTuning, EqualsReferenceUnderEveryTuning) {
    const cpu_isa isa = GetParam();
    const std::vector<fused_combo_t> combos = {
            {rng_alg::philox4x32_10, bernoulli_method::bitsliced, 32},
            {rng_alg::philox4x32_10, bernoulli_method::bitsliced, 13,
                    bitsliced_eval_t::lazy},
            {rng_alg::threefry4x32_20, bernoulli_method::bitsliced, 8},
            {rng_alg::philox4x32_10, bernoulli_method::bitsliced, 6},
            {rng_alg::philox4x32_10, bernoulli_method::bitsliced, 1},
            {rng_alg::philox4x32_10, bernoulli_method::threshold32, 1},
            {rng_alg::multfly, bernoulli_method::bytewise, 1},
    };
    for (const auto &[text, t] : test_tunings()) {
        const tuning_scope_t scope(t);
        prng_t g(3);
        for (const fused_combo_t &combo : combos)
            for (data_type dt : all_dts)
                for (int i = 0; i < 10; ++i) {
                    check_fused_case(isa, g, combo, dt, i,
                            "RNDNN_JIT_TUNING=" + text + ": ");
                    if (::testing::Test::HasFatalFailure()) return;
                }
    }
}

INSTANTIATE_TEST_SUITE_P(Tiers, FusedJitTuning,
        ::testing::ValuesIn(impl::jit_tiers()), tier_param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FusedJitTuning);

// The apply kernel's streaming function in place and not, under
// stream_in_place 0 and 1: the same bits.
TEST(ApplyJit, EqualsReferenceUnderEveryTuning) {
    SKIP_WITHOUT_JIT();
    prng_t g(4);
    for (int in_place_nt = 0; in_place_nt <= 1; ++in_place_nt) {
        jit_tuning_t t = jit_tuning();
        t.stream_in_place = in_place_nt != 0;
        const tuning_scope_t scope(t);
        for (const apply_impl_t *entry : jit_apply_entries()) {
            apply_conf_t conf;
            conf.n_linear = 1;
            conf.stream_out = true;
            std::string why;
            if (!entry->init(conf, why)) continue;
            const auto jit = entry->create(conf);
            const auto ref = create_ref_apply(conf);
            constexpr int64_t n = 20000;
            constexpr size_t max_lead = 48;
            const auto src = make_data(g, conf.dt, n + max_lead);
            const auto mask = make_mask(g, n);
            for (int k = 0; k < 8; ++k) {
                apply_case_t c;
                c.conf = conf;
                c.n = n - k;
                // Aligned and not: 0, 16, 32 or max_lead elements.
                c.lead = static_cast<size_t>(k % 4) * 16;
                c.in_place = k % 2 == 1;
                c.linear = {pick(g, linear_values), -0.f};
                const size_t es = 4;
                std::vector<uint8_t> s(src.begin(),
                        src.begin() + (c.lead + c.n) * es);
                const auto run = [&](const apply_kernel_t &kern) {
                    // 64-byte aligned buffers, so that the streaming
                    // function runs where lead is a multiple of 16.
                    std::vector<float> d((s.size() + 64 + 128) / 4 + 1);
                    auto *base = reinterpret_cast<uint8_t *>(d.data());
                    base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
                    std::vector<float> sbuf((s.size() + 128) / 4 + 1);
                    auto *sb = reinterpret_cast<uint8_t *>(sbuf.data());
                    sb += (64 - reinterpret_cast<uintptr_t>(sb) % 64) % 64;
                    std::memcpy(sb, s.data(), s.size());
                    std::memset(base, 0xa5, s.size() + 64);
                    if (c.in_place) std::memcpy(base, s.data(), s.size());
                    const uint8_t *sp = (c.in_place ? base : sb) + c.lead * es;
                    apply_call_t call {sp, mask.data(),
                            base + c.lead * es, c.n, c.linear.data()};
                    call.stream = true;
                    kern(call);
                    return std::vector<uint8_t>(base, base + s.size() + 64);
                };
                const auto want = run(*ref), got = run(*jit);
                ASSERT_EQ(first_diff(want, got), -1)
                        << entry->name << " stream_in_place=" << in_place_nt
                        << ": " << c.str();
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Tiers, FusedJitTier,
        ::testing::ValuesIn(impl::jit_tiers()), tier_param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FusedJitTier);

TEST(FusedJit, Declines) {
    SKIP_WITHOUT_JIT();
    const auto conf = [](rng_alg alg, const post_ops &po, data_type mask_dt) {
        const memory::desc md({100}, mask_dt);
        rng::desc d(alg, md);
        primitive_attr attr;
        attr.set_post_ops(po);
        fused_conf_t fc;
        fc.rng = make_rng_conf(d, attr);
        fc.write_mask = true;
        fc.mask = md;
        return fc;
    };
    post_ops bern;
    bern.append_bernoulli(0.5);
    post_ops normal;
    normal.append_normal(0.f, 1.f);
    for (cpu_isa isa : available_tiers()) {
        std::string why;
        EXPECT_FALSE(init_jit_fused(
                isa, conf(rng_alg::mt19937, bern, data_type::bit), why));
        EXPECT_NE(why.find("mt19937"), std::string::npos) << why;
        EXPECT_FALSE(init_jit_fused(
                isa, conf(rng_alg::philox4x32_10, bern, data_type::u8), why));
        EXPECT_NE(why.find("bit"), std::string::npos) << why;
        EXPECT_FALSE(init_jit_fused(isa,
                conf(rng_alg::philox4x32_10, normal, data_type::f32), why));
        EXPECT_NE(why.find("bernoulli"), std::string::npos) << why;
        fused_conf_t fc = conf(rng_alg::philox4x32_10, bern, data_type::bit);
        fc.dt = data_type::f16;
        EXPECT_EQ(init_jit_fused(isa, fc, why), isa >= cpu_isa::avx2) << why;
        if (isa < cpu_isa::avx2) {
            EXPECT_NE(why.find("F16C"), std::string::npos) << why;
        }
        fc.dt = data_type::f32;
        fc.mask = memory::desc({100}, data_type::f32);
        EXPECT_FALSE(init_jit_fused(isa, fc, why));
        EXPECT_NE(why.find("f32:100"), std::string::npos) << why;
        fc.mask = fc.rng.dst;
        fc.rng.max_isa = cpu_isa::none;
        EXPECT_FALSE(init_jit_fused(isa, fc, why));
        EXPECT_NE(why.find("capped"), std::string::npos) << why;
    }
}

#endif

} // namespace
