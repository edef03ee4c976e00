// The RNG's ISA tiers: every JIT tier must write exactly the bytes of the
// reference kernel (padding, bits outside the tensor and the bytes around
// the buffer included), and the implementation list must pick the tier an
// ISA cap asks for.
//
// JitEquality.* compares, for every (algorithm, distribution, dst type)
// the JIT kernels cover (and a few they do not, which fall back), the
// output at each ISA tier the machine has (sse41 .. get_max_cpu_isa())
// with the output at cap `none` (the reference kernel "ref:any"). Cases
// come from a std::mt19937_64 seeded per combination; every failure prints
// the whole case. RNDNN_TEST_JIT_SEED=<n> changes the base seed (default
// 1), RNDNN_TEST_JIT_CASES=<n> the number of cases per covered
// combination (default 64).
//
// JitDispatch.* states which implementation serves a problem, JitIsa.* the
// tiers' names and the attribute's cap; RNDNN_MAX_CPU_ISA and
// RNDNN_VERBOSE through the CLI are test_cli_isa.cpp's.
//
// RngJit.* reach inside the RNG: OnednnKeepProbabilityIsExact checks the
// oneDNN keep probability (rng/distributions.hpp) against oneDNN's rule for
// every f32 rate it lists; LazyBitslicedEqualsEager checks bitsliced(b)
// evaluated lazily against the eager code (and the reference), for every b
// in 1..32, every engine with lazy code, p = 0, 1, 2^-32, 1 - 2^-32,
// dyadic and not, at runtime, offsets that cut groups and carry the block
// index past 2^32, unaligned dst, bit, u8, s32 and f32 dst and 1..3
// threads (the JIT kernels' entry
// points, so built in JIT builds only);
// TruncatedNormalWordSweepEqualsTheReference runs truncated_normal's unit
// code alone (dist_unit_kernel_t) on chosen words against truncnorm_value,
// F64WordSweepEqualsTheReference f64 normal's, lognormal's, exponential's,
// gumbel's, laplace's and rayleigh's against their reference forms,
// TruncatedNormalF64WordSweepEqualsTheReference f64 truncated_normal's.
// In a build without JIT (get_max_cpu_isa() == none) the tests that need a
// tier skip.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "rng/distributions.hpp"
#include "rng/engines/philox.hpp"
#if RNDNN_ENABLE_JIT
#include "rng/jit/jit_rng_dist.hpp"
#endif
#include "rng/rng_impl.hpp"
#include "src/cpu_isa.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;
using namespace rndnn::test;

namespace {

constexpr int64_t s64_max = std::numeric_limits<int64_t>::max();
constexpr int64_t s64_min = std::numeric_limits<int64_t>::min();
constexpr int32_t s32_max = std::numeric_limits<int32_t>::max();
constexpr int32_t s32_min = std::numeric_limits<int32_t>::min();

// The tiers that have JIT kernels: the library's one list, best first.
using impl::jit_tiers;
// The tiers this process may use: test::available_tiers() (test_utils.hpp).

std::string jit_name(cpu_isa isa) { return impl::jit_impl_name(isa); }

// --- problems ---------------------------------------------------------------

// onednn: the Bernoulli method bernoulli_method::onednn (oneDNN's dropout
// rule, threshold32 on complemented words), named "bernoulli_onednn" so
// that a combination's name does not read as the algorithm
// philox4x32_10_onednn.
enum class dist_kind {
    bits,
    threshold32,
    onednn,
    bitsliced,
    bytewise,
    uniform,
    normal,
    exponential,
    gumbel,
    lognormal,
    truncated_normal,
    laplace,
    rayleigh
};

const char *kind2str(dist_kind k) {
    switch (k) {
        case dist_kind::bits: return "bits";
        case dist_kind::threshold32: return "threshold32";
        case dist_kind::onednn: return "bernoulli_onednn";
        case dist_kind::bytewise: return "bytewise";
        case dist_kind::bitsliced: return "bitsliced";
        case dist_kind::uniform: return "uniform";
        case dist_kind::normal: return "normal";
        case dist_kind::exponential: return "exponential";
        case dist_kind::gumbel: return "gumbel";
        case dist_kind::lognormal: return "lognormal";
        case dist_kind::truncated_normal: return "truncated_normal";
        case dist_kind::laplace: return "laplace";
        case dist_kind::rayleigh: return "rayleigh";
    }
    return "?";
}

// One (algorithm, distribution, dst type) combination.
struct combo_t {
    rng_alg alg;
    dist_kind kind;
    data_type dt;
    int b = 0; // bitsliced b
    bool covered = true; // the JIT kernels are to serve it
    std::string name() const {
        std::string s = std::string(alg2str(alg)) + "_" + kind2str(kind);
        if (kind == dist_kind::bitsliced) s += std::to_string(b);
        return s + "_" + dt2str(dt);
    }
};

// What the JIT kernels cover (docs/jit.md): philox4x32_10,
// philox4x32_10_onednn, threefry4x32_20, mcg31m1, multfly with every
// (distribution, dst type, method) the reference writes: bits -> u32,
// threshold32, onednn and bitsliced(b) -> bit/u8/s32/f32 (mcg31m1's 31-bit
// words refuse onednn and bitsliced), uniform -> f32/bf16/f16 (avx2 and
// up: FMA; and f64 but from mcg31m1), normal, exponential, gumbel,
// laplace, rayleigh, lognormal and truncated_normal -> f32/bf16 (and f16
// from avx2 on: F16C; and to f64 too, but from mcg31m1).
// mt19937 falls back to the reference at every tier: ref:any, or
// simd:<tier> (the reference with that tier's vector words) where the
// tier has them.
void PrintTo(const combo_t &c, std::ostream *os) { *os << c.name(); }

// True if implementation `impl` may serve a primitive with ISA cap `cap`:
// the reference, or a JIT or simd tier at most the cap.
bool impl_within_cap(const std::string &impl, cpu_isa cap) {
    if (impl == "ref:any") return true;
    for (cpu_isa isa : jit_tiers())
        if (impl == jit_name(isa) || impl == impl::simd_impl_name(isa))
            return isa <= cap;
    return false;
}

// The distributions that write f64.
const dist_kind f64_kinds[] = {dist_kind::uniform, dist_kind::normal,
        dist_kind::exponential, dist_kind::gumbel, dist_kind::lognormal,
        dist_kind::laplace, dist_kind::rayleigh, dist_kind::truncated_normal};

std::vector<combo_t> covered_combos() {
    std::vector<combo_t> c;
    const data_type mask_types[]
            = {data_type::bit, data_type::u8, data_type::s32, data_type::f32};
    const data_type real_types[]
            = {data_type::f32, data_type::bf16, data_type::f16};
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::mcg31m1,
                 rng_alg::multfly}) {
        c.push_back({alg, dist_kind::bits, data_type::u32});
        for (data_type t : mask_types) {
            c.push_back({alg, dist_kind::threshold32, t});
            if (alg == rng_alg::mcg31m1) continue;
            c.push_back({alg, dist_kind::onednn, t});
            c.push_back({alg, dist_kind::bytewise, t});
            // Eager (b = 2, 3) and lazy (b = 8, 13, 32) evaluation.
            for (int b : {1, 2, 3, 8, 13, 32})
                if (t == data_type::bit || b != 13)
                    c.push_back({alg, dist_kind::bitsliced, t, b});
        }
        for (data_type t : real_types) {
            c.push_back({alg, dist_kind::uniform, t});
            c.push_back({alg, dist_kind::normal, t});
        }
        // f64: two 32-bit words an element as a qword lane (avx2 and up).
        if (alg != rng_alg::mcg31m1)
            for (dist_kind k : f64_kinds)
                c.push_back({alg, k, data_type::f64});
        for (data_type t : real_types)
            for (dist_kind k : {dist_kind::exponential, dist_kind::gumbel,
                         dist_kind::lognormal, dist_kind::truncated_normal,
                         dist_kind::laplace, dist_kind::rayleigh})
                c.push_back({alg, k, t});
    }
    return c;
}

std::vector<combo_t> uncovered_combos() {
    std::vector<combo_t> c;
    const rng_alg mt = rng_alg::mt19937;
    c.push_back({mt, dist_kind::bits, data_type::u32, 0, false});
    c.push_back({mt, dist_kind::threshold32, data_type::bit, 0, false});
    c.push_back({mt, dist_kind::threshold32, data_type::f32, 0, false});
    c.push_back({mt, dist_kind::onednn, data_type::bit, 0, false});
    c.push_back({mt, dist_kind::bitsliced, data_type::u8, 5, false});
    c.push_back({mt, dist_kind::uniform, data_type::f32, 0, false});
    c.push_back({mt, dist_kind::normal, data_type::f32, 0, false});
    c.push_back({mt, dist_kind::normal, data_type::f16, 0, false});
    c.push_back({mt, dist_kind::exponential, data_type::f32, 0, false});
    c.push_back({mt, dist_kind::gumbel, data_type::bf16, 0, false});
    c.push_back({mt, dist_kind::lognormal, data_type::f16, 0, false});
    c.push_back({mt, dist_kind::truncated_normal, data_type::bf16, 0, false});
    c.push_back({mt, dist_kind::laplace, data_type::f16, 0, false});
    c.push_back({mt, dist_kind::rayleigh, data_type::bf16, 0, false});
    // f64 from 31-bit words runs the reference at every tier.
    for (dist_kind k : f64_kinds)
        c.push_back({rng_alg::mcg31m1, k, data_type::f64, 0, false});
    return c;
}

// One complete generation problem with its arguments.
struct case_t {
    combo_t combo;
    // distribution parameters
    double p = 0.5;
    bool runtime_p = false;
    float rt_p = 0.5f;
    // The post-op's doubles (an f64 dst's take values no f32 holds).
    double a = 0.0, b = 1.0, mean = 0.0, stddev = 1.0; // truncated_normal too
    double loc = 0.0, scale = 1.0; // exponential, gumbel, laplace, rayleigh
    // dst
    memory::desc md;
    std::string layout; // how md was built
    size_t bytes = 0; // of the dst buffer (padded host size included)
    size_t lead = 0; // bytes between the guard and the data handle
    // arguments
    data_type seed_dt = data_type::s64;
    int64_t seed = 0; // an s32 seed is stored sign-extended
    int64_t offset = 0;
    int64_t strm = 0;
    int nthr = 1;
    scalar_kind scalars = scalar_kind::host;

    std::string str() const {
        std::ostringstream os;
        os << std::setprecision(17) << alg2str(combo.alg) << " "
           << kind2str(combo.kind);
        switch (combo.kind) {
            case dist_kind::bits: break;
            case dist_kind::threshold32:
            case dist_kind::onednn:
            case dist_kind::bitsliced:
            case dist_kind::bytewise:
                if (combo.kind == dist_kind::bitsliced) os << "(b=" << combo.b << ")";
                if (runtime_p)
                    os << " p=runtime:" << std::setprecision(9) << rt_p
                       << " (hex " << std::hexfloat << rt_p
                       << std::defaultfloat << ")" << std::setprecision(17);
                else
                    os << " p=" << p << " (hex " << std::hexfloat << p
                       << std::defaultfloat << ")";
                break;
            case dist_kind::uniform: os << " a=" << a << " b=" << b; break;
            case dist_kind::normal:
            case dist_kind::lognormal:
                os << " mean=" << mean << " stddev=" << stddev;
                break;
            case dist_kind::exponential:
            case dist_kind::gumbel:
            case dist_kind::laplace:
            case dist_kind::rayleigh:
                os << " loc=" << loc << " scale=" << scale;
                break;
            case dist_kind::truncated_normal:
                os << " mean=" << mean
                   << " stddev=" << stddev << " a=" << a << " b=" << b;
                break;
        }
        os << " dst=" << md.str() << " (" << layout << ", " << md.nelems()
           << " elems, " << bytes << " bytes, handle lead " << lead
           << ") seed=" << seed << " (" << dt2str(seed_dt)
           << ") offset=" << offset << " stream=" << strm
           << " nthr=" << nthr << " scalars="
           << (scalars == scalar_kind::host ? "host" : "memory");
        return os.str();
    }
};

primitive_attr make_attr(const case_t &c, cpu_isa cap) {
    post_ops po;
    switch (c.combo.kind) {
        case dist_kind::bits: break;
        case dist_kind::threshold32:
            po.append_bernoulli(c.runtime_p ? 0.875 : c.p,
                    bernoulli_method::threshold32);
            break;
        case dist_kind::onednn:
            po.append_bernoulli(c.runtime_p ? 0.875 : c.p,
                    bernoulli_method::onednn);
            break;
        case dist_kind::bitsliced:
            po.append_bernoulli(c.runtime_p ? 0.875 : c.p,
                    bernoulli_method::bitsliced, c.combo.b);
            break;
        case dist_kind::bytewise:
            po.append_bernoulli(c.runtime_p ? 0.875 : c.p,
                    bernoulli_method::bytewise);
            break;
        case dist_kind::uniform: po.append_uniform(c.a, c.b); break;
        case dist_kind::normal: po.append_normal(c.mean, c.stddev); break;
        case dist_kind::exponential: po.append_exponential(c.scale); break;
        case dist_kind::gumbel: po.append_gumbel(c.loc, c.scale); break;
        case dist_kind::laplace: po.append_laplace(c.loc, c.scale); break;
        case dist_kind::rayleigh: po.append_rayleigh(c.scale); break;
        case dist_kind::lognormal:
            po.append_lognormal(c.mean, c.stddev);
            break;
        case dist_kind::truncated_normal:
            po.append_truncated_normal(c.mean, c.stddev, c.a, c.b);
            break;
    }
    primitive_attr attr;
    attr.set_post_ops(po);
    attr.set_max_cpu_isa(cap);
    return attr;
}

rng::desc make_rng_desc(const case_t &c) {
    rng::desc d(c.combo.alg, c.md);
    d.seed_dt = c.seed_dt;
    d.with_offset = true;
    d.runtime_p = c.runtime_p;
    d.scalars = c.scalars;
    if (c.combo.alg == rng_alg::multfly) d.name = "encoder.layer3.dropout";
    return d;
}

// Runs the case with ISA cap `cap` into `handle`; returns the
// implementation's name.
std::string execute_case(const case_t &c, cpu_isa cap, void *handle) {
    const rng::desc d = make_rng_desc(c);
    const rng::primitive_desc pd(d, make_attr(c, cap));
    const rng prim(pd);
    // The memory form of the scalars reads these variables.
    int32_t seed32 = static_cast<int32_t>(c.seed);
    int64_t seed64 = c.seed, offset = c.offset, strm = c.strm;
    float p = c.rt_p;
    std::unordered_map<int, memory> args {{RNDNN_ARG_DST, memory(c.md, handle)}};
    if (c.scalars == scalar_kind::host) {
        args[RNDNN_ARG_SEED] = c.seed_dt == data_type::s32
                ? memory::scalar(seed32)
                : memory::scalar(seed64);
        args[RNDNN_ARG_OFFSET] = memory::scalar(offset);
        args[RNDNN_ARG_STREAM] = memory::scalar(strm);
        if (c.runtime_p) args[RNDNN_ARG_P] = memory::scalar(p);
    } else {
        const memory::desc s32md({1}, data_type::s32), s64md({1}, data_type::s64),
                f32md({1}, data_type::f32);
        args[RNDNN_ARG_SEED] = c.seed_dt == data_type::s32
                ? memory(s32md, &seed32)
                : memory(s64md, &seed64);
        args[RNDNN_ARG_OFFSET] = memory(s64md, &offset);
        args[RNDNN_ARG_STREAM] = memory(s64md, &strm);
        if (c.runtime_p) args[RNDNN_ARG_P] = memory(f32md, &p);
    }
    prim.execute(stream(c.nthr), args);
    return pd.impl_name();
}

// --- the case generator -----------------------------------------------------

// prng_t, pick and uniform_s64: test_utils.hpp.

bool coin(prng_t &g, double p_true) {
    return std::bernoulli_distribution(p_true)(g);
}

dims row_major_strides(const dims &shape, dim_t inner = 1) {
    dims st(shape.size());
    dim_t acc = inner;
    for (size_t d = shape.size(); d-- > 0;) {
        st[d] = acc;
        acc *= std::max<dim_t>(shape[d], 1);
    }
    return st;
}

// A random shape with about n elements and 1 to 3 dims.
dims make_shape(prng_t &g, dim_t n) {
    const int nd = static_cast<int>(uniform_s64(g, 1, 3));
    dims s;
    if (nd == 1 || n < 2) {
        s = {n};
    } else if (nd == 2) {
        const dim_t a = uniform_s64(g, 1, std::min<dim_t>(n, 40));
        s = {a, std::max<dim_t>(1, n / a)};
    } else {
        const dim_t a = uniform_s64(g, 1, std::min<dim_t>(n, 8));
        const dim_t b = uniform_s64(g, 1, std::min<dim_t>(n / a, 16));
        s = {a, b, std::max<dim_t>(1, n / (a * b))};
    }
    std::shuffle(s.begin(), s.end(), g);
    return s;
}

// Sets c.md, c.layout and c.bytes: a dst of `shape` laid out by `kind`.
void make_layout(prng_t &g, case_t &c, const dims &shape, int kind) {
    const data_type t = c.combo.dt;
    const bool bit = t == data_type::bit;
    const size_t nd = shape.size();
    std::ostringstream os;
    switch (kind) {
        case 0: // dense
            c.md = memory::desc(shape, t);
            os << "dense";
            break;
        case 1: { // dense with a first-element offset (bit: not whole bytes)
            const dim_t off0 = bit ? pick<dim_t>(g, {1, 3, 5, 7, 9, 13, 31, 33, 63})
                                   : pick<dim_t>(g, {1, 2, 3, 5, 7, 17});
            c.md = memory::desc(shape, t, row_major_strides(shape), off0);
            os << "dense offset0=" << off0;
            break;
        }
        case 2: { // padded inside a larger host buffer
            dims before(nd), after(nd);
            for (size_t d = 0; d < nd; ++d) {
                before[d] = uniform_s64(g, 0, 3);
                after[d] = uniform_s64(g, 0, 3);
            }
            const auto pad = memory::pad(shape, t, before, after);
            c.md = pad.md;
            c.bytes = pad.host_size;
            os << "padded";
            break;
        }
        case 3: { // strides in a random dim order (reversed: transposed),
                  // with gaps between rows
            std::vector<size_t> order(nd); // innermost first
            for (size_t d = 0; d < nd; ++d)
                order[d] = nd - 1 - d;
            if (coin(g, 0.5)) std::reverse(order.begin(), order.end());
            if (coin(g, 0.3)) std::shuffle(order.begin(), order.end(), g);
            dims st(nd);
            dim_t acc = uniform_s64(g, 1, 3);
            for (size_t d : order) {
                st[d] = acc;
                acc *= std::max<dim_t>(shape[d], 1) + uniform_s64(g, 0, 2);
            }
            const dim_t off0 = uniform_s64(g, 0, 11);
            c.md = memory::desc(shape, t, st, off0);
            os << "strided";
            break;
        }
        default: { // row-major with inner stride 2
            const dim_t off0 = uniform_s64(g, 0, 5);
            c.md = memory::desc(shape, t, row_major_strides(shape, 2), off0);
            os << "inner stride 2";
            break;
        }
    }
    c.layout = os.str();
    c.bytes = std::max(c.bytes, c.md.get_size());
}

// Bucket of total sizes: tiny 1..63, tails 64..200, a few thousand, large
// (> 70000, so that several threads and many 4096-element blocks run).
dim_t make_nelems(prng_t &g, int bucket) {
    switch (bucket) {
        case 0: return uniform_s64(g, 1, 63);
        case 1: return uniform_s64(g, 64, 200);
        case 2: return uniform_s64(g, 1000, 6000);
        default: return uniform_s64(g, 70001, 140000);
    }
}

// The kind onednn's p values beside threshold32's: the keep probabilities
// of oneDNN's dropout at a few rates (dropout::keep_probability(r, true),
// the mask's p that dropout's onednn_compat draws with).
std::vector<double> onednn_keep_ps() {
    std::vector<double> ps;
    for (double rate : {0.0, 1.0, 0.5, 0.1, 0.9, 1e-9, 1 - 1e-9})
        ps.push_back(dropout::keep_probability(rate, true));
    return ps;
}

case_t make_case(prng_t &g, const combo_t &combo, int index) {
    case_t c;
    c.combo = combo;

    // Sizes cycle through the buckets, most cases small.
    static const int buckets[] = {0, 1, 2, 3, 0, 1, 0, 2, 1, 3, 0, 1};
    const int bucket = buckets[index % std::size(buckets)];
    const dim_t n = make_nelems(g, bucket);
    // Case 5 is an empty tensor.
    const dims shape = index == 5 ? dims {3, 0, 7} : make_shape(g, n);
    make_layout(g, c, shape, static_cast<int>(uniform_s64(g, 0, 4)));

    const dim_t ne = c.md.nelems();
    // Offsets off every multiple of 4/16/32/64, a range across 2^32 (the
    // counters' low word wraps), and the s64 end.
    const std::vector<int64_t> offsets = {0, 1, 3, 5, 7, 31, 33, 4095,
            (int64_t(1) << 32) - ne / 2 - 1, (int64_t(1) << 32) - 13,
            (int64_t(1) << 40) + 3, s64_max - ne, s64_max - ne - 1,
            s64_max - ne - 3, uniform_s64(g, 0, int64_t(1) << 62),
            uniform_s64(g, 0, 1000000)};
    c.offset = pick(g, offsets);

    if (coin(g, 0.25)) {
        c.seed_dt = data_type::s32;
        c.seed = coin(g, 0.5) ? pick<int64_t>(g, {-1, -5, s32_min, s32_max, 0})
                              : static_cast<int32_t>(g());
    } else {
        c.seed = coin(g, 0.5)
                ? pick<int64_t>(g, {0, 1, -1, -7, s64_min, s64_max,
                          0x0123456789abcdefLL, int64_t(1) << 32})
                : static_cast<int64_t>(g());
    }
    c.strm = coin(g, 0.5) ? pick<int64_t>(g, {0, 1, -1, 12345, s64_min, s64_max})
                          : static_cast<int64_t>(g());
    c.nthr = bucket == 3 ? static_cast<int>(uniform_s64(g, 2, 3))
                         : static_cast<int>(uniform_s64(g, 1, 3));
    c.scalars = coin(g, 0.25) ? scalar_kind::memory : scalar_kind::host;
    const size_t esize = std::max<size_t>(dt_bits(combo.dt) / 8, 1);
    c.lead = coin(g, 0.5) ? esize : 0; // handles not 64-byte aligned

    switch (combo.kind) {
        case dist_kind::bits: break;
        case dist_kind::threshold32:
        case dist_kind::onednn:
        case dist_kind::bitsliced:
        case dist_kind::bytewise: {
            const int b = combo.kind == dist_kind::bitsliced ? combo.b : 32;
            // A tie of the bitsliced rounding: an odd multiple of 2^-(b+1).
            const int64_t odd
                    = 2 * uniform_s64(g, 0, (int64_t(1) << b) - 1) + 1;
            const double tie
                    = static_cast<double>(odd) * std::ldexp(1.0, -(b + 1));
            const bool onednn = combo.kind == dist_kind::onednn;
            std::vector<double> ps = {0.0, 1.0, 0.5, 0.3, 1e-9,
                    1.0 - std::ldexp(1.0, -33), std::ldexp(1.0, -32),
                    0.7, 0.123456789, tie,
                    std::uniform_real_distribution<double>(0, 1)(g)};
            if (onednn)
                for (double keep : onednn_keep_ps())
                    ps.push_back(keep);
            c.p = pick(g, ps);
            c.runtime_p = index % 3 == 2;
            std::vector<float> rps = {0.f, 1.f, 0.5f, 0.3f, 1e-9f,
                    0.99999994f, 0x1p-32f, static_cast<float>(tie),
                    std::uniform_real_distribution<float>(0, 1)(g)};
            if (onednn)
                for (double keep : onednn_keep_ps())
                    rps.push_back(static_cast<float>(keep));
            c.rt_p = pick(g, rps);
            break;
        }
        case dist_kind::uniform: {
            // Huge spans (up to the largest the dst type holds: creation
            // refuses more), an empty one, and one in the subnormals.
            const data_type dt = combo.dt;
            const float top = dt == data_type::f16 ? 65519.f // below 65520
                    : dt == data_type::bf16        ? 3.39e38f
                                                   : 3.4e38f;
            const float big = dt == data_type::f16 ? 6e4f : 1.5e38f;
            const float wide = dt == data_type::f16 ? 3e4f : 1e30f;
            const float mid = dt == data_type::f16 ? 1e3f : 1e6f;
            // Doubles no f32 holds (f32, bf16, f16: rounded to f32), and
            // for f64 ranges past f32's.
            std::vector<std::pair<double, double>> ab = {{0.f, 1.f},
                    {-3.f, 5.5f}, {1e-3f, 1e-3f}, {-big, big}, {0.f, top},
                    {-wide, wide}, {mid, mid + 1.f}, {0.f, 1e-38f},
                    {-2.f, -1.f}, {-7.25f, 1e-7f}, {0.1, 0.3}};
            if (dt == data_type::f64)
                ab.insert(ab.end(), {{-1e300, 1e300}, {1e39, 1e39 + 1e25}});
            const auto r = pick(g, ab);
            c.a = r.first;
            c.b = r.second;
            break;
        }
        case dist_kind::normal: {
            std::vector<std::pair<double, double>> ms = {{0.f, 1.f},
                    {2.f, 0.5f}, {-1e3f, 7.f}, {0.f, 0.f}, {1e-3f, 1e4f},
                    {3.f, 0.f}, {-0.f, 1e-30f}, {0.1, 0.7}};
            if (combo.dt == data_type::f64)
                ms.insert(ms.end(), {{1e300, 1e290}, {-1e39, 1e-50}});
            const auto r = pick(g, ms);
            c.mean = r.first;
            c.stddev = r.second;
            break;
        }
        case dist_kind::exponential:
        case dist_kind::gumbel:
        case dist_kind::laplace:
        case dist_kind::rayleigh: {
            // Up to the largest scale f16 holds (exponential: 16.64 *
            // scale below 65520), zero, and subnormal values.
            const bool f16 = combo.dt == data_type::f16;
            std::vector<std::pair<double, double>> ls = {{0.f, 1.f},
                    {2.f, 0.5f}, {-1e3f, 7.f}, {0.f, 0.f}, {1.f, 3000.f},
                    {f16 ? 3e4f : 3e37f, f16 ? 1e3f : 1e36f},
                    {-0.f, 1e-30f}, {5.f, 1e-38f}, {0.1, 0.3}};
            if (combo.dt == data_type::f64)
                ls.insert(ls.end(), {{1e39, 1e300}, {-0.3, 1e-310}});
            const auto r = pick(g, ls);
            c.loc = r.first;
            c.scale = r.second;
            break;
        }
        case dist_kind::lognormal: {
            // Values near f16's largest (exp(11.09) = 65520), underflow to
            // subnormals and 0, sigma 0 (one value).
            const bool f16 = combo.dt == data_type::f16;
            std::vector<std::pair<double, double>> ms = {{0.f, 1.f},
                    {2.f, 0.5f}, {-90.f, 3.f}, {0.f, 0.f}, {-1e3f, 1.f},
                    {f16 ? 5.f : 80.f, 1.f}, {-100.f, 10.f}, {1.f, 1e-30f},
                    {0.1, 0.3}};
            if (combo.dt == data_type::f64)
                ms.insert(ms.end(), {{700.1, 0.5}, {-1e39, 1e37}});
            const auto r = pick(g, ms);
            c.mean = r.first;
            c.stddev = r.second;
            break;
        }
        case dist_kind::truncated_normal: {
            // (mean, stddev, a, b): both tails, one side, a narrow
            // interval, bounds 8 to 9 sigma out, bounds beyond 12 sigma
            // (infinite), a bound at -0, doubles no f32 holds (f32, bf16,
            // f16: rounded to f32), and for f64 parameters past f32's
            // range.
            struct tn_t {
                double mean, stddev, a, b;
            };
            std::vector<tn_t> ps = {{0.f, 1.f, -2.f, 2.f},
                    {0.f, 1.f, -1e4f, 1e4f}, {1.5f, 0.3f, 1.6f, 100.f},
                    {0.f, 1.f, -50.f, -0.5f}, {0.f, 1.f, 8.5f, 20.f},
                    {0.f, 1.f, -8.9f, -8.2f}, {-3.f, 2.f, -3.1f, -3.05f},
                    {0.f, 1.f, -0.f, 3.f}, {100.f, 1e-3f, 99.f, 100.0005f},
                    {0.f, 1.f, -8.7f, 8.7f}, {0.1, 0.7, -0.3, 1.9}};
            if (combo.dt == data_type::f64)
                ps.insert(ps.end(),
                        {{0.1, 0.7, -1e300, 0.1 + 6.2 * 0.7},
                                {1e300, 1e290, 9.99e299, 1e301},
                                {-1e-300, 1e-305, -1e-299,
                                        -1e-300 + 3e-305}});
            const tn_t r = pick(g, ps);
            c.mean = r.mean;
            c.stddev = r.stddev;
            c.a = r.a;
            c.b = r.b;
            break;
        }
    }
    return c;
}

uint64_t base_seed() {
    const char *s = std::getenv("RNDNN_TEST_JIT_SEED");
    return s && *s ? std::strtoull(s, nullptr, 0) : 1;
}

int cases_per_combo(bool covered) {
    const char *s = std::getenv("RNDNN_TEST_JIT_CASES");
    const int n = s && *s ? std::atoi(s) : 64;
    return covered ? std::max(n, 1) : std::max(n / 4, 1);
}

// FNV-1a: a seed per combination that does not depend on the library.
uint64_t fnv1a(const std::string &s) {
    uint64_t h = 1469598103934665603ULL;
    for (unsigned char ch : s)
        h = (h ^ ch) * 1099511628211ULL;
    return h;
}

// --- JitEquality: every tier writes the reference's bytes -------------------

// One test a combination and JIT tier (the tier in its name).
class JitEquality
    : public ::testing::TestWithParam<std::tuple<combo_t, cpu_isa>> {};

TEST_P(JitEquality, EqualsReference) {
    const combo_t combo = std::get<0>(GetParam());
    const cpu_isa tier = std::get<1>(GetParam());
    SKIP_UNAVAILABLE_TIER(tier);
    const uint64_t seed = base_seed() ^ fnv1a(combo.name());
    prng_t g(seed);
    const int ncases = cases_per_combo(combo.covered);
    constexpr size_t guard = 64;
    int failures = 0;
    for (int index = 0; index < ncases && failures < 3; ++index) {
        const case_t c = make_case(g, combo, index);
        std::ostringstream where;
        where << "case " << index << " of " << combo.name()
              << " (RNDNN_TEST_JIT_SEED=" << base_seed()
              << ", generator seed " << seed << "): " << c.str();
        SCOPED_TRACE(where.str());

        // The same garbage around and inside both buffers.
        const size_t total = guard + c.lead + c.bytes + guard;
        std::vector<uint8_t> garbage(total);
        for (auto &byte : garbage)
            byte = static_cast<uint8_t>(g());
        std::vector<uint8_t> ref = garbage;
        std::string ref_impl;
        ASSERT_NO_THROW(ref_impl = execute_case(c, cpu_isa::none,
                                ref.data() + guard + c.lead));
        ASSERT_EQ(ref_impl, "ref:any");
        ASSERT_TRUE(std::equal(ref.begin(), ref.begin() + guard + c.lead,
                garbage.begin()))
                << "the reference wrote before the buffer";
        ASSERT_TRUE(std::equal(ref.end() - guard, ref.end(), garbage.end() - guard))
                << "the reference wrote after the buffer";

        {
            std::vector<uint8_t> out = garbage;
            std::string impl;
            ASSERT_NO_THROW(impl = execute_case(
                                    c, tier, out.data() + guard + c.lead))
                    << "cap " << isa2str(tier);
            EXPECT_TRUE(impl_within_cap(impl, tier))
                    << impl << " serves a primitive capped at " << isa2str(tier);
            if (out == ref) continue;
            size_t first = 0, count = 0;
            for (size_t k = total; k-- > 0;)
                if (out[k] != ref[k]) {
                    first = k;
                    ++count;
                }
            const auto rel = static_cast<int64_t>(first)
                    - static_cast<int64_t>(guard + c.lead);
            ADD_FAILURE() << "cap " << isa2str(tier) << " (" << impl
                          << ") differs from ref:any in " << count
                          << " bytes; first at byte " << rel
                          << " from the data handle"
                          << (rel < 0 || rel >= static_cast<int64_t>(c.bytes)
                                             ? " (outside the buffer)"
                                             : "")
                          << ": got 0x" << std::hex << int(out[first])
                          << ", reference 0x" << int(ref[first])
                          << ", garbage was 0x" << int(garbage[first])
                          << std::dec;
            ++failures;
        }
    }
}

std::string combo_test_name(
        const ::testing::TestParamInfo<std::tuple<combo_t, cpu_isa>> &info) {
    const combo_t &combo = std::get<0>(info.param);
    return combo.name() + (combo.covered ? "" : "_fallback") + "_"
            + isa2str(std::get<1>(info.param));
}

// The build's JIT tiers, whatever this CPU has (a test's name never
// depends on the CPU); none in a build without JIT.
INSTANTIATE_TEST_SUITE_P(Covered, JitEquality,
        ::testing::Combine(::testing::ValuesIn(covered_combos()),
                ::testing::ValuesIn(impl::jit_tiers())),
        combo_test_name);
INSTANTIATE_TEST_SUITE_P(Uncovered, JitEquality,
        ::testing::Combine(::testing::ValuesIn(uncovered_combos()),
                ::testing::ValuesIn(impl::jit_tiers())),
        combo_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(JitEquality);

// A few hand-written edge cases for every covered combination: a single
// element, a tensor ending exactly at 2^63 - 1, dims of 1, a bit dst whose
// first element is the last bit of a byte.
class JitEqualityEdges : public tier_suite_t {};

TEST_P(JitEqualityEdges, HandPickedShapesAndOffsets) {
    const cpu_isa tier = GetParam();
    struct edge_t {
        dims shape;
        int64_t offset;
        int nthr;
        dim_t off0; // for a dense dst with a first-element offset
    };
    const edge_t edges[] = {{{1}, 0, 1, 0}, {{1}, s64_max - 1, 1, 7},
            {{2}, s64_max - 2, 2, 0}, {{1, 1, 1}, 3, 1, 1},
            {{65}, s64_max - 65, 3, 7}, {{1, 70001, 1}, 1, 3, 15},
            {{3, 1, 33}, 31, 2, 0}, {{100003}, s64_max - 100003, 3, 0},
            {{4096 * 3 + 1}, 4095, 2, 1}, {{64, 2049}, 63, 3, 9}};
    for (const combo_t &combo : covered_combos()) {
        prng_t g(fnv1a(combo.name()));
        int index = 0;
        for (const edge_t &e : edges) {
            // Random parameters (runtime p every third); shape replaced.
            case_t c = make_case(g, combo, index++);
            const bool bit = combo.dt == data_type::bit;
            c.md = memory::desc(e.shape, combo.dt, row_major_strides(e.shape),
                    bit ? e.off0 : (e.off0 & 3));
            c.layout = "dense, edge";
            c.bytes = c.md.get_size();
            c.lead = 0;
            c.offset = e.offset;
            c.nthr = e.nthr;
            SCOPED_TRACE(combo.name() + ": " + c.str());
            std::vector<uint8_t> garbage(c.bytes + 64);
            for (auto &byte : garbage)
                byte = static_cast<uint8_t>(g());
            std::vector<uint8_t> ref = garbage;
            ASSERT_NO_THROW(execute_case(c, cpu_isa::none, ref.data()));
            std::vector<uint8_t> out = garbage;
            ASSERT_NO_THROW(execute_case(c, tier, out.data()));
            EXPECT_TRUE(out == ref) << "cap " << isa2str(tier);
        }
    }
}

// Outputs of at least the tuning's nt_min_bytes (16 MiB) of f32 values are stored
// non-temporally where the kernel's dst is aligned: the same bits, aligned
// (lead 0) or not (lead 4: the regular stores), with a tail and two
// threads.
TEST_P(JitEqualityEdges, LargeOutputsStreamAndEqualTheReference) {
    const cpu_isa tier = GetParam();
    for (const combo_t &combo : covered_combos()) {
        if (combo.dt != data_type::f32 || combo.alg != rng_alg::philox4x32_10)
            continue;
        prng_t g(fnv1a(combo.name()));
        for (size_t lead : {size_t(0), size_t(4)}) {
            case_t c = make_case(g, combo, 0);
            const dims shape = {(dim_t(1) << 22) + 37};
            c.md = memory::desc(shape, combo.dt);
            c.layout = "dense, large";
            c.bytes = c.md.get_size();
            c.lead = lead;
            c.offset = 5;
            c.nthr = 2;
            SCOPED_TRACE(combo.name() + ": " + c.str());
            // 64-byte aligned storage, the handle `lead` bytes in.
            std::vector<uint64_t> ref_buf((c.bytes + 128) / 8);
            std::vector<uint64_t> out_buf(ref_buf.size());
            auto at = [&](std::vector<uint64_t> &b) {
                const auto base = reinterpret_cast<uintptr_t>(b.data());
                return reinterpret_cast<uint8_t *>((base + 63) / 64 * 64 + lead);
            };
            ASSERT_NO_THROW(execute_case(c, cpu_isa::none, at(ref_buf)));
            ASSERT_NO_THROW(execute_case(c, tier, at(out_buf)));
            EXPECT_EQ(std::memcmp(at(out_buf), at(ref_buf), c.bytes), 0)
                    << "cap " << isa2str(tier);
        }
    }
}

// Bernoulli with a p tensor: the tier's kernel (its bits kernel's words,
// decided as the reference decides) writes the reference's bits, for each
// algorithm whose words are addressed by counter (mt19937's sequential
// words are the reference's to draw), dst type, f32 and bf16 p, a p that
// broadcasts, offsets near 2^63 - 1, heads and tails of units, threads.
TEST_P(JitEqualityEdges, PTensorEqualsTheReference) {
    const cpu_isa tier = GetParam();
    struct edge_t {
        dims shape, pdims;
        int64_t offset;
        int nthr;
    };
    const edge_t edges[] = {{{1}, {1}, 0, 1}, {{4097}, {4097}, 5, 2},
            {{3, 5000}, {3, 5000}, 4093, 3}, {{7, 300}, {1, 300}, 1, 2},
            {{6, 2, 65}, {6, 1, 1}, 63, 1},
            {{100003}, {100003}, s64_max - 100003, 3}};
    prng_t g(17);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::multfly, rng_alg::mt19937})
        for (data_type dt :
                {data_type::bit, data_type::u8, data_type::s32, data_type::f32})
            for (data_type pdt : {data_type::f32, data_type::bf16})
                for (const edge_t &e : edges) {
                    rng::desc d(alg, memory::desc(e.shape, dt));
                    d.p_tensor = memory::desc(e.pdims, pdt);
                    d.with_offset = true;
                    const dim_t np = d.p_tensor.nelems();
                    std::vector<float> p32(np);
                    std::vector<uint16_t> p16(np);
                    for (dim_t i = 0; i < np; ++i) {
                        p32[i] = i % 5 == 0 ? float(i % 2) : u(g);
                        p16[i] = impl::f32_to_bf16(p32[i]);
                    }
                    void *pdata = pdt == data_type::bf16
                            ? static_cast<void *>(p16.data())
                            : static_cast<void *>(p32.data());
                    post_ops po;
                    po.append_bernoulli(0.5);
                    auto exec = [&](cpu_isa cap, std::string &impl) {
                        primitive_attr attr;
                        attr.set_post_ops(po);
                        attr.set_max_cpu_isa(cap);
                        const rng::primitive_desc pd(d, attr);
                        impl = pd.impl_name();
                        std::vector<uint8_t> out(d.dst.get_size());
                        rng(pd).execute(stream(e.nthr),
                                {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                                        {RNDNN_ARG_SRC,
                                                memory(d.p_tensor, pdata)},
                                        {RNDNN_ARG_SEED,
                                                memory::scalar(int64_t(9))},
                                        {RNDNN_ARG_OFFSET,
                                                memory::scalar(e.offset)},
                                        {RNDNN_ARG_STREAM,
                                                memory::scalar(int64_t(3))}});
                        return out;
                    };
                    std::string ref_impl, impl;
                    const auto ref = exec(cpu_isa::none, ref_impl);
                    const auto out = exec(tier, impl);
                    const std::string what = impl::cat(alg2str(alg), " ",
                            dt2str(dt), " p ", dt2str(pdt), " ",
                            impl::dims2str(e.shape), " p ",
                            impl::dims2str(e.pdims), " offset ", e.offset);
                    EXPECT_EQ(ref_impl, "ref:any") << what;
                    EXPECT_EQ(impl,
                            alg == rng_alg::mt19937 ? mt19937_impl_name(tier)
                                                    : jit_name(tier))
                            << what;
                    EXPECT_TRUE(out == ref) << what << " cap " << isa2str(tier);
                }
}

// Bernoulli with a p tensor at the words: each element's p is its own
// word W's value W 2^-32 in f32 (rounded, or truncated to bf16), one ulp
// above or below it, or an edge (0, 1, 2^-32, 2^-33, 1 - 2^-24, a
// subnormal), so that the tier's compare meets W = p 2^32 and its
// neighbours; lengths with odd tails of the compare's 16-element blocks.
TEST_P(JitEqualityEdges, PTensorAtTheWordsEqualsTheReference) {
    const cpu_isa tier = GetParam();
    const float edges[8] = {0.f, 1.f, 0x1p-32f, 0x1p-33f, 1.f - 0x1p-24f,
            0x1p-149f, 0x1.8p-140f, 0x1p-126f};
    const int64_t seed = 5, strm = 2, offset = 13;
    for (const dims &shape : {dims {4096 + 37}, dims {3, 1001}, dims {15}})
        for (data_type dt : {data_type::bit, data_type::u8})
            for (data_type pdt : {data_type::f32, data_type::bf16}) {
                const memory::desc wmd(shape, data_type::u32);
                const dim_t n = wmd.nelems();
                std::vector<uint32_t> w(n);
                rng::desc wd(rng_alg::philox4x32_10, wmd);
                wd.with_offset = true;
                rng(rng::primitive_desc(wd, {})).execute(stream(1),
                        {{RNDNN_ARG_DST, memory(wmd, w.data())},
                                {RNDNN_ARG_SEED, memory::scalar(seed)},
                                {RNDNN_ARG_OFFSET, memory::scalar(offset)},
                                {RNDNN_ARG_STREAM, memory::scalar(strm)}});
                std::vector<uint32_t> p32(n);
                std::vector<uint16_t> p16(n);
                int ties = 0; // elements with W = p 2^32 in f32
                for (dim_t i = 0; i < n; ++i) {
                    const float at = std::ldexp(float(w[i]), -32);
                    uint32_t b = impl::float_bits(at);
                    uint32_t h = b >> 16; // bf16 bits: truncated
                    switch (i % 4) {
                        case 0: ties += double(at) * 0x1p32 == w[i]; break;
                        case 1: b += b < 0x3f800000u; h += h < 0x3f80u; break;
                        case 2: b -= b > 0; h -= h > 0; break;
                        default: {
                            const float e = edges[i / 4 % 8];
                            b = impl::float_bits(e);
                            h = impl::f32_to_bf16(e);
                        }
                    }
                    p32[i] = b;
                    p16[i] = static_cast<uint16_t>(h);
                }
                if (n > 1000) {
                    EXPECT_GT(ties, 0) << impl::dims2str(shape);
                }
                rng::desc d(rng_alg::philox4x32_10, memory::desc(shape, dt));
                d.p_tensor = memory::desc(shape, pdt);
                d.with_offset = true;
                void *pdata = pdt == data_type::bf16
                        ? static_cast<void *>(p16.data())
                        : static_cast<void *>(p32.data());
                post_ops po;
                po.append_bernoulli(0.5);
                auto exec = [&](cpu_isa cap) {
                    primitive_attr attr;
                    attr.set_post_ops(po);
                    attr.set_max_cpu_isa(cap);
                    std::vector<uint8_t> out(d.dst.get_size());
                    rng(rng::primitive_desc(d, attr))
                            .execute(stream(2),
                                    {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                                            {RNDNN_ARG_SRC,
                                                    memory(d.p_tensor, pdata)},
                                            {RNDNN_ARG_SEED,
                                                    memory::scalar(seed)},
                                            {RNDNN_ARG_OFFSET,
                                                    memory::scalar(offset)},
                                            {RNDNN_ARG_STREAM,
                                                    memory::scalar(strm)}});
                    return out;
                };
                EXPECT_TRUE(exec(tier) == exec(cpu_isa::none))
                        << dt2str(dt) << " p " << dt2str(pdt) << " "
                        << impl::dims2str(shape) << " cap " << isa2str(tier);
            }
}

INSTANTIATE_TEST_SUITE_P(Tiers, JitEqualityEdges,
        ::testing::ValuesIn(impl::jit_tiers()), tier_param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(JitEqualityEdges);

// --- JitDispatch: which implementation serves a problem ---------------------

struct dispatch_case_t {
    combo_t combo;
    memory::desc md;
    bool runtime_p = false;
    std::string str() const {
        return combo.name() + " dst=" + md.str()
                + (runtime_p ? " runtime p" : "");
    }
};

// The implementation that serves dc with ISA cap `cap` (or, without
// set_cap, with a fresh attribute's default).
std::string impl_for(const dispatch_case_t &dc, cpu_isa cap,
        bool set_cap = true) {
    case_t c;
    c.combo = dc.combo;
    c.md = dc.md;
    c.runtime_p = dc.runtime_p;
    c.p = 0.3;
    c.a = -1.f;
    c.b = 2.f;
    primitive_attr attr = make_attr(c, cap);
    if (!set_cap) { // a fresh attribute: its default cap
        primitive_attr fresh;
        fresh.set_post_ops(attr.get_post_ops());
        attr = fresh;
    }
    return rng::primitive_desc(make_rng_desc(c), attr).impl_name();
}

// Covered problems in several layouts: dense, padded, transposed, a bit dst
// starting inside a byte.
std::vector<dispatch_case_t> covered_dispatch_cases() {
    std::vector<dispatch_case_t> v;
    for (const combo_t &combo : covered_combos()) {
        const data_type t = combo.dt;
        v.push_back({combo, memory::desc({1000}, t)});
        v.push_back({combo,
                memory::pad({7, 45, 13}, t, {1, 3, 5}, {2, 0, 3}).md});
        v.push_back({combo, memory::desc({7, 45, 13}, t, {1, 7 * 13, 7}, 3)});
        v.push_back({combo, memory::desc({5, 77}, t, {77, 1}, 3)});
        if (combo.kind == dist_kind::threshold32
                || combo.kind == dist_kind::onednn
                || combo.kind == dist_kind::bytewise
                || combo.kind == dist_kind::bitsliced)
            v.push_back({combo, memory::desc({333}, t), true});
    }
    return v;
}

std::vector<dispatch_case_t> uncovered_dispatch_cases() {
    std::vector<dispatch_case_t> v;
    for (const combo_t &combo : uncovered_combos())
        v.push_back({combo, memory::desc({1000}, combo.dt)});
    return v;
}

// sse41 has no FMA, which uniform's value is, and no F16C, and its f64
// kernels are not written: it declines uniform, f16 and f64 values; f64
// needs 32-bit words, which mcg31m1's are not (docs/jit.md).
bool tier_covers(cpu_isa tier, const combo_t &combo) {
    if (combo.dt == data_type::f64 && combo.alg == rng_alg::mcg31m1)
        return false;
    return !(tier == cpu_isa::sse41
            && (combo.kind == dist_kind::uniform
                    || combo.dt == data_type::f16
                    || combo.dt == data_type::f64));
}

TEST(JitDispatch, CapNoneSelectsReference) {
    for (const auto &dc : covered_dispatch_cases())
        EXPECT_EQ(impl_for(dc, cpu_isa::none), "ref:any") << dc.str();
    for (const auto &dc : uncovered_dispatch_cases())
        EXPECT_EQ(impl_for(dc, cpu_isa::none), "ref:any") << dc.str();
}

TEST(JitDispatch, CoveredProblemsUseTheCappedTier) {
    SKIP_WITHOUT_JIT();
    for (const auto &dc : covered_dispatch_cases()) {
        for (cpu_isa tier : available_tiers()) {
            const std::string want
                    = tier_covers(tier, dc.combo) ? jit_name(tier) : "ref:any";
            EXPECT_EQ(impl_for(dc, tier), want)
                    << dc.str() << " cap " << isa2str(tier);
        }
        // No cap: the best tier this process may use.
        const std::vector<cpu_isa> tiers = available_tiers();
        const cpu_isa best = *std::max_element(tiers.begin(), tiers.end());
        const std::string want
                = tier_covers(best, dc.combo) ? jit_name(best) : "ref:any";
        EXPECT_EQ(impl_for(dc, cpu_isa::all, false), want)
                << dc.str() << " default cap";
    }
}

// The simplest statement of the above, for a quick look.
TEST(JitDispatch, PhiloxBernoulliBitUsesEachTier) {
    SKIP_WITHOUT_JIT();
    const dispatch_case_t dc {
            {rng_alg::philox4x32_10, dist_kind::threshold32, data_type::bit},
            memory::desc({64, 1024}, data_type::bit)};
    for (cpu_isa tier : available_tiers())
        EXPECT_EQ(impl_for(dc, tier), jit_name(tier)) << isa2str(tier);
    EXPECT_EQ(impl_for(dc, cpu_isa::none), "ref:any");
}

TEST(JitDispatch, UncoveredProblemsUseReference) {
    std::vector<cpu_isa> caps = available_tiers();
    caps.push_back(cpu_isa::none);
    caps.push_back(cpu_isa::all); // no cap
    for (const auto &dc : uncovered_dispatch_cases())
        for (cpu_isa cap : caps)
            EXPECT_EQ(impl_for(dc, cap),
                    dc.combo.alg == rng_alg::mt19937 ? mt19937_impl_name(cap)
                                                     : "ref:any")
                    << dc.str() << " cap " << isa2str(cap);
}

// Every (distribution, dst type, method) that the reference writes, for
// every algorithm with JIT code, is served by the JIT at each tier this
// process may use, but for the declines tier_covers() states (sse41:
// uniform, f16, f64; mcg31m1: f64): not a list of covered problems, but every dst type and
// every method tried, so that a new pair left to ref:any fails here.
TEST(JitDispatch, EveryPairTheReferenceWritesHasAJitKernel) {
    SKIP_WITHOUT_JIT();
    const dist_kind kinds[] = {dist_kind::bits, dist_kind::threshold32,
            dist_kind::onednn, dist_kind::bitsliced, dist_kind::bytewise,
            dist_kind::uniform, dist_kind::normal, dist_kind::exponential,
            dist_kind::gumbel, dist_kind::lognormal,
            dist_kind::truncated_normal, dist_kind::laplace,
            dist_kind::rayleigh};
    int pairs = 0;
    for (rng_alg alg : rng_algs()) {
        // An algorithm with JIT code: its raw words run on a JIT tier.
        const dispatch_case_t words {{alg, dist_kind::bits, data_type::u32},
                memory::desc({1000}, data_type::u32)};
        if (impl_for(words, cpu_isa::all).rfind("jit:", 0) != 0) continue;
        for (dist_kind kind : kinds)
            for (int t = 0; t <= static_cast<int>(data_type::f64); ++t)
                for (int b : {1, 3, 5, 8, 12, 31, 32}) {
                    if (kind != dist_kind::bitsliced && b != 1) continue;
                    const combo_t combo {
                            alg, kind, static_cast<data_type>(t), b};
                    dispatch_case_t dc {combo, {}};
                    try { // a problem the reference takes?
                        dc.md = memory::desc({1000}, combo.dt);
                        impl_for(dc, cpu_isa::none);
                    } catch (const error &) {
                        continue;
                    }
                    ++pairs;
                    for (cpu_isa tier : available_tiers()) {
                        const std::string want = tier_covers(tier, combo)
                                ? jit_name(tier)
                                : "ref:any";
                        EXPECT_EQ(impl_for(dc, tier), want)
                                << dc.str() << " cap " << isa2str(tier);
                    }
                }
    }
    // 4 JIT engines of 32-bit words (2 philox layouts, threefry, multfly):
    // bits, 4 mask types x (threshold32, onednn, bytewise, 7 b), 3 x
    // uniform, normal, exponential, gumbel, lognormal, truncated_normal,
    // laplace and rayleigh, f64 x 8; mcg31m1: bits, 4 x threshold32, 3 x
    // 8, f64 x 8 (on the reference).
    EXPECT_EQ(pairs, 4 * (1 + 4 * 10 + 24 + 8) + (1 + 4 + 24 + 8));
}

TEST(JitDispatch, Sse41DeclinesUniform) {
    if (get_max_cpu_isa() < cpu_isa::sse41)
        GTEST_SKIP() << "sse41 not available: get_max_cpu_isa() = "
                     << isa2str(get_max_cpu_isa());
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::mcg31m1})
        for (data_type t : {data_type::f32, data_type::bf16}) {
            const dispatch_case_t dc {
                    {alg, dist_kind::uniform, t}, memory::desc({4096}, t)};
            EXPECT_EQ(impl_for(dc, cpu_isa::sse41), "ref:any") << dc.str();
        }
}

// truncated_normal runs on every tier (docs/jit.md), but for f16 at sse41
// (no F16C), which the reference serves.
TEST(JitDispatch, TruncatedNormalUsesEachTier) {
    SKIP_WITHOUT_JIT();
    post_ops po;
    po.append_truncated_normal(0.f, 1.f, -2.f, 2.f);
    for (cpu_isa cap : available_tiers())
        for (data_type t : {data_type::f32, data_type::bf16, data_type::f16}) {
            primitive_attr attr;
            attr.set_post_ops(po);
            attr.set_max_cpu_isa(cap);
            const rng::desc d(rng_alg::philox4x32_10, memory::desc({4096}, t));
            const bool jit = cap >= cpu_isa::avx2 || t != data_type::f16;
            EXPECT_EQ(std::string(rng::primitive_desc(d, attr).impl_name()),
                    jit ? jit_name(cap) : "ref:any")
                    << isa2str(cap) << " " << dt2str(t);
        }
}

// --- JitIsa: names, the cap attribute, the process-wide tier ----------------

TEST(JitIsa, NamesRoundTrip) {
    const std::pair<cpu_isa, const char *> names[] = {{cpu_isa::none, "none"},
            {cpu_isa::sse41, "sse41"}, {cpu_isa::avx2, "avx2"},
            {cpu_isa::avx512, "avx512"}, {cpu_isa::all, "all"}};
    for (const auto &n : names) {
        EXPECT_STREQ(isa2str(n.first), n.second);
        EXPECT_EQ(str2isa(n.second), n.first);
        EXPECT_EQ(str2isa(isa2str(n.first)), n.first);
    }
    EXPECT_LT(cpu_isa::none, cpu_isa::sse41);
    EXPECT_LT(cpu_isa::sse41, cpu_isa::avx2);
    EXPECT_LT(cpu_isa::avx2, cpu_isa::avx512);
    EXPECT_LT(cpu_isa::avx512, cpu_isa::all);
}

TEST(JitIsa, UnknownNameIsNamed) {
    EXPECT_ERROR_NAMES(str2isa("bogus"), "bogus");
    EXPECT_ERROR_NAMES(str2isa("avx512f"), "avx512f");
    EXPECT_ERROR_NAMES(str2isa(""), "''");
}

TEST(JitIsa, MaxCpuIsaIsATierAndStable) {
    const cpu_isa isa = get_max_cpu_isa();
    EXPECT_NE(std::string(isa2str(isa)), "unknown");
    EXPECT_EQ(get_max_cpu_isa(), isa);
    EXPECT_EQ(str2isa(isa2str(isa)), isa);
    std::cout << "[ info     ] get_max_cpu_isa() = " << isa2str(isa) << "\n";
}

TEST(JitIsa, AttributeCap) {
    primitive_attr attr;
    EXPECT_EQ(attr.get_max_cpu_isa(), cpu_isa::all); // caps nothing
    primitive_attr capped;
    capped.set_max_cpu_isa(cpu_isa::sse41);
    EXPECT_EQ(capped.get_max_cpu_isa(), cpu_isa::sse41);
    EXPECT_FALSE(attr == capped);
    capped.set_max_cpu_isa(cpu_isa::all);
    EXPECT_TRUE(attr == capped);
    // The primitive descriptor keeps the cap it was given.
    primitive_attr none;
    none.set_max_cpu_isa(cpu_isa::none);
    const rng::primitive_desc pd(
            rng::desc(rng_alg::philox4x32_10, memory::desc({8}, data_type::u32)),
            none);
    EXPECT_EQ(pd.get_attr().get_max_cpu_isa(), cpu_isa::none);
    EXPECT_STREQ(pd.impl_name(), "ref:any");
}

TEST(JitIsa, BadAttributeCapIsNamed) {
    primitive_attr attr;
    attr.set_max_cpu_isa(static_cast<cpu_isa>(99));
    const rng::desc d(rng_alg::philox4x32_10, memory::desc({8}, data_type::u32));
    EXPECT_ERROR_NAMES(rng::primitive_desc(d, attr), "99");
    attr.set_max_cpu_isa(static_cast<cpu_isa>(-1));
    EXPECT_ERROR_NAMES(rng::primitive_desc(d, attr), "-1");
}

// --- RngJit: what the public API does not reach ----------------------------

using impl::bernoulli_threshold32;
using impl::onednn_keep_probability;

// oneDNN keeps iff W > (2^32 - 1) * r (r the f32 rate, in double); the keep
// rule's p is exact: threshold32 of it is 2^32 - 1 - floor((2^32 - 1) * r)
// for every rate, including the four (the 0x1.00000xp-3x below) for which
// 1 - (1 - r) in double is not r, which is why p is not 1 - r.
TEST(RngJit, OnednnKeepProbabilityIsExact) {
    const double max32 = 4294967295.0;
    std::vector<float> rates = {0.f, 1.f, 0.5f, 0.1f, 0.9f, 1e-9f,
            0x1.000002p-32f, 0x1.000004p-32f, 0x1.000002p-31f,
            0x1.800002p-31f, std::nextafter(1.f, 0.f), 1e-45f};
    prng_t g(11);
    for (int i = 0; i < 1000; ++i)
        rates.push_back(std::uniform_real_distribution<float>(0.f, 1.f)(g));
    for (float r : rates) {
        const auto want = static_cast<uint64_t>(max32 - std::floor(max32 * r));
        EXPECT_EQ(bernoulli_threshold32(onednn_keep_probability(r)), want) << r;
    }
}


#if RNDNN_ENABLE_JIT

using impl::bitsliced_eval_t;
using impl::create_jit_rng;
using impl::create_ref_rng;
using impl::make_rng_conf;
using impl::rng_conf_t;
using impl::rng_run_t;

// The evaluation is internal (rng_conf_t::eval): the JIT kernels forced
// lazy, forced eager and the reference must give the same bits.
TEST(RngJit, LazyBitslicedEqualsEager) {
    SKIP_WITHOUT_JIT();
    prng_t g(21);
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::multfly})
        for (int b = 1; b <= 32; ++b) {
            const double ulp = std::ldexp(1.0, -b);
            const double ps[] = {0.0, 1.0, 0x1p-32, 1 - 0x1p-32, 0.5, 0.375,
                    ulp, 1 - ulp, 0.9, 0.1,
                    std::uniform_real_distribution<double>(0, 1)(g)};
            for (size_t i = 0; i < std::size(ps); ++i) {
                const double p = ps[i];
                const bool runtime = i % 4 == 3;
                const int64_t n = i % 3 == 0 ? uniform_s64(g, 1, 300)
                                             : uniform_s64(g, 2000, 40000);
                const int64_t off0 = pick<int64_t>(g, {0, 0, 3, 8, 13});
                // Bits as they are, or expanded to 0/1 values.
                const data_type dt = pick<data_type>(g, {data_type::bit,
                        data_type::bit, data_type::u8, data_type::s32,
                        data_type::f32});
                const memory::desc md({n}, dt, {1}, off0);
                rng::desc d(alg, md);
                d.with_offset = true;
                d.runtime_p = runtime;
                post_ops po;
                po.append_bernoulli(runtime ? 0.25 : p,
                        bernoulli_method::bitsliced, b);
                primitive_attr attr;
                attr.set_post_ops(po);
                rng_conf_t lazy = make_rng_conf(d, attr);
                rng_conf_t eager = lazy;
                lazy.eval = bitsliced_eval_t::lazy;
                eager.eval = bitsliced_eval_t::eager;
                // Block index c = (g / 32) * b / 4 passes 2^32 near g =
                // 2^39 / b: start there now and then.
                const int64_t carry = (int64_t(1) << 39) / b - n / 2;
                rng_run_t run;
                run.seed = g();
                run.stream = g();
                run.offset = pick<int64_t>(g, {0, 1, 31, 2047, 2049, carry,
                        carry + 17, uniform_s64(g, 0, int64_t(1) << 50)});
                run.p = runtime ? static_cast<float>(p) : p;
                run.nthr = static_cast<int>(uniform_s64(g, 1, 3));
                std::vector<uint8_t> want(md.get_size(), 0x5a);
                run.dst = want.data();
                create_ref_rng(eager)->execute(run);
                for (cpu_isa isa : available_tiers())
                    for (const rng_conf_t *c : {&eager, &lazy}) {
                        std::vector<uint8_t> got(md.get_size(), 0x5a);
                        run.dst = got.data();
                        create_jit_rng(isa, *c)->execute(run);
                        ASSERT_EQ(first_diff(want, got), -1)
                                << isa2str(isa) << " " << alg2str(alg)
                                << (c == &lazy ? " lazy" : " eager")
                                << " " << dt2str(dt)
                                << " b=" << b << " p=" << std::hexfloat
                                << run.p << std::defaultfloat
                                << " n=" << n << " offset=" << run.offset
                                << " offset0=" << off0
                                << " nthr=" << run.nthr;
                    }
            }
        }
}


// bytewise's ties come from chunks of tie words; a unit has more ties
// than a chunk holds about once in 10^3 units or less, so here a chunk holds
// one block (four ties) and runs out over and over: every tier must still
// give the reference's bits, for every dst type and counter-based engine,
// at offsets that end near 2^63 (the last units' tie words).
TEST(RngJit, BytewiseTieChunksEqualReference) {
    SKIP_WITHOUT_JIT();
    prng_t g(31);
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::multfly})
        for (data_type dt : {data_type::bit, data_type::u8, data_type::s32,
                     data_type::f32})
            for (int trial = 0; trial < 3; ++trial) {
                const int64_t n = uniform_s64(g, 1, 30000);
                const memory::desc md({n}, dt);
                rng::desc d(alg, md);
                d.with_offset = true;
                if (alg == rng_alg::multfly) d.name = "ties";
                post_ops po;
                po.append_bernoulli(
                        pick<double>(g, {0.9, 0.3, 1e-9, 0.99999999}),
                        bernoulli_method::bytewise);
                primitive_attr attr;
                attr.set_post_ops(po);
                rng_conf_t conf = make_rng_conf(d, attr);
                conf.tie_chunk_blocks = 1;
                rng_run_t run;
                run.seed = g();
                run.stream = g();
                run.offset = pick<int64_t>(g, {0, 2047, uniform_s64(g, 0, 1 << 30),
                        s64_max - n});
                run.p = conf.p;
                run.nthr = static_cast<int>(uniform_s64(g, 1, 3));
                std::vector<uint8_t> want(md.get_size(), 0x5a);
                run.dst = want.data();
                create_ref_rng(conf)->execute(run);
                for (cpu_isa isa : available_tiers()) {
                    std::vector<uint8_t> got(md.get_size(), 0x5a);
                    run.dst = got.data();
                    create_jit_rng(isa, conf)->execute(run);
                    ASSERT_EQ(first_diff(want, got), -1)
                            << isa2str(isa) << " " << alg2str(alg) << " "
                            << dt2str(dt) << " p=" << conf.p << " n=" << n
                            << " offset=" << run.offset;
                }
            }
}


// One unit of a distribution's JIT code on chosen words: the kernel copies
// jit_unit_words words from jit_rng_call_t::state to the frame's words,
// then runs the distribution's unit code (to call.dst), as
// jit_rng_generator_t does after the engine's.
class dist_unit_kernel_t : public impl::jit_generator_t {
public:
    dist_unit_kernel_t(cpu_isa isa, const rng_conf_t &conf)
        : jit_generator_t(isa), conf_(conf) {
        engine_ = impl::jit_engine_factory(conf_.alg)(conf_, *this, f_);
        std::string why;
        dist_ = impl::make_jit_dist(*this, f_, conf_, *engine_, why);
        if (!dist_) throw std::runtime_error(why);
        preamble(impl::jit_rng_frame_t::size);
        mov(f_.consts, ptr[f_.args + offsetof(impl::jit_rng_call_t, consts)]);
        mov(f_.dst, ptr[f_.args + offsetof(impl::jit_rng_call_t, dst)]);
        mov(rsi, ptr[f_.args + offsetof(impl::jit_rng_call_t, state)]);
        for (int i = 0; i < impl::jit_unit_words; ++i) {
            mov(eax, ptr[rsi + 4 * i]);
            mov(ptr[rsp + f_.words_off + 4 * i], eax);
        }
        dist_->emit_unit();
        postamble();
        fn_ = finalize<void (*)(const impl::jit_rng_call_t *)>();
    }

    // dst = the values of words[0 .. jit_unit_words).
    void run(const uint32_t *words, void *dst) const {
        auto c = std::make_unique<impl::jit_rng_consts_t>();
        dist_->fill_consts(0.0, *c);
        impl::jit_rng_call_t call {};
        call.dst = dst;
        call.units = 1;
        call.consts = c.get();
        call.state = const_cast<uint32_t *>(words);
        fn_(&call);
    }

private:
    const rng_conf_t conf_;
    impl::jit_rng_frame_t f_;
    std::unique_ptr<impl::jit_engine_t> engine_;
    std::unique_ptr<impl::jit_dist_t> dist_;
    void (*fn_)(const impl::jit_rng_call_t *) = nullptr;
};

// The first element at which the f64 unit code of conf at tier isa, run
// over words (whole units), differs in bits from want; -1 if none.
int64_t f64_unit_first_diff(cpu_isa isa, const rng_conf_t &conf,
        const std::vector<uint32_t> &words, const std::vector<double> &want) {
    const dist_unit_kernel_t kernel(isa, conf);
    std::vector<double> got(want.size(), 0.0);
    for (size_t i = 0; i < words.size(); i += impl::jit_unit_words)
        kernel.run(&words[i], &got[i / 2]);
    for (size_t i = 0; i < want.size(); ++i)
        if (impl::double_bits(got[i]) != impl::double_bits(want[i]))
            return static_cast<int64_t>(i);
    return -1;
}

// truncated_normal's JIT code against truncnorm_value (then rounded to the
// dst type) on chosen words, at every tier and dst type: every 4097th word,
// 0, 1, 2^31 and the last word, and the words beside each switch of
// region (p > 0.5, the central branch, r <= 5), found over all 2^24 cells,
// for bounds of every kind; mcg31m1's 31-bit words too.
TEST(RngJit, TruncatedNormalWordSweepEqualsTheReference) {
    SKIP_WITHOUT_JIT();
    struct tn_t {
        rng_alg alg;
        float mean, stddev, a, b;
    };
    const tn_t params[] = {{rng_alg::philox4x32_10, 0.f, 1.f, -2.f, 2.f},
            {rng_alg::philox4x32_10, 0.f, 1.f, -13.f, 13.f},
            {rng_alg::philox4x32_10, 1.f, 2.f, 1.f, 1e3f},
            {rng_alg::philox4x32_10, 0.f, 1.f, 8.5f, 30.f},
            {rng_alg::philox4x32_10, 0.f, 1.f, -8.9f, -8.8f},
            {rng_alg::philox4x32_10, 0.f, 1.f, -0.f, 0.25f},
            {rng_alg::mcg31m1, -1.f, 0.5f, -20.f, 3.f}};
    uint32_t regions = 0; // bit upper * 4 + central * 2 + (r <= 5)
    for (const tn_t &tp : params) {
        const bool mcg = tp.alg == rng_alg::mcg31m1;
        const int shift = impl::u24_shift(mcg);
        // 2^32 words (2^31: mcg31m1's 31-bit words).
        const uint64_t nwords = uint64_t(1) << (mcg ? 31 : 32);
        std::vector<uint32_t> words = {0, 1,
                static_cast<uint32_t>(nwords / 2),
                static_cast<uint32_t>(nwords - 1)};
        for (uint64_t w = 0; w < nwords; w += 4097)
            words.push_back(static_cast<uint32_t>(w));
        const auto conf_of = [&](data_type t) {
            post_ops po;
            po.append_truncated_normal(tp.mean, tp.stddev, tp.a, tp.b);
            primitive_attr attr;
            attr.set_post_ops(po);
            return make_rng_conf(rng::desc(tp.alg, memory::desc({64}, t)), attr);
        };
        // The cells beside each switch of region (the dst type changes
        // only the clamp).
        const impl::truncnorm_t c32 = conf_of(data_type::f32).truncnorm;
        int last = -1;
        for (uint32_t k = 0; k < (1u << 24); ++k) {
            const uint32_t j = k << 1 | 1u;
            const float p = c32.phi_a + static_cast<float>(j) * 0x1p-25f * c32.mass;
            const float q = c32.q_b
                    + static_cast<float>((1u << 25) - j) * 0x1p-25f * c32.mass;
            const bool upper = p > 0.5f;
            const float v = upper ? q : p;
            const bool central = v - 0.5f >= -impl::ppnd_split_q;
            const bool near = std::sqrt(0.f - impl::ln_approx(v))
                    <= impl::ppnd_split_r;
            const int region = upper * 4 + central * 2 + near;
            regions |= 1u << region;
            if (last >= 0 && region != last)
                for (uint32_t d = k - 1; d <= k; ++d)
                    for (uint32_t low : {0u, (1u << shift) - 1})
                        words.push_back(d << shift | low);
            last = region;
        }
        for (data_type t : {data_type::f32, data_type::bf16, data_type::f16}) {
            const rng_conf_t conf = conf_of(t);
            const impl::truncnorm_t &c = conf.truncnorm;
            std::vector<uint32_t> all = words;
            while (all.size() % impl::jit_unit_words != 0)
                all.push_back(all.back());
            // The reference's values, in dst's type.
            const size_t esize = dt_bits(t) / 8;
            std::vector<uint8_t> want(all.size() * esize);
            for (size_t i = 0; i < all.size(); ++i) {
                const float x = impl::truncnorm_value(all[i], shift, c);
                const uint32_t bits = t == data_type::f32 ? impl::float_bits(x)
                        : t == data_type::bf16           ? impl::f32_to_bf16(x)
                                                         : impl::f32_to_f16(x);
                std::memcpy(&want[i * esize], &bits, esize);
            }
            for (cpu_isa isa : available_tiers()) {
                if (isa < cpu_isa::avx2 && t == data_type::f16) continue;
                const dist_unit_kernel_t kernel(isa, conf);
                std::vector<uint8_t> got(want.size(), 0x5a);
                for (size_t i = 0; i < all.size(); i += impl::jit_unit_words)
                    kernel.run(&all[i], &got[i * esize]);
                const int64_t diff = first_diff(want, got);
                ASSERT_EQ(diff, -1)
                        << isa2str(isa) << " " << alg2str(tp.alg) << " "
                        << dt2str(t) << " mean " << tp.mean << " stddev "
                        << tp.stddev << " [" << tp.a << ", " << tp.b
                        << "]: word 0x" << std::hex
                        << all[static_cast<size_t>(diff) / esize];
            }
        }
    }
    // Both sides, each with the central branch and the two tails (a
    // central cell always has r <= 5: v >= 0.075 there).
    EXPECT_EQ(regions, 0xBBu);
}

// The f64 transcendental distributions' unit code (dist_unit_kernel_t)
// against the reference's forms on chosen u53s, each as a normal pair's
// radius and as its angle, at every tier with f64 kernels (avx2 and up):
// 0, 1, 2^52 and 2^53 - 1 and beside them; beside every switch of
// ln_approx_f64's region (u = (u53 + 1) 2^-53 a power of 2, or m =
// sqrt(0.5): the least u53 + 1 >= sqrt(0.5) 2^n, n = 1 .. 53) and of
// sincos_2pi_f64's quadrant (u53 = q 2^51 - 2^50) and t = 0 (u53 = q
// 2^51); every 2^53 / 4099th u53. The 11 bits below u53 are 0 or all ones.
// Parameters that clamp exp_approx_f64's argument below and give
// subnormals, and zero scales.
TEST(RngJit, F64WordSweepEqualsTheReference) {
    SKIP_WITHOUT_JIT();
    const uint64_t top = uint64_t(1) << 53;
    std::vector<uint64_t> u53s;
    const auto near = [&](uint64_t k) { // k - 2 .. k + 2, in [0, 2^53)
        for (uint64_t d = 0; d <= 4; ++d)
            if (k + d >= 2 && k + d - 2 < top) u53s.push_back(k + d - 2);
    };
    near(0);
    near(top / 2);
    near(top - 1);
    for (int n = 1; n <= 53; ++n) {
        near((uint64_t(1) << n) - 1); // u53 + 1 = 2^n
        const double c = std::ceil(std::ldexp(
                impl::bits_double(impl::sqrt_half_bits64), n));
        near(static_cast<uint64_t>(c) - 1);
    }
    for (uint64_t q = 0; q <= 4; ++q) {
        near(q * (uint64_t(1) << 51)); // t = 0
        if (q > 0) near(q * (uint64_t(1) << 51) - (uint64_t(1) << 50));
    }
    for (uint64_t i = 0; i < 4099; ++i)
        u53s.push_back(i * (top / 4099));
    // Pairs (u53s[i], u53s[i + 1]), whole units of them.
    const size_t npairs = (u53s.size() + 15) / 16 * 16;
    std::vector<uint32_t> words;
    std::vector<uint64_t> u53_at;
    for (size_t i = 0; i < npairs; ++i)
        for (size_t k : {i, i + 1}) {
            const uint64_t u53 = u53s[k % u53s.size()];
            const uint64_t x = u53 << 11 | (k % 2 == 0 ? 0u : 0x7ffu);
            words.push_back(static_cast<uint32_t>(x));
            words.push_back(static_cast<uint32_t>(x >> 32));
            u53_at.push_back(u53);
        }
    struct param_t {
        dist_kind kind;
        double p0, p1; // mean, stddev; loc, scale; scale
    };
    const param_t params[] = {{dist_kind::normal, 0.f, 1.f},
            {dist_kind::normal, 0.5f, 3.f}, {dist_kind::normal, -1e3f, 7.f},
            {dist_kind::normal, 0.f, 0.f}, {dist_kind::normal, 1e-3f, 1e4f},
            {dist_kind::normal, -0.f, 1e-30f},
            {dist_kind::lognormal, 0.f, 1.f},
            {dist_kind::lognormal, -700.f, 100.f},
            {dist_kind::lognormal, 3.f, 0.f},
            {dist_kind::exponential, 0.f, 1.f},
            {dist_kind::exponential, 0.f, 2.5f},
            {dist_kind::exponential, 0.f, 0.f},
            {dist_kind::gumbel, 0.f, 1.f}, {dist_kind::gumbel, 1.f, 3.f},
            {dist_kind::gumbel, -1e3f, 1e-30f},
            {dist_kind::laplace, 0.f, 1.f}, {dist_kind::laplace, -2.f, 3.f},
            {dist_kind::laplace, 1e3f, 1e-30f},
            {dist_kind::rayleigh, 0.f, 1.f}, {dist_kind::rayleigh, 0.f, 3.f},
            {dist_kind::rayleigh, 0.f, 0.f},
            {dist_kind::rayleigh, 0.f, 1e-30f},
            // Doubles no f32 holds, and past f32's range.
            {dist_kind::normal, 0.1, 0.7}, {dist_kind::normal, 1e300, 1e290},
            {dist_kind::lognormal, 0.1, 0.3},
            {dist_kind::exponential, 0.0, 0.3},
            {dist_kind::exponential, 0.0, 1e300},
            {dist_kind::gumbel, 0.1, 0.3}, {dist_kind::gumbel, -1e39, 1e39},
            {dist_kind::laplace, 0.1, 0.3},
            {dist_kind::rayleigh, 0.0, 0.3},
            {dist_kind::rayleigh, 0.0, 1e300}};
    for (const param_t &pm : params) {
        post_ops po;
        switch (pm.kind) {
            case dist_kind::normal: po.append_normal(pm.p0, pm.p1); break;
            case dist_kind::lognormal: po.append_lognormal(pm.p0, pm.p1); break;
            case dist_kind::exponential: po.append_exponential(pm.p1); break;
            case dist_kind::laplace: po.append_laplace(pm.p0, pm.p1); break;
            case dist_kind::rayleigh: po.append_rayleigh(pm.p1); break;
            default: po.append_gumbel(pm.p0, pm.p1); break;
        }
        primitive_attr attr;
        attr.set_post_ops(po);
        const rng_conf_t conf = make_rng_conf(rng::desc(rng_alg::philox4x32_10,
                                                      memory::desc({64}, data_type::f64)),
                attr);
        std::vector<double> want(npairs * 2);
        for (size_t i = 0; i < npairs; ++i) {
            const uint64_t ue = u53_at[2 * i], uo = u53_at[2 * i + 1];
            double *v = &want[2 * i];
            switch (pm.kind) {
                case dist_kind::normal:
                case dist_kind::lognormal:
                    impl::normal_pair_f64(ue, uo, pm.p0, pm.p1, &v[0], &v[1]);
                    if (pm.kind == dist_kind::lognormal)
                        for (int j = 0; j < 2; ++j)
                            v[j] = impl::exp_approx_f64(v[j]);
                    break;
                case dist_kind::exponential:
                    v[0] = impl::exponential_value_f64(ue, pm.p1);
                    v[1] = impl::exponential_value_f64(uo, pm.p1);
                    break;
                case dist_kind::laplace: // element k's first word: 2k
                    v[0] = impl::laplace_value_f64(
                            ue, words[4 * i], pm.p0, pm.p1);
                    v[1] = impl::laplace_value_f64(
                            uo, words[4 * i + 2], pm.p0, pm.p1);
                    break;
                case dist_kind::rayleigh:
                    v[0] = impl::rayleigh_value_f64(ue, pm.p1);
                    v[1] = impl::rayleigh_value_f64(uo, pm.p1);
                    break;
                default:
                    v[0] = impl::gumbel_value_f64(ue, pm.p0, pm.p1);
                    v[1] = impl::gumbel_value_f64(uo, pm.p0, pm.p1);
            }
        }
        for (cpu_isa isa : available_tiers()) {
            if (isa < cpu_isa::avx2) continue;
            const int64_t i = f64_unit_first_diff(isa, conf, words, want);
            ASSERT_EQ(i, -1) << isa2str(isa) << " " << kind2str(pm.kind)
                             << " (" << pm.p0 << ", " << pm.p1
                             << "): u53 0x" << std::hex
                             << u53_at[static_cast<size_t>(i)];
        }
    }
}

// f64 truncated_normal's unit code against truncnorm_value_f64 on chosen
// u53s, at every tier with f64 kernels (avx2 and up): 0, 1, 2^53 - 1 and
// beside them; both u53s of the cells (j = u53 | 1) beside each switch of
// region (p > 0.5, where p and q swap; |v - 0.5| = 0.425, the central
// branch; r = 5, the far tail), found by bisection over the 2^52 cells
// (each region is one run of cells); every 2^52 / 4099th cell. The 11 bits
// below u53 are 0 or all ones. Bounds of every kind, and parameters no f32
// holds.
TEST(RngJit, TruncatedNormalF64WordSweepEqualsTheReference) {
    SKIP_WITHOUT_JIT();
    struct tn_t {
        double mean, stddev, a, b;
    };
    const tn_t params[] = {{0, 1, -2, 2}, {0, 1, -13, 13}, {1, 2, 1, 1e3},
            {0, 1, 8.5, 30}, {0, 1, -8.9, -8.8}, {0, 1, -0.0, 0.25},
            {0.1, 0.7, -0.3, 1.9}, {0.1, 0.7, -1e4, 1e4},
            {-1e300, 1e299, -2e300, 1e301}};
    const uint64_t ncells = uint64_t(1) << 52;
    uint32_t regions = 0; // bit upper * 4 + central * 2 + (r <= 5)
    for (const tn_t &tp : params) {
        post_ops po;
        po.append_truncated_normal(tp.mean, tp.stddev, tp.a, tp.b);
        primitive_attr attr;
        attr.set_post_ops(po);
        const rng_conf_t conf = make_rng_conf(
                rng::desc(rng_alg::philox4x32_10,
                        memory::desc({64}, data_type::f64)),
                attr);
        const impl::truncnorm_f64_t &c = conf.truncnorm64;
        const auto region = [&](uint64_t k) {
            const uint64_t j = k << 1 | 1u;
            const double p = c.phi_a + static_cast<double>(j) * 0x1p-53 * c.mass;
            const double q = c.q_b
                    + static_cast<double>((uint64_t(1) << 53) - j) * 0x1p-53
                            * c.mass;
            const bool upper = p > 0.5;
            const double v = upper ? q : p;
            const bool central = v - 0.5 >= -impl::ppnd16_split_q;
            const bool near = std::sqrt(0.0 - impl::ln_approx_f64(v))
                    <= impl::ppnd16_split_r;
            return upper * 4 + central * 2 + near;
        };
        std::vector<uint64_t> cells = {0, 1, 2, ncells - 2, ncells - 1};
        for (uint64_t i = 0; i < 4099; ++i)
            cells.push_back(i * (ncells / 4099));
        // The cells beside each switch between lo and hi.
        std::function<void(uint64_t, uint64_t)> bisect
                = [&](uint64_t lo, uint64_t hi) {
                      if (region(lo) == region(hi)) return;
                      if (hi - lo == 1) {
                          cells.insert(cells.end(), {lo, hi});
                          return;
                      }
                      const uint64_t mid = lo + (hi - lo) / 2;
                      bisect(lo, mid);
                      bisect(mid, hi);
                  };
        bisect(0, ncells - 1);
        for (uint64_t k : cells)
            regions |= 1u << region(k);
        // Each cell's two u53s, whole units of them.
        std::vector<uint32_t> words;
        std::vector<uint64_t> u53s;
        for (size_t i = 0; u53s.size() % (impl::jit_unit_words / 2) != 0
                || i < 2 * cells.size();
                ++i) {
            const uint64_t u53 = cells[i / 2 % cells.size()] << 1 | (i % 2);
            const uint64_t x = u53 << 11 | (i / 2 % 2 == 0 ? 0u : 0x7ffu);
            words.push_back(static_cast<uint32_t>(x));
            words.push_back(static_cast<uint32_t>(x >> 32));
            u53s.push_back(u53);
        }
        std::vector<double> want(u53s.size());
        for (size_t i = 0; i < u53s.size(); ++i)
            want[i] = impl::truncnorm_value_f64(u53s[i], c);
        for (cpu_isa isa : available_tiers()) {
            if (isa < cpu_isa::avx2) continue;
            const int64_t i = f64_unit_first_diff(isa, conf, words, want);
            ASSERT_EQ(i, -1) << isa2str(isa) << " mean " << tp.mean
                             << " stddev " << tp.stddev << " [" << tp.a
                             << ", " << tp.b << "]: u53 0x" << std::hex
                             << u53s[static_cast<size_t>(i)];
        }
    }
    // Both sides, each with the central branch and the two tails.
    EXPECT_EQ(regions, 0xBBu);
}

#endif

} // namespace

// --- JitIntegers: integers against the reference ---------------------------

// At every tier of tier_params(): integers over ranges that stress the
// carries of the multiply-shift (2 words: r = 1, 2, 3, 2^31 + 1, 2^32 - 1,
// 2^32; 4 words: 2^32 + 1, 2^32 + 2^31, 2^33, 2^62 + 3, 2^63 - 1, 2^63,
// 2^63 + 1, 2^64 - 2^32 + 1, 2^64 - 1, whose 32-bit halves are 0, 1 or
// all ones), negative lows, low = INT64_MIN and high = INT64_MAX, every
// dst type, every engine of 32-bit words by counter, odd offsets and
// lengths, 1 and 3 threads, dense and strided dsts and a window, all
// equal to the reference (cap none); avx2 and avx512 serve every range.
class JitIntegers : public tier_suite_t {};

TEST_P(JitIntegers, EqualsTheReference) {
    const cpu_isa tier = GetParam();
    const uint64_t two32 = uint64_t(1) << 32;
    const std::pair<int64_t, uint64_t> ranges[] = {{0, 1}, {-1, 2}, {5, 3},
            {-7, 200}, {-(int64_t(1) << 31), (uint64_t(1) << 31) + 1},
            {s64_min, two32 - 1}, {s64_max - int64_t(two32), two32},
            {-3, two32 + 1}, {s64_max - int64_t(two32 + (two32 >> 1)),
                                     two32 + (two32 >> 1)},
            {-5, two32 * 2}, {-(int64_t(1) << 61), (uint64_t(1) << 62) + 3},
            {-1, (uint64_t(1) << 63) - 1}, {s64_min, uint64_t(1) << 63},
            {-(int64_t(1) << 62), (uint64_t(1) << 63) + 1},
            {s64_min + 7, ~uint64_t(0) - two32 + 2}, {s64_min, ~uint64_t(0)}};
    int jit_served = 0;
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::multfly})
        for (const auto &lr : ranges)
            for (data_type t : {data_type::s64, data_type::s32, data_type::u8,
                         data_type::f32}) {
                const int64_t low = lr.first;
                const auto high = static_cast<int64_t>(uint64_t(low) + lr.second);
                // Bounds the type holds; else the values' bits mod 2^8 (u8)
                // or a range moved to fit.
                int64_t lo = low, hi = high;
                if (t != data_type::s64) {
                    const uint64_t cap = t == data_type::u8 ? 256
                            : t == data_type::f32        ? (uint64_t(1) << 24)
                                                         : two32;
                    if (lr.second > cap) continue;
                    lo = t == data_type::u8 ? 0
                            : t == data_type::f32
                            ? -static_cast<int64_t>(lr.second / 2)
                            : s32_min + 9;
                    if (t == data_type::s32 && lr.second > two32 - 9)
                        lo = s32_min;
                    hi = static_cast<int64_t>(uint64_t(lo) + lr.second);
                }
                post_ops po;
                po.append_integers(lo, hi);
                primitive_attr attr, ref;
                attr.set_post_ops(po);
                ref.set_post_ops(po);
                attr.set_max_cpu_isa(tier);
                ref.set_max_cpu_isa(cpu_isa::none);
                const memory::desc mds[] = {memory::desc({3, 1111}, t),
                        memory::desc({5, 77}, t, {1, 5}, 3)};
                for (const memory::desc &md : mds)
                    for (int nthr : {1, 3}) {
                        rng::desc d(alg, md);
                        if (alg == rng_alg::multfly) d.name = "ints";
                        SCOPED_TRACE(impl::cat(alg2str(alg), " [", lo, ", ",
                                hi, ") ", md.str(), " nthr ", nthr));
                        run_args_t r;
                        r.seed = -77;
                        r.offset = 12345;
                        r.stream = 3;
                        r.nthr = nthr;
                        std::vector<uint8_t> a(md.get_size()),
                                b(md.get_size());
                        generate(d, attr, a.data(), r);
                        generate(d, ref, b.data(), r);
                        ASSERT_TRUE(a == b);
                        // A window: a block alone equals its part of the
                        // whole.
                        rng::desc w = d;
                        const dim_t cols = md.get_dims()[1];
                        w.dst = memory::desc({2, cols - 3}, t);
                        w.global_dims = md.get_dims();
                        w.origin = {1, 3};
                        std::vector<uint8_t> c(w.dst.get_size()),
                                e(w.dst.get_size());
                        generate(w, attr, c.data(), r);
                        generate(w, ref, e.data(), r);
                        ASSERT_TRUE(c == e);
                    }
                const std::string impl
                        = rng::primitive_desc(rng::desc(alg, mds[0]), attr)
                                  .impl_name();
                const bool want_jit = tier >= cpu_isa::avx2;
                EXPECT_EQ(impl, want_jit ? jit_name(tier) : "ref:any");
                jit_served += want_jit;
            }
    if (tier >= cpu_isa::avx2) {
        EXPECT_GT(jit_served, 40);
    }
}

// The Philox4x32-10 counter whose block is `out`: each round undone (the
// multipliers are odd, so a low product gives its factor back).
std::array<uint32_t, 4> philox_inverse(
        const std::array<uint32_t, 4> &out, const uint32_t key[2]) {
    const auto inverse = [](uint32_t m) { // m x = 1 mod 2^32 (Newton)
        uint32_t x = m;
        for (int i = 0; i < 5; ++i)
            x *= 2u - m * x;
        return x;
    };
    uint32_t y0 = out[0], y1 = out[1], y2 = out[2], y3 = out[3];
    for (int r = 9; r >= 0; --r) {
        const auto k = impl::philox_round_key(key, r);
        const uint32_t x2 = y1 * inverse(impl::philox_m1);
        const uint32_t x0 = y3 * inverse(impl::philox_m0);
        const auto hi1 = uint32_t((uint64_t(impl::philox_m1) * x2) >> 32);
        const auto hi0 = uint32_t((uint64_t(impl::philox_m0) * x0) >> 32);
        const uint32_t x1 = y0 ^ hi1 ^ k[0], x3 = y2 ^ hi0 ^ k[1];
        y0 = x0, y1 = x1, y2 = x2, y3 = x3;
    }
    return {y0, y1, y2, y3};
}

// At every tier: elements of 4 words whose products sit at the carry of
// the multiply-shift, which random words reach with probability about
// 2^-32: X = xh 2^64 + xl with (xh r mod 2^64) + hi64(xl r) equal to 2^64
// (the carry comes from the last unit of the low product) or 2^64 - 1 (no
// carry), for odd r (xh solves the congruence). Philox4x32-10 run
// backwards gives each element's counter, so its (offset, stream): the
// value equals hi64(xh r + hi64(xl r)) + low, at the JIT tier and the
// reference, first in a row of 63 and inside one of 100. (A term of
// hi64(xl r) lost moves it down by one for about half the elements.)
TEST_P(JitIntegers, CarriesOfTheFourWordProduct) {
    using impl::uint128_t;
    const cpu_isa tier = GetParam();
    const int64_t seed = 0x243f6a8885a308d3;
    const uint32_t key[2] = {uint32_t(seed), uint32_t(uint64_t(seed) >> 32)};
    const auto hi64 = [](uint128_t v) { return uint64_t(v >> 64); };
    std::mt19937_64 g(34);
    const uint64_t two32 = uint64_t(1) << 32;
    for (uint64_t r : {~uint64_t(0), (uint64_t(1) << 63) + 1, two32 + 1,
                 2 * two32 - 1, ~uint64_t(0) - two32 + 2,
                 3 * two32 + 0x89abcdef, uint64_t(0x9e3779b97f4a7c15)})
        for (int i = 0; i < 16; ++i) {
            const int carry = i % 2;
            uint64_t e, xh, xl, c1;
            int64_t stream;
            for (;;) { // until the counter is an offset and a stream
                xl = g();
                c1 = hi64(uint128_t(xl) * r);
                uint64_t r_inv = r; // r r_inv = 1 mod 2^64
                for (int k = 0; k < 6; ++k)
                    r_inv *= 2 - r * r_inv;
                xh = (0 - c1 - (carry ? 0 : 1)) * r_inv;
                const auto ctr = philox_inverse({uint32_t(xh >> 32),
                        uint32_t(xh), uint32_t(xl >> 32), uint32_t(xl)},
                        key);
                e = ctr[0] | uint64_t(ctr[1]) << 32;
                stream = static_cast<int64_t>(ctr[2] | uint64_t(ctr[3]) << 32);
                if (e >= 100 && e < (uint64_t(1) << 61) && stream >= 0) break;
            }
            const uint128_t p = uint128_t(xh) * r;
            ASSERT_EQ(uint64_t(p) + c1 < c1, carry == 1); // as crafted
            const auto low = static_cast<int64_t>( // high <= INT64_MAX
                    uint64_t(s64_min) + (~uint64_t(0) - r) / 2);
            const auto want = static_cast<int64_t>(
                    uint64_t(low) + hi64(p + c1));
            post_ops po;
            po.append_integers(low, static_cast<int64_t>(uint64_t(low) + r));
            for (cpu_isa cap : {tier, cpu_isa::none}) {
                primitive_attr attr;
                attr.set_post_ops(po);
                attr.set_max_cpu_isa(cap);
                for (int64_t before : {0, 37}) {
                    const rng::desc d(rng_alg::philox4x32_10,
                            memory::desc({before + 63}, data_type::s64));
                    std::vector<int64_t> out(before + 63);
                    run_args_t a;
                    a.seed = seed;
                    a.stream = stream;
                    a.offset = static_cast<int64_t>(e) - before;
                    generate(d, attr, out.data(), a);
                    EXPECT_EQ(out[before], want)
                            << isa2str(cap) << " r " << r << " carry "
                            << carry << " offset " << a.offset;
                }
            }
        }
}

INSTANTIATE_TEST_SUITE_P(Tiers, JitIntegers,
        ::testing::ValuesIn(tier_params()), tier_param_name);
