// The softmax-dropout (pipeline/softmax_dropout.hpp): its JIT row kernels
// against the reference row kernel, and the plan over a tensor, at every
// tier of tier_params() that this process may use:
//
// - SdRowJit.Declines: sse41 declines (no FMA), as do f16 and a tier above
//   the cap.
// - SdRowJit.Forward / Backward: f32 and bf16, dropout on and off, stats
//   on and off (backward: P rebuilt from the scores and the stats, or
//   read), rows of 1 to 4097 elements of which len in [1, n] count, the
//   mask bits at each bit offset 0..7, scores of a large range with -inf
//   entries. Dropped and past-len elements must be exactly +0, the others
//   within 1e-5 of the row's largest magnitude (backward: plus 1e-5 of the
//   bound of dp - c's cancellation), bf16 one unit more; backward in place
//   must equal backward out of place.
// - SdRowJit.GuardPages: rows that end (or start) next to an inaccessible
//   page, which catches any access of the generated code past the row
//   (AddressSanitizer does not see generated code).
//
// - SdPlan.MaskIsTheDropoutsAndTierIsNamed: the plan names the tier it
//   runs (the cap's best with a row kernel, else the reference); its mask
//   is the RNG's Bernoulli mask at the dropout's offset, bit for bit, for
//   the whole tensor, windows of whole rows and of part rows (rows apart in
//   the global index), padded and transposed layouts; backward gives the
//   same bits with the mask drawn again or read from a stored bit or u8
//   mask.
//
// Rows are buffers of exactly n elements, the bits have the 8 bytes of
// slack the header allows, the work buffer is sd_work_floats(n) floats,
// 64-byte aligned and filled with NaN. Cases come from a std::mt19937_64
// with a fixed seed; a failure prints its case.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "pipeline/softmax_dropout.hpp"
#include "rndnn/rndnn.hpp"
#include "src/cpu_isa.hpp"
#include "src/utils.hpp"
#include "tests/test_utils.hpp"

using namespace rndnn;
using namespace rndnn::impl;

namespace {

using rndnn::test::prng_t;
using rndnn::test::tier_param_name;
using rndnn::test::tier_params;
using rndnn::test::uniform_s64;

class SdRowJit : public rndnn::test::tier_suite_t {};

TEST_P(SdRowJit, Declines) {
    const cpu_isa isa = GetParam();
    if (isa == cpu_isa::none) GTEST_SKIP() << "the reference takes all";
#if RNDNN_ENABLE_JIT
    sd_row_conf_t conf;
    conf.max_isa = isa;
    std::string why;
    if (isa < cpu_isa::avx2) {
        EXPECT_FALSE(init_jit_sd_row(isa, conf, why));
        EXPECT_NE(why.find("FMA"), std::string::npos) << why;
        return;
    }
    for (bool backward : {false, true})
        for (data_type dt : {data_type::f32, data_type::bf16}) {
            conf.backward = backward;
            conf.dt = dt;
            EXPECT_TRUE(init_jit_sd_row(isa, conf, why)) << why;
        }
    conf.dt = data_type::f16;
    EXPECT_FALSE(init_jit_sd_row(isa, conf, why));
    EXPECT_NE(why.find("f16"), std::string::npos) << why;
    conf.dt = data_type::f32;
    conf.max_isa = cpu_isa::sse41;
    EXPECT_FALSE(init_jit_sd_row(isa, conf, why));
    EXPECT_NE(why.find("capped"), std::string::npos) << why;
#else
    GTEST_SKIP() << "a build without JIT";
#endif
}

#if RNDNN_ENABLE_JIT

const int64_t row_sizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64,
        65, 100, 127, 128, 129, 511, 512, 513, 1000, 4096, 4097};

constexpr float keep_scale = 1.f / 0.7f; // a dropout rate of 0.3

int esize(data_type dt) { return dt == data_type::f32 ? 4 : 2; }

// A row of n elements of the data type, in a buffer of exactly that size
// (or at p, outside it, for the guard pages).
class row_t {
public:
    row_t(data_type dt, int64_t n)
        : dt_(dt), n_(n), bytes_(static_cast<size_t>(n * esize(dt))) {
        p_ = bytes_.data();
    }
    // A row at p (its n elements' bytes) instead of the buffer.
    row_t(data_type dt, int64_t n, void *p) : dt_(dt), n_(n), p_(p) {}
    row_t(const row_t &o)
        : dt_(o.dt_), n_(o.n_), bytes_(o.size()), p_(bytes_.data()) {
        std::memcpy(p_, o.p_, o.size());
    }
    row_t &operator=(const row_t &) = delete;

    void *data() const { return p_; }
    size_t size() const { return static_cast<size_t>(n_ * esize(dt_)); }
    float get(int64_t j) const {
        if (dt_ == data_type::f32) return static_cast<const float *>(p_)[j];
        return bf16_to_f32(static_cast<const uint16_t *>(p_)[j]);
    }
    // v rounded to the data type.
    void set(int64_t j, float v) {
        if (dt_ == data_type::f32)
            static_cast<float *>(p_)[j] = v;
        else
            static_cast<uint16_t *>(p_)[j] = f32_to_bf16(v);
    }
    // The element's bits: 0 for +0.
    uint32_t raw(int64_t j) const {
        if (dt_ == data_type::bf16) return static_cast<const uint16_t *>(p_)[j];
        uint32_t u;
        std::memcpy(&u, static_cast<const float *>(p_) + j, 4);
        return u;
    }
    void copy_from(const row_t &o) { std::memcpy(p_, o.p_, size()); }
    bool same_bytes(const row_t &o) const {
        return std::memcmp(p_, o.p_, size()) == 0;
    }
    // Bytes no kernel writes: NaNs.
    void poison() { std::memset(p_, 0xff, size()); }

private:
    data_type dt_;
    int64_t n_;
    std::vector<uint8_t> bytes_;
    void *p_;
};

// sd_row_call_t::work: sd_work_floats(n) floats, 64-byte aligned, NaN.
class work_t {
public:
    explicit work_t(int64_t n) {
        const size_t bytes = static_cast<size_t>(sd_work_floats(n)) * 4;
        p_.reset(static_cast<float *>(
                std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
        std::memset(p_.get(), 0xff, bytes);
    }
    float *get() const { return p_.get(); }

private:
    struct free_t {
        void operator()(float *p) const { std::free(p); }
    };
    std::unique_ptr<float, free_t> p_;
};

// The mask bits of a row of n elements at bit offset shift, with the 8
// bytes past its last bit that kernels may read.
size_t bits_bytes(int64_t n, int64_t shift) {
    return static_cast<size_t>((shift + n + 7) / 8 + 8);
}
bool bit_of(const uint8_t *bits, int64_t shift, int64_t j) {
    return (bits[(shift + j) / 8] >> ((shift + j) % 8)) & 1u;
}

struct row_case_t {
    sd_row_conf_t conf;
    int64_t n = 1, len = 1, shift = 0;
    std::string str() const {
        std::ostringstream os;
        os << (conf.backward ? "backward" : "forward")
           << " dt=" << dt2str(conf.dt) << " dropout=" << conf.dropout
           << " stats=" << conf.stats << " n=" << n << " len=" << len
           << " shift=" << shift;
        return os.str();
    }
};

// The inputs of one row: scores (normal * 10, some -inf but never the
// first), dy (normal), bits (random) and the forward's stats and
// probabilities (the reference's, for backward).
struct row_inputs_t {
    row_t x, dy, prob;
    std::vector<uint8_t> bits;
    float stats[2] = {0.f, 0.f};
};

row_inputs_t make_inputs(prng_t &g, const row_case_t &c) {
    const data_type dt = c.conf.dt;
    row_inputs_t in {row_t(dt, c.n), row_t(dt, c.n), row_t(dt, c.n), {}};
    std::normal_distribution<float> normal;
    for (int64_t j = 0; j < c.n; ++j) {
        const bool ninf = j > 0 && g() % 16 == 0;
        in.x.set(j, ninf ? -std::numeric_limits<float>::infinity()
                         : 10.f * normal(g));
        in.dy.set(j, normal(g));
    }
    in.bits.resize(bits_bytes(c.n, c.shift));
    for (auto &b : in.bits)
        b = static_cast<uint8_t>(g());
    // The probabilities and the stats of a plain forward (no dropout).
    sd_row_conf_t fc = c.conf;
    fc.backward = false;
    fc.dropout = false;
    fc.stats = true;
    work_t w(c.n);
    sd_row_call_t call {};
    call.src = in.x.data();
    call.dst = in.prob.data();
    call.stats = in.stats;
    call.work = w.get();
    call.n = c.n;
    call.len = c.len;
    (*create_ref_sd_row(fc))(call);
    return in;
}

struct row_out_t {
    row_t y; // forward: y; backward: dx
    float stats[2];
};

// Runs kernel k on case c's inputs; in_place: backward's dst is src (a
// copy of dy).
row_out_t run(const sd_row_kernel_t &k, const row_case_t &c,
        const row_inputs_t &in, bool in_place = false) {
    row_out_t out {in_place ? row_t(in.dy) : row_t(c.conf.dt, c.n),
            {std::nanf(""), std::nanf("")}};
    if (!in_place) out.y.poison();
    work_t w(c.n);
    sd_row_call_t call {};
    call.dst = out.y.data();
    call.bits = c.conf.dropout ? in.bits.data() : nullptr;
    call.shift = c.shift;
    call.work = w.get();
    call.n = c.n;
    call.len = c.len;
    call.scale = keep_scale;
    if (c.conf.backward) {
        call.src = in_place ? out.y.data() : in.dy.data();
        call.p = c.conf.stats ? in.x.data() : in.prob.data();
        std::memcpy(out.stats, in.stats, sizeof(out.stats));
        call.stats = c.conf.stats ? out.stats : nullptr;
    } else {
        call.src = in.x.data();
        call.stats = c.conf.stats ? out.stats : nullptr;
    }
    k(call);
    return out;
}

// A bf16 unit in the last place of v.
double bf16_ulp(double v) {
    int e;
    std::frexp(v, &e);
    return std::ldexp(1.0, e - 8);
}

// The first problem of got against want (the reference's), or "".
std::string compare(const row_case_t &c, const row_inputs_t &in,
        const row_out_t &want, const row_out_t &got) {
    const bool bf16 = c.conf.dt == data_type::bf16;
    double rowmax = 0;
    for (int64_t j = 0; j < c.n; ++j)
        rowmax = std::max(rowmax, std::fabs(double(want.y.get(j))));
    // Backward: dx_j = P_j (dp_j - c) loses to cancellation what c's sum
    // order changes, up to about eps P_j (|dp_j| + sum_k P_k |dp_k|).
    std::vector<double> bound(static_cast<size_t>(c.n), 0.0);
    if (c.conf.backward) {
        double s = 0;
        std::vector<double> p(bound.size()), dp(bound.size());
        for (int64_t j = 0; j < c.len; ++j) {
            p[j] = c.conf.stats
                    ? std::exp(double(in.x.get(j)) - in.stats[0]) * in.stats[1]
                    : double(in.prob.get(j));
            dp[j] = double(in.dy.get(j));
            if (c.conf.dropout)
                dp[j] = bit_of(in.bits.data(), c.shift, j) ? keep_scale * dp[j]
                                                           : 0.0;
            s += p[j] * std::fabs(dp[j]);
        }
        for (int64_t j = 0; j < c.len; ++j)
            bound[j] = p[j] * (std::fabs(dp[j]) + s);
    }
    for (int64_t j = 0; j < c.n; ++j) {
        const double w = want.y.get(j), v = got.y.get(j);
        std::ostringstream at;
        at << "element " << j << ": ref " << w << " jit " << v << " (0x"
           << std::hex << got.y.raw(j) << ")";
        const bool dropped = !c.conf.backward && c.conf.dropout
                && !bit_of(in.bits.data(), c.shift, j);
        if (j >= c.len || dropped) {
            if (got.y.raw(j) != 0) return at.str() + ", not +0";
            continue;
        }
        double tol = 1e-5 * (rowmax + bound[j]);
        if (bf16) tol += bf16_ulp(std::max(std::fabs(w), std::fabs(v)));
        if (!(std::fabs(v - w) <= tol))
            return at.str() + ", beyond " + std::to_string(tol);
    }
    if (!c.conf.backward && c.conf.stats) {
        std::ostringstream os;
        os << "stats: ref {" << want.stats[0] << ", " << want.stats[1]
           << "} jit {" << got.stats[0] << ", " << got.stats[1] << "}";
        if (got.stats[0] != want.stats[0]) return os.str();
        if (!(std::fabs(got.stats[1] - want.stats[1])
                    <= 1e-5 * want.stats[1]))
            return os.str();
    }
    return "";
}

// Every conf of one direction.
std::vector<sd_row_conf_t> confs(cpu_isa isa, bool backward) {
    std::vector<sd_row_conf_t> v;
    for (data_type dt : {data_type::f32, data_type::bf16})
        for (bool dropout : {false, true})
            for (bool stats : {false, true}) {
                sd_row_conf_t conf;
                conf.backward = backward;
                conf.dt = dt;
                conf.dropout = dropout;
                conf.stats = stats;
                conf.max_isa = isa;
                v.push_back(conf);
            }
    return v;
}

// n itself, 1, and two in between.
std::vector<int64_t> lens_of(prng_t &g, int64_t n) {
    std::vector<int64_t> v = {n, 1, (n + 1) / 2};
    if (n > 2) v.push_back(uniform_s64(g, 2, n - 1));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

void check_direction(cpu_isa isa, bool backward) {
    prng_t g(backward ? 2 : 1);
    for (const sd_row_conf_t &conf : confs(isa, backward)) {
        std::string why;
        ASSERT_TRUE(init_jit_sd_row(isa, conf, why)) << why;
        const auto jit = create_jit_sd_row(isa, conf);
        const auto ref = create_ref_sd_row(conf);
        for (int64_t n : row_sizes)
            for (int64_t len : lens_of(g, n))
                for (int64_t shift = 0; shift < 8; ++shift) {
                    row_case_t c;
                    c.conf = conf;
                    c.n = n;
                    c.len = len;
                    c.shift = shift;
                    const row_inputs_t in = make_inputs(g, c);
                    const row_out_t want = run(*ref, c, in);
                    const row_out_t got = run(*jit, c, in);
                    const std::string msg = compare(c, in, want, got);
                    ASSERT_EQ(msg, "") << c.str();
                    if (!backward) continue;
                    const row_out_t inplace = run(*jit, c, in, true);
                    ASSERT_TRUE(inplace.y.same_bytes(got.y))
                            << c.str() << ": in place differs";
                }
    }
}

TEST_P(SdRowJit, Forward) {
    if (GetParam() < cpu_isa::avx2) GTEST_SKIP() << "no JIT kernel";
    check_direction(GetParam(), false);
}

TEST_P(SdRowJit, Backward) {
    if (GetParam() < cpu_isa::avx2) GTEST_SKIP() << "no JIT kernel";
    check_direction(GetParam(), true);
}

// bytes placed next to an inaccessible page: ending at it (at_end) or
// starting after one.
class guarded_t {
public:
    guarded_t(size_t bytes, bool at_end) {
        page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t pages = (bytes + page_ - 1) / page_;
        total_ = (pages + 2) * page_;
        void *m = mmap(nullptr, total_, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        base_ = static_cast<uint8_t *>(m);
        mprotect(base_, page_, PROT_NONE);
        mprotect(base_ + (pages + 1) * page_, page_, PROT_NONE);
        p_ = at_end ? base_ + (pages + 1) * page_ - bytes : base_ + page_;
    }
    ~guarded_t() { munmap(base_, total_); }
    guarded_t(const guarded_t &) = delete;
    guarded_t &operator=(const guarded_t &) = delete;
    uint8_t *get() const { return p_; }

private:
    size_t page_, total_;
    uint8_t *base_, *p_;
};

TEST_P(SdRowJit, GuardPages) {
    const cpu_isa isa = GetParam();
    if (isa < cpu_isa::avx2) GTEST_SKIP() << "no JIT kernel";
    prng_t g(3);
    for (bool backward : {false, true})
        for (const sd_row_conf_t &conf : confs(isa, backward)) {
            const auto jit = create_jit_sd_row(isa, conf);
            for (int64_t n : {1, 7, 9, 17, 33, 100, 513})
                for (int64_t len : lens_of(g, n))
                    for (bool at_end : {true, false}) {
                        row_case_t c;
                        c.conf = conf;
                        c.n = n;
                        c.len = len;
                        c.shift = uniform_s64(g, 0, 7);
                        const row_inputs_t in = make_inputs(g, c);
                        const row_out_t want = run(*jit, c, in);
                        // The rows and the bits next to the guard pages.
                        const size_t bytes = n * esize(conf.dt);
                        guarded_t gs(bytes, at_end), gd(bytes, at_end),
                                gp(bytes, at_end),
                                gb(in.bits.size(), true);
                        row_t src(conf.dt, n, gs.get()),
                                dst(conf.dt, n, gd.get()),
                                p(conf.dt, n, gp.get());
                        src.copy_from(backward ? in.dy : in.x);
                        p.copy_from(conf.stats ? in.x : in.prob);
                        dst.poison();
                        std::memcpy(gb.get(), in.bits.data(), in.bits.size());
                        work_t w(n);
                        float stats[2] = {in.stats[0], in.stats[1]};
                        sd_row_call_t call {};
                        call.src = src.data();
                        call.dst = dst.data();
                        call.p = backward ? p.data() : nullptr;
                        call.stats = conf.stats ? stats : nullptr;
                        call.bits = conf.dropout ? gb.get() : nullptr;
                        call.shift = c.shift;
                        call.work = w.get();
                        call.n = n;
                        call.len = len;
                        call.scale = keep_scale;
                        (*jit)(call);
                        ASSERT_TRUE(dst.same_bytes(want.y))
                                << c.str() << " at_end=" << at_end;
                    }
        }
}

#endif

INSTANTIATE_TEST_SUITE_P(
        Tiers, SdRowJit, ::testing::ValuesIn(tier_params()), tier_param_name);

// --- the plan over a tensor --------------------------------------------------

class SdPlan : public rndnn::test::tier_suite_t {};

// The Bernoulli(keep) bits of the global mask of @p global dims at
// @p offset, one byte an element.
std::vector<uint8_t> global_keep(const dims &global, double keep,
        int64_t seed, int64_t offset) {
    const memory::desc md(global, data_type::bit);
    std::vector<uint8_t> bits(md.get_size());
    post_ops po;
    po.append_bernoulli(keep);
    primitive_attr attr;
    attr.set_post_ops(po);
    rndnn::test::run_args_t r;
    r.seed = seed;
    r.offset = offset;
    rndnn::test::generate(
            rng::desc(rng_alg::philox4x32_10, md), attr, bits.data(), r);
    std::vector<uint8_t> keep_of(md.nelems());
    for (size_t i = 0; i < keep_of.size(); ++i)
        keep_of[i] = static_cast<uint8_t>(
                rndnn::test::get_bit(bits.data(), int64_t(i)));
    return keep_of;
}

TEST_P(SdPlan, MaskIsTheDropoutsAndTierIsNamed) {
    const cpu_isa cap = GetParam();
    const std::string tier = cap >= cpu_isa::avx2 ? jit_impl_name(cap)
                                                  : "ref:any";
    const double rate = 0.3;
    const int64_t seed = 7, offset = 1003;
    struct case_t {
        dims local, global, origin; // global empty: no window
        bool transposed, padded;
    };
    const case_t cases[] = {
            {{3, 5, 37}, {}, {}, false, false},
            {{3, 5, 40}, {}, {}, false, false}, // rows of whole mask bytes
            {{3, 5, 37}, {}, {}, false, true},
            {{3, 37, 37}, {}, {}, true, false},
            {{2, 5, 37}, {6, 5, 37}, {3, 0, 0}, false, false}, // whole rows
            {{3, 4, 20}, {3, 9, 50}, {0, 5, 30}, false, false}, // part rows
    };
    for (const case_t &c : cases) {
        SCOPED_TRACE(cat(dims2str(c.local), c.global.empty() ? "" : " in ",
                dims2str(c.global), c.transposed ? " transposed" : "",
                c.padded ? " padded" : ""));
        const dim_t n = c.local.back(), rows = c.local[0] * c.local[1];
        memory::desc md(c.local, data_type::f32);
        if (c.padded)
            md = memory::desc(c.local, data_type::f32,
                    {c.local[1] * (n + 5), n + 5, 1});
        if (c.transposed) // the last two dims swapped in memory
            md = memory::desc(c.local, data_type::f32,
                    {c.local[1] * n, 1, c.local[1]});
        const size_t cap_elems = md.get_size() / 4;
        std::vector<float> x(cap_elems), y(cap_elems), dy(cap_elems),
                dx(cap_elems), stats(2 * rows);
        prng_t g(11);
        for (float &v : x)
            v = static_cast<float>(uniform_s64(g, -400, 400)) / 100.f;
        for (float &v : dy)
            v = static_cast<float>(uniform_s64(g, -100, 100)) / 100.f;

        softmax_dropout_desc_t d;
        d.src = d.dst = md;
        d.stats = true;
        d.dropout = true;
        d.drop.rate = rate;
        d.drop.global_dims = c.global;
        d.drop.origin = c.origin;
        d.max_isa = cap;
        const softmax_dropout_t fwd(d);
        EXPECT_EQ(fwd.impl_name().rfind(cat("softmax_dropout:", tier, "+"), 0),
                0u)
                << fwd.impl_name();
        softmax_dropout_args_t a;
        a.src = x.data();
        a.dst = y.data();
        a.stats = stats.data();
        a.seed = seed;
        a.offset = offset;
        a.nthr = 2;
        fwd.execute(a);

        // The kept elements are the global mask's, at the block.
        const dims global = c.global.empty() ? c.local : c.global;
        const std::vector<uint8_t> keep
                = global_keep(global, 1.0 - rate, seed, offset);
        const dims origin = c.origin.empty() ? dims(3, 0) : c.origin;
        const auto pos = [&](dim_t r, dim_t j) {
            const dim_t i0 = r / c.local[1], i1 = r % c.local[1];
            return md.get_offset0() + i0 * md.get_strides()[0]
                    + i1 * md.get_strides()[1] + j * md.get_strides()[2];
        };
        for (dim_t r = 0; r < rows; ++r)
            for (dim_t j = 0; j < n; ++j) {
                const dim_t i0 = r / c.local[1], i1 = r % c.local[1];
                const dim_t gi = ((origin[0] + i0) * global[1] + origin[1]
                                         + i1) * global[2]
                        + origin[2] + j;
                ASSERT_EQ(y[pos(r, j)] != 0.f, keep[gi] != 0)
                        << "row " << r << " column " << j;
            }

        // Backward: the mask drawn again, or read from a stored bit or u8
        // mask that forward wrote: the same bits.
        std::vector<float> want;
        for (data_type mdt :
                {data_type::undef, data_type::bit, data_type::u8}) {
            SCOPED_TRACE(mdt == data_type::undef ? "recomputed"
                                                 : dt2str(mdt));
            softmax_dropout_desc_t fm = d, bm = d;
            std::vector<uint8_t> mask;
            if (mdt != data_type::undef) {
                fm.drop.mask = memory::desc(c.local, mdt);
                bm.drop.mask = fm.drop.mask;
                mask.assign(fm.drop.mask.get_size(), 0);
                softmax_dropout_args_t f = a;
                f.mask = mask.data();
                std::vector<float> y2(cap_elems);
                f.dst = y2.data();
                softmax_dropout_t(fm).execute(f);
                for (dim_t r = 0; r < rows; ++r)
                    for (dim_t j = 0; j < n; ++j)
                        ASSERT_EQ(y2[pos(r, j)], y[pos(r, j)]);
            }
            bm.backward = true;
            bm.src = bm.dst = bm.p = md;
            std::vector<float> d2 = dy;
            softmax_dropout_args_t b = a;
            b.src = d2.data();
            b.dst = d2.data(); // in place
            b.p = x.data();
            b.mask = mask.empty() ? nullptr : mask.data();
            softmax_dropout_t(bm).execute(b);
            if (want.empty())
                want = d2;
            else
                ASSERT_EQ(0, std::memcmp(want.data(), d2.data(),
                                     want.size() * sizeof(float)));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
        Tiers, SdPlan, ::testing::ValuesIn(tier_params()), tier_param_name);

} // namespace
