// When JIT code cannot be generated (the test hook RNDNN_JIT_FAIL, set in
// this process with impl::set_jit_fail_isa(), which makes the generation
// of a tier's kernels throw Xbyak's "can't protect" error, as a W^X policy
// would): every primitive is still created and runs, no exception leaves
// it, its results are the bits of the run without the hook, and the
// verbose lines say which JIT entry declined, why, and what serves
// instead. Each RNG engine with JIT code and each distribution family,
// dropout forward and backward with a bit, u8 or no mask (the fused
// kernels and the chain), binary, and the attention graph with its fused
// softmax-dropout; and the pieces: the walk and the kernels' creation
// helper. Expectations come from what the run without the hook chose: on
// a CPU without JIT tiers (or under RNDNN_MAX_CPU_ISA=none) it chose no
// JIT kernel, and the hook must change nothing. The CLI's and Python's
// side: test_cli_isa.cpp, python/tests/test_jit_fail.py.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#if RNDNN_ENABLE_JIT
#include <xbyak/xbyak.h>
#endif

#include "rndnn/rndnn.hpp"
#include "src/cpu_isa.hpp"
#include "src/impl_list.hpp"
#if RNDNN_ENABLE_JIT
#include "src/jit/jit_generator.hpp"
#endif
#include "src/utils.hpp"
#include "src/verbose.hpp"
#include "tests/attention_graph.hpp"
#include "tests/test_utils.hpp"

namespace {

using namespace rndnn;
using namespace rndnn::test;
using bytes_t = std::vector<uint8_t>;
using impl::cat;

// Values in [-2, 2) of md's type (f32, bf16 or f16), dense.
bytes_t random_data(const memory::desc &md, unsigned seed) {
    const data_type dt = md.get_data_type();
    bytes_t b(md.get_size());
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    for (dim_t i = 0; i < md.nelems(); ++i) {
        const float x = u(g);
        if (dt == data_type::f32) {
            std::memcpy(&b[4 * i], &x, 4);
        } else {
            const uint16_t h = dt == data_type::f16 ? impl::f32_to_f16(x)
                                                    : impl::f32_to_bf16(x);
            std::memcpy(&b[2 * i], &h, 2);
        }
    }
    return b;
}

// The verbose lines the tests read: check (declines) and dispatch
// (creations). Set before the library reads the variable, at its first
// use.
const bool verbose_set = [] {
    ::setenv("RNDNN_VERBOSE", "dispatch", 1);
    return true;
}();

const char *const declined_reason
        = "declined: code generation failed: can't protect "
          "(RNDNN_JIT_FAIL is set)";

// The tiers of rndnn's JIT kernels named in an implementation name
// ("fused:jit:avx2", "chain:jit:avx512+jit:avx512+onednn:jit:avx512_core":
// its parts, but oneDNN's own, whose kernels the hook does not cover).
std::vector<cpu_isa> jit_tiers_in(const std::string &name) {
    std::vector<cpu_isa> v;
    std::istringstream is(name);
    for (std::string part; std::getline(is, part, '+');) {
        if (part.rfind("onednn:", 0) == 0) continue;
        for (const cpu_isa isa : impl::jit_tiers()) {
            const std::string t = impl::jit_impl_name(isa);
            if (part.size() >= t.size()
                    && part.compare(part.size() - t.size(), t.size(), t) == 0)
                v.push_back(isa);
        }
    }
    return v;
}

// Whether one of `names` (of the choices without the hook) has a JIT
// kernel of a tier that the hook from `from` up fails.
bool hooked_tier_in(cpu_isa from, const std::vector<std::string> &names) {
    for (const std::string &name : names)
        for (const cpu_isa isa : jit_tiers_in(name))
            if (isa >= from) return true;
    return false;
}

// Where no choice without the hook (`plain`) was a JIT kernel that the
// hook from `from` up fails, no generation failed in `out`, the verbose
// lines of the run with the hook.
void expect_no_failure_unless(const std::string &out, cpu_isa from,
        const std::vector<std::string> &plain) {
    if (hooked_tier_in(from, plain)) return;
    EXPECT_EQ(out.find("code generation failed"), std::string::npos) << out;
}

// Runs f() with the hook failing the tiers from `from` up (all: none),
// and returns the verbose lines it printed (on stdout or stderr, wherever
// they go). f must not throw.
template <typename F>
std::string hooked(cpu_isa from, const F &f) {
    EXPECT_TRUE(verbose_set);
    impl::set_jit_fail_isa(from);
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    std::string thrown;
    try {
        f();
    } catch (const std::exception &e) {
        thrown = e.what();
    } catch (...) {
        thrown = "an exception of unknown type";
    }
    std::string out = ::testing::internal::GetCapturedStdout();
    out += ::testing::internal::GetCapturedStderr();
    impl::set_jit_fail_isa(cpu_isa::all);
    EXPECT_EQ(thrown, "") << "under RNDNN_JIT_FAIL=" << isa2str(from);
    return out;
}

// The hook's settings a test runs under: every tier (RNDNN_JIT_FAIL=1),
// and where the CPU has two tiers or more, the best one alone (whose
// kernels then decline to the next tier).
std::vector<cpu_isa> hook_settings() {
    std::vector<cpu_isa> v = {cpu_isa::sse41};
    const std::vector<cpu_isa> tiers = available_tiers();
    if (tiers.size() >= 2) v.push_back(tiers.front());
    return v;
}

// Checks the verbose lines `out` of a creation under the hook from tier
// `from` up that chose `name`, where the run without it chose `plain`.
// `create` is how a creation line names the choice ("rndnn_verbose,
// create,<name>,").
void expect_declines(const std::string &out, cpu_isa from,
        const std::string &plain, const std::string &name,
        const std::string &create) {
    SCOPED_TRACE("without the hook: " + plain + ", with it: " + name);
    if (!hooked_tier_in(from, {plain})) {
        // No kernel the hook fails served: it changes nothing.
        EXPECT_EQ(name, plain);
    } else {
        for (const cpu_isa isa : jit_tiers_in(name))
            EXPECT_LT(isa, from) << "a failed tier serves";
        // The tier that served without the hook said why it declines.
        bool said = false;
        std::istringstream is(out);
        for (std::string line; std::getline(is, line);)
            for (const cpu_isa isa : jit_tiers_in(plain))
                said = said
                        || (line.rfind("rndnn_verbose,check,", 0) == 0
                                && line.find(cat(impl::jit_impl_name(isa),
                                           ","))
                                        != std::string::npos
                                && line.find(declined_reason)
                                        != std::string::npos);
        EXPECT_TRUE(said) << out;
    }
    EXPECT_NE(out.find(create), std::string::npos) << create << "\n" << out;
}

// --- the RNG -------------------------------------------------------------

struct rng_case_t {
    rng_alg alg;
    post_ops po;
    data_type dt;
    std::string what;
};

std::vector<rng_case_t> rng_cases() {
    std::vector<rng_case_t> v;
    for (const rng_alg alg : rng_algs()) {
        const std::string a = alg2str(alg);
        v.push_back({alg, post_ops(), data_type::u32, a + " bits"});
        post_ops t;
        t.append_bernoulli(0.3, bernoulli_method::threshold32);
        v.push_back({alg, t, data_type::bit, a + " threshold32 bit"});
        v.push_back({alg, t, data_type::f32, a + " threshold32 f32"});
        post_ops u;
        u.append_uniform(-1.f, 3.f);
        v.push_back({alg, u, data_type::f32, a + " uniform f32"});
        v.push_back({alg, u, data_type::bf16, a + " uniform bf16"});
        post_ops n;
        n.append_normal(0.5f, 2.f);
        v.push_back({alg, n, data_type::f32, a + " normal f32"});
        v.push_back({alg, n, data_type::f16, a + " normal f16"});
        if (alg == rng_alg::mcg31m1 || alg == rng_alg::mt19937) continue;
        for (const int bits : {32, 5}) {
            post_ops b;
            b.append_bernoulli(0.3, bernoulli_method::bitsliced, bits);
            v.push_back({alg, b, data_type::bit,
                    cat(a, " bitsliced:", bits, " bit")});
            v.push_back({alg, b, data_type::u8,
                    cat(a, " bitsliced:", bits, " u8")});
        }
        post_ops o;
        o.append_bernoulli(0.3, bernoulli_method::onednn);
        v.push_back({alg, o, data_type::s32, a + " onednn s32"});
        post_ops w;
        w.append_bernoulli(0.3, bernoulli_method::bytewise);
        v.push_back({alg, w, data_type::u8, a + " bytewise u8"});
    }
    return v;
}

// The RNG's output for one case and its implementation's name; a window
// of a global tensor with `window`.
bytes_t run_rng(const rng_case_t &c, bool window, std::string &name) {
    rng::desc d(c.alg, memory::desc({3, 1667}, c.dt));
    if (c.alg == rng_alg::multfly) d.name = "jit-fail";
    d.with_offset = true;
    if (window) {
        d.global_dims = {5, 2000};
        d.origin = {1, 203};
    }
    primitive_attr attr;
    attr.set_post_ops(c.po);
    const rng::primitive_desc pd(d, attr);
    name = pd.impl_name();
    const rng prim(pd);
    bytes_t out(d.dst.get_size(), 0xa5);
    prim.execute(stream(2),
            {{RNDNN_ARG_DST, memory(d.dst, out.data())},
                    {RNDNN_ARG_SEED, memory::scalar(int64_t(7))},
                    {RNDNN_ARG_OFFSET, memory::scalar(int64_t(33))}});
    return out;
}

// Runs @p run (it returns its output and sets the name of the
// implementation that served) without the hook, then under each hook
// setting: the same bytes, and the verbose lines show the declines down to
// what served.
template <typename run_t>
void expect_same_under_hook(const run_t &run) {
    std::string plain;
    const bytes_t want = run(plain);
    for (const cpu_isa from : hook_settings()) {
        SCOPED_TRACE(cat("RNDNN_JIT_FAIL=", isa2str(from)));
        std::string name;
        bytes_t got;
        const std::string out = hooked(from, [&] { got = run(name); });
        EXPECT_TRUE(got == want) << "output differs";
        expect_declines(out, from, plain, name,
                cat("rndnn_verbose,create,", name, ","));
        expect_no_failure_unless(out, from, {plain});
    }
}

TEST(JitFail, RngEveryEngineAndDistribution) {
    for (const rng_case_t &c : rng_cases())
        for (const bool window : {false, true}) {
            SCOPED_TRACE(c.what + (window ? " window" : ""));
            expect_same_under_hook([&](std::string &name) {
                return run_rng(c, window, name);
            });
        }
}

// --- dropout ---------------------------------------------------------------

struct drop_out_t {
    bytes_t dst, mask, grad;
    std::string fwd_name, bwd_name;
};

// Forward training with `mask_dt` (undef: no mask), then backward reading
// the mask (without one: drawing it again).
drop_out_t run_dropout(data_type dt, data_type mask_dt, rng_alg alg,
        bool onednn_compat, dropout_plan plan) {
    const memory::desc data({4, 1031}, dt);
    dropout::desc d;
    d.src = d.dst = data;
    d.rate = 0.375;
    d.alg = alg;
    d.onednn_compat = onednn_compat;
    d.with_offset = true;
    d.plan = plan;
    if (mask_dt != data_type::undef) d.mask = memory::desc({4, 1031}, mask_dt);
    const bytes_t src = random_data(data, 3);
    drop_out_t r;
    r.dst.assign(data.get_size(), 0);
    r.mask.assign(d.mask.get_size(), 0);
    r.grad.assign(data.get_size(), 0);
    const auto args = [&](const void *in, void *out, int in_arg, int out_arg) {
        std::unordered_map<int, memory> a
                = {{in_arg, memory(data, const_cast<void *>(in))},
                        {out_arg, memory(data, out)},
                        {RNDNN_ARG_SEED, memory::scalar(int64_t(-5))},
                        {RNDNN_ARG_OFFSET, memory::scalar(int64_t(77))}};
        if (mask_dt != data_type::undef)
            a[RNDNN_ARG_MASK] = memory(d.mask, r.mask.data());
        return a;
    };
    const dropout::primitive_desc fpd(d);
    r.fwd_name = fpd.impl_name();
    dropout(fpd).execute(stream(2),
            args(src.data(), r.dst.data(), RNDNN_ARG_SRC, RNDNN_ARG_DST));
    d.prop = prop_kind::backward;
    const dropout::primitive_desc bpd(d);
    r.bwd_name = bpd.impl_name();
    dropout(bpd).execute(stream(2),
            args(src.data(), r.grad.data(), RNDNN_ARG_DIFF_DST,
                    RNDNN_ARG_DIFF_SRC));
    return r;
}

TEST(JitFail, DropoutForwardAndBackward) {
    for (const data_type dt : {data_type::f32, data_type::bf16})
    for (const data_type mask_dt :
            {data_type::undef, data_type::bit, data_type::u8})
    for (const dropout_plan plan : {dropout_plan::any, dropout_plan::chain})
    for (const rng_alg alg : {rng_alg::philox4x32_10, rng_alg::threefry4x32_20,
                 rng_alg::mcg31m1, rng_alg::multfly,
                 rng_alg::philox4x32_10_onednn}) {
        const bool compat = alg == rng_alg::philox4x32_10_onednn;
        SCOPED_TRACE(cat(dt2str(dt), " mask ", dt2str(mask_dt), " ",
                dropout_plan2str(plan), " ", alg2str(alg)));
        const drop_out_t want = run_dropout(dt, mask_dt, alg, compat, plan);
        for (const cpu_isa from : hook_settings()) {
            SCOPED_TRACE(cat("RNDNN_JIT_FAIL=", isa2str(from)));
            drop_out_t got;
            const std::string out = hooked(from,
                    [&] { got = run_dropout(dt, mask_dt, alg, compat, plan); });
            EXPECT_TRUE(got.dst == want.dst) << "dst differs";
            EXPECT_TRUE(got.mask == want.mask) << "mask differs";
            EXPECT_TRUE(got.grad == want.grad) << "diff_src differs";
            expect_declines(out, from, want.fwd_name, got.fwd_name,
                    cat("rndnn_verbose,create,", got.fwd_name, ","));
            expect_declines(out, from, want.bwd_name, got.bwd_name,
                    cat("rndnn_verbose,create,", got.bwd_name, ","));
            expect_no_failure_unless(
                    out, from, {want.fwd_name, want.bwd_name});
        }
    }
}

// --- binary ------------------------------------------------------------------

bytes_t run_binary(data_type dt, binary_alg alg, std::string &name) {
    const memory::desc data({3, 517}, dt), bits({3, 517}, data_type::bit);
    primitive_attr attr;
    post_ops po;
    po.append_linear(1.5f, -0.25f);
    attr.set_post_ops(po);
    const binary::primitive_desc pd(binary::desc(alg, data, bits, data), attr);
    name = pd.impl_name();
    bytes_t src = random_data(data, 9);
    bytes_t mask(bits.get_size()), dst(data.get_size());
    std::mt19937 g(9);
    for (uint8_t &b : mask)
        b = static_cast<uint8_t>(g());
    binary(pd).execute(stream(2),
            {{RNDNN_ARG_SRC_0, memory(data, src.data())},
                    {RNDNN_ARG_SRC_1, memory(bits, mask.data())},
                    {RNDNN_ARG_DST, memory(data, dst.data())}});
    return dst;
}

TEST(JitFail, BinaryWithABitOperand) {
    for (const data_type dt : {data_type::f32, data_type::bf16, data_type::f16})
        for (const binary_alg alg : {binary_alg::mul, binary_alg::add}) {
            SCOPED_TRACE(cat(dt2str(dt), " ", binary_alg2str(alg)));
            expect_same_under_hook([&](std::string &name) {
                return run_binary(dt, alg, name);
            });
        }
}

// --- the graph: the fused softmax-dropout ------------------------------------

struct attn_out_t {
    std::vector<float> out, dq, dk, dv;
    std::vector<step_time> steps;
};

attn_out_t run_attention(mask_mode masks) {
    attn_t a;
    a.s = 37; // rows of 37: partial vectors at every tier
    a.d = 8;
    const graph g = attention_graph(a);
    compile_options o;
    o.masks = masks;
    o.threads = 2;
    compiled_graph c = g.compile(o);
    const memory::desc md(a.qkv(), a.dt);
    const size_t n = static_cast<size_t>(md.nelems());
    std::vector<float> q(n), k(n), v(n), dout(n);
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    for (std::vector<float> *t : {&q, &k, &v, &dout})
        for (float &x : *t)
            x = u(gen);
    attn_out_t r;
    r.out.assign(n, 0.f);
    r.dq.assign(n, 0.f);
    r.dk.assign(n, 0.f);
    r.dv.assign(n, 0.f);
    generator rg(21, 100);
    c.execute_forward({{q_id, memory(md, q.data())},
                              {k_id, memory(md, k.data())},
                              {v_id, memory(md, v.data())},
                              {out_id, memory(md, r.out.data())}},
            rg);
    c.execute_backward({{out_id, memory(md, dout.data())}},
            {{q_id, memory(md, r.dq.data())}, {k_id, memory(md, r.dk.data())},
                    {v_id, memory(md, r.dv.data())}});
    r.steps = c.get_step_times();
    return r;
}

// The JIT row kernels' exp is a polynomial within a few ulp of the
// reference's std::exp (docs/attention.md): with the hook, the reference
// rows give values within a relative 1e-5, and the same mask (the dropout
// kernels' bits are identical).
void expect_close(const std::vector<float> &got, const std::vector<float> &want,
        const char *what) {
    ASSERT_EQ(got.size(), want.size());
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        bad += !(std::fabs(got[i] - want[i])
                <= 1e-5f * (1.f + std::fabs(want[i])));
    EXPECT_EQ(bad, 0u) << what;
}

TEST(JitFail, AttentionGraphWithFusedSoftmaxDropout) {
    for (const mask_mode masks :
            {mask_mode::bit, mask_mode::u8, mask_mode::recompute}) {
        SCOPED_TRACE(mask_mode2str(masks));
        const attn_out_t want = run_attention(masks);
        for (const cpu_isa from : hook_settings()) {
            SCOPED_TRACE(cat("RNDNN_JIT_FAIL=", isa2str(from)));
            attn_out_t got;
            const std::string out
                    = hooked(from, [&] { got = run_attention(masks); });
            expect_close(got.out, want.out, "out");
            expect_close(got.dq, want.dq, "dq");
            expect_close(got.dk, want.dk, "dk");
            expect_close(got.dv, want.dv, "dv");
            ASSERT_EQ(got.steps.size(), want.steps.size());
            std::vector<std::string> plain;
            for (const step_time &s : want.steps)
                plain.push_back(s.impl);
            expect_no_failure_unless(out, from, plain);
            bool fused = false;
            for (size_t i = 0; i < got.steps.size(); ++i) {
                const step_time &s = got.steps[i];
                if (s.impl.rfind("rndnn:", 0) != 0) continue; // oneDNN's
                fused = fused || s.node == "softmax+dropout";
                expect_declines(out, from, want.steps[i].impl, s.impl,
                        cat("rndnn_verbose,create,graph,", s.node, ",",
                                s.step, ",", s.impl));
            }
            EXPECT_TRUE(fused) << "no fused softmax-dropout step";
        }
    }
}

// --- the pieces: the walk, the creation helper ------------------------------

struct fake_kernel_t {
    virtual ~fake_kernel_t() = default;
};
struct fake_entry_t {
    const char *name;
    int mode; // 0: declines, 1: its kernel cannot be generated, 2: serves
    bool init(const int &, std::string &why) const {
        if (mode == 0) why = "not this one";
        return mode != 0;
    }
    std::unique_ptr<fake_kernel_t> create(const int &) const {
        if (mode == 1)
            throw impl::codegen_error(
                    status::runtime_error, "code generation failed: test");
        return std::make_unique<fake_kernel_t>();
    }
};

// An entry whose kernel cannot be generated declines, saying why, and the
// next one serves; where none serves, the error names every decline.
TEST(JitFailPieces, WalkTurnsCodegenErrorsIntoDeclines) {
    const std::vector<fake_entry_t> list
            = {{"a", 0}, {"b", 1}, {"c", 2}, {"d", 2}};
    std::string out = hooked(cpu_isa::all, [&] {
        const auto p = impl::pick_impl(list, 0, "problem");
        EXPECT_STREQ(p.name(), "c");
        EXPECT_NE(p.kernel, nullptr);
    });
    EXPECT_NE(out.find("rndnn_verbose,check,a,problem,declined: not this one"),
            std::string::npos)
            << out;
    EXPECT_NE(out.find("rndnn_verbose,check,b,problem,declined: code "
                       "generation failed: test"),
            std::string::npos)
            << out;
    const std::vector<fake_entry_t> none = {{"a", 0}, {"b", 1}};
    out = hooked(cpu_isa::all, [&] {
        const std::string msg = error_of(
                [&] { impl::pick_impl(none, 0, "problem"); },
                status::unimplemented);
        EXPECT_NE(msg.find("a: not this one; b: code generation failed: test"),
                std::string::npos)
                << msg;
    });
    // Where no walk catches it, it is an rndnn::error like any other.
    const std::string msg = error_of([] {
        impl::verbose_errors("test::call", [] {
            throw impl::codegen_error(status::out_of_memory, "codegen");
        });
    }, status::out_of_memory);
    EXPECT_EQ(msg, "codegen");
}

#if RNDNN_ENABLE_JIT
template <int what>
struct failing_kernel_t : fake_kernel_t {
    explicit failing_kernel_t(cpu_isa) {
        if (what == 0) throw Xbyak::Error(Xbyak::ERR_CANT_ALLOC);
        if (what == 1) throw std::bad_alloc();
        impl::fail(status::invalid_arguments, "a bad value");
    }
};

// make_jit_kernel() makes codegen_error of Xbyak's errors and of
// std::bad_alloc, and lets rndnn's own errors pass.
TEST(JitFailPieces, MakeJitKernelCatchesGenerationFailures) {
    using impl::make_jit_kernel;
    try {
        make_jit_kernel<fake_kernel_t, failing_kernel_t<0>>(cpu_isa::avx2);
        ADD_FAILURE() << "nothing thrown";
    } catch (const impl::codegen_error &e) {
        EXPECT_EQ(e.status(), status::runtime_error);
        EXPECT_STREQ(e.what(), "code generation failed: can't alloc");
    }
    try {
        make_jit_kernel<fake_kernel_t, failing_kernel_t<1>>(cpu_isa::avx2);
        ADD_FAILURE() << "nothing thrown";
    } catch (const impl::codegen_error &e) {
        EXPECT_EQ(e.status(), status::out_of_memory);
        EXPECT_STREQ(e.what(), "code generation failed: out of memory");
    }
    const std::string msg = error_of([] {
        make_jit_kernel<fake_kernel_t, failing_kernel_t<2>>(cpu_isa::avx2);
    });
    EXPECT_EQ(msg, "a bad value");
}
#endif

// --- the hook itself -------------------------------------------------------

// The hook fails generation, not the choice: with it, creation walks on
// to the next entry, and the tiers below the hook's still serve.
TEST(JitFail, HookCoversItsTierAndThoseAbove) {
    impl::set_jit_fail_isa(cpu_isa::avx2);
    EXPECT_TRUE(impl::jit_fail_hooked(cpu_isa::avx512));
    EXPECT_TRUE(impl::jit_fail_hooked(cpu_isa::avx2));
    EXPECT_FALSE(impl::jit_fail_hooked(cpu_isa::sse41));
    impl::set_jit_fail_isa(cpu_isa::all);
    for (const cpu_isa isa : impl::jit_tiers())
        EXPECT_FALSE(impl::jit_fail_hooked(isa));
}

} // namespace
