// Concurrent callers: an rng primitive, dropout primitives (plan fused and
// plan chain) and two compiled graphs run from several std::threads at
// once, each with its own buffers and seeds, some sharing one primitive
// object; every output equals a single-threaded run's, byte for byte.
//
// scripts/test.sh also runs this suite under ThreadSanitizer (docs/build.md),
// as built and with RNDNN_MAX_CPU_ISA=none: JIT code is not instrumented,
// the reference kernels are. There every primitive runs on one OpenMP
// thread (streams of 1 thread, compile_options::threads = 1, and
// OMP_NUM_THREADS=1 for oneDNN), so that OpenMP creates no threads: GCC's
// libgomp is not instrumented, and with 2 threads TSan reports races on
// stack slots that libgomp's barriers order (false positives). The
// concurrency under test is the callers'. Other builds also run each
// primitive on 2 OpenMP threads.
#include <atomic>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/attention_graph.hpp"
#include "tests/test_utils.hpp"

#if defined(__SANITIZE_THREAD__)
#define RNDNN_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RNDNN_TEST_TSAN 1
#endif
#endif

namespace rndnn {
namespace test {
namespace {

#ifdef RNDNN_TEST_TSAN
constexpr int inner_threads = 1;
#else
constexpr int inner_threads = 2;
#endif

using bytes_t = std::vector<uint8_t>;

// Callers of the primitives, rounds each, and steps of each graph run.
constexpr int prim_callers = 4;
constexpr int rounds = 3;
constexpr int graph_steps = 3;

// Seed of caller t's round r.
int64_t seed_of(int t, int r) { return 1000 + 10 * t + r; }

// f32 values in [-1, 1) from @p seed, as the bytes of a tensor of @p md
// (dense).
bytes_t data_for(const memory::desc &md, int64_t seed) {
    std::mt19937 g(static_cast<uint32_t>(seed));
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    bytes_t b(md.get_size());
    for (size_t i = 0; i + sizeof(float) <= b.size(); i += sizeof(float)) {
        const float v = u(g);
        std::memcpy(&b[i], &v, sizeof v);
    }
    return b;
}

// --- primitives --------------------------------------------------------------

bytes_t run_rng(const rng &prim, int64_t seed) {
    const memory::desc &md = prim.get_primitive_desc().dst_desc();
    bytes_t out(md.get_size(), 0);
    prim.execute(stream(inner_threads),
            {{RNDNN_ARG_DST, memory(md, out.data())},
                    {RNDNN_ARG_SEED, memory::scalar(seed)},
                    {RNDNN_ARG_OFFSET, memory::scalar(int64_t(seed * 3))},
                    {RNDNN_ARG_STREAM, memory::scalar(int64_t(seed % 5))}});
    return out;
}

// dst (diff_src), then the mask if the desc has one.
bytes_t run_dropout(const dropout &prim, int64_t seed) {
    const dropout::desc &d = prim.get_primitive_desc().get_desc();
    const bool fwd = d.prop == prop_kind::forward_training;
    bytes_t src = data_for(d.src, seed);
    bytes_t dst(d.dst.get_size(), 0);
    bytes_t mask(d.mask.is_zero() ? 0 : d.mask.get_size(), 0);
    std::unordered_map<int, memory> args
            = {{fwd ? RNDNN_ARG_SRC : RNDNN_ARG_DIFF_DST,
                       memory(d.src, src.data())},
                    {fwd ? RNDNN_ARG_DST : RNDNN_ARG_DIFF_SRC,
                            memory(d.dst, dst.data())},
                    {RNDNN_ARG_SEED, memory::scalar(seed)},
                    {RNDNN_ARG_OFFSET, memory::scalar(int64_t(seed * 7))}};
    if (!d.mask.is_zero())
        args.emplace(RNDNN_ARG_MASK, memory(d.mask, mask.data()));
    prim.execute(stream(inner_threads), args);
    dst.insert(dst.end(), mask.begin(), mask.end());
    return dst;
}

// --- graphs ------------------------------------------------------------------

// The attention block of test_graph.cpp, a little larger.
attn_t attention() {
    attn_t a;
    a.s = 16;
    a.d = 8;
    return a;
}

// @p steps forward and backward steps from generator(seed, offset): out,
// dq, dk and dv of every step, concatenated.
bytes_t run_graph(compiled_graph &c, int64_t seed, int steps) {
    const memory::desc md(attention().qkv(), data_type::f32);
    bytes_t q = data_for(md, seed), k = data_for(md, seed + 1),
            v = data_for(md, seed + 2), dout = data_for(md, seed + 3);
    bytes_t out(md.get_size()), dq(md.get_size()), dk(md.get_size()),
            dv(md.get_size());
    const auto mem = [&](bytes_t &b) { return memory(md, b.data()); };
    generator gen(seed, seed * 11);
    bytes_t all;
    for (int s = 0; s < steps; ++s) {
        c.execute_forward({{q_id, mem(q)}, {k_id, mem(k)}, {v_id, mem(v)},
                                  {out_id, mem(out)}},
                gen);
        c.execute_backward({{out_id, mem(dout)}},
                {{q_id, mem(dq)}, {k_id, mem(dk)}, {v_id, mem(dv)}});
        for (const bytes_t *b : {&out, &dq, &dk, &dv})
            all.insert(all.end(), b->begin(), b->end());
    }
    return all;
}

// --- the test ----------------------------------------------------------------

// One caller's work: named results, in order.
struct result_t {
    std::string what;
    bytes_t bytes;
};

// Runs every function of @p work on its own std::thread, all released at
// once; returns each thread's results. An exception in a thread fails the
// test.
std::vector<std::vector<result_t>> run_concurrently(
        const std::vector<std::function<std::vector<result_t>()>> &work) {
    std::vector<std::vector<result_t>> results(work.size());
    std::vector<std::string> errors(work.size());
    std::atomic<int> waiting(static_cast<int>(work.size()));
    std::vector<std::thread> threads;
    for (size_t i = 0; i < work.size(); ++i)
        threads.emplace_back([&, i] {
            --waiting;
            while (waiting.load() > 0)
                std::this_thread::yield();
            try {
                results[i] = work[i]();
            } catch (const std::exception &e) {
                errors[i] = e.what();
            }
        });
    for (std::thread &t : threads)
        t.join();
    for (size_t i = 0; i < work.size(); ++i)
        EXPECT_EQ(errors[i], "") << "thread " << i;
    return results;
}

void expect_same_results(const std::vector<result_t> &got,
        const std::vector<result_t> &want, const std::string &who) {
    ASSERT_EQ(got.size(), want.size()) << who;
    for (size_t i = 0; i < got.size(); ++i) {
        SCOPED_TRACE(who + ": " + want[i].what);
        EXPECT_EQ(got[i].what, want[i].what);
        ASSERT_EQ(got[i].bytes.size(), want[i].bytes.size());
        size_t diffs = 0;
        for (size_t b = 0; b < got[i].bytes.size(); ++b)
            diffs += got[i].bytes[b] != want[i].bytes[b];
        EXPECT_EQ(diffs, 0u) << "bytes that differ from the single-threaded"
                                " run, of "
                             << got[i].bytes.size();
    }
}

TEST(Concurrency, PrimitivesAndGraphsFromManyThreads) {
    // One rng primitive: normal f32, shared by every caller.
    rng::desc rd(rng_alg::philox4x32_10,
            memory::desc({64, 1024}, data_type::f32));
    rd.with_offset = true;
    post_ops po;
    po.append_normal(0.5f, 2.f);
    primitive_attr attr;
    attr.set_post_ops(po);
    const rng rng_prim {rng::primitive_desc(rd, attr)};

    // Dropout forward on 2^17 f32 (two OpenMP blocks' worth), bit mask,
    // plan fused (JIT builds only); the same with plan chain, a u8 mask
    // and a noise shape; and backward, chain, recomputing the mask.
    const memory::desc data({128, 1024}, data_type::f32);
    dropout::desc fd;
    fd.src = fd.dst = data;
    fd.mask = memory::desc({128, 1024}, data_type::bit);
    fd.rate = 0.3;
    fd.with_offset = true;
    fd.plan = dropout_plan::fused;
    dropout fused;
    bool has_fused = true;
    try {
        fused = dropout(dropout::primitive_desc(fd));
    } catch (const error &e) {
        ASSERT_EQ(e.status(), status::unimplemented) << e.what();
        has_fused = false;
        std::cout << "plan fused is not available here (" << e.what()
                  << "); chain only\n";
    }
    dropout::desc cd = fd;
    cd.noise_shape = {128, 1};
    cd.mask = memory::desc({128, 1}, data_type::u8);
    cd.method = bernoulli_method::bitsliced;
    cd.bits = 4;
    cd.plan = dropout_plan::chain;
    const dropout::primitive_desc chain_pd(cd);
    const dropout chain {chain_pd};
    dropout::desc bd = fd;
    bd.prop = prop_kind::backward;
    bd.mask = memory::desc();
    bd.plan = dropout_plan::chain;
    const dropout chain_bwd {dropout::primitive_desc(bd)};

    // Two plans of one graph, each run by one thread at a time (a compiled
    // graph holds state from forward to backward).
    const graph g = attention_graph(attention());
    compiled_graph plans[2];
    const mask_mode modes[2] = {mask_mode::bit, mask_mode::recompute};
    for (int i = 0; i < 2; ++i) {
        compile_options o;
        o.masks = modes[i];
        o.threads = inner_threads;
        plans[i] = g.compile(o);
    }

    // Caller t: the shared rng, fused and backward primitives; callers 0
    // and 1 share the chain primitive, the others create their own from
    // the shared descriptor (creation runs concurrently too).
    const auto prim_work = [&](int t) {
        std::vector<result_t> out;
        const dropout own = t < 2 ? chain : dropout(chain_pd);
        for (int r = 0; r < rounds; ++r) {
            const int64_t s = seed_of(t, r);
            const std::string n = std::to_string(s);
            out.push_back({"rng " + n, run_rng(rng_prim, s)});
            if (has_fused)
                out.push_back({"fused " + n, run_dropout(fused, s)});
            out.push_back({"chain " + n, run_dropout(own, s)});
            out.push_back({"chain bwd " + n, run_dropout(chain_bwd, s)});
        }
        return out;
    };
    const auto graph_work = [&](int i) {
        return std::vector<result_t> {{std::string("graph ")
                        + mask_mode2str(modes[i]),
                run_graph(plans[i], 500 + i, graph_steps)}};
    };

    std::vector<std::function<std::vector<result_t>()>> work;
    for (int t = 0; t < prim_callers; ++t)
        work.push_back([&, t] { return prim_work(t); });
    for (int i = 0; i < 2; ++i)
        work.push_back([&, i] { return graph_work(i); });

    // The single-threaded runs, one caller after the other.
    std::vector<std::vector<result_t>> want;
    for (const auto &w : work)
        want.push_back(w());

    // Twice at once: every caller's results as when it ran alone.
    for (int pass = 0; pass < 2; ++pass) {
        const std::vector<std::vector<result_t>> got = run_concurrently(work);
        for (size_t i = 0; i < work.size(); ++i)
            expect_same_results(got[i], want[i],
                    "pass " + std::to_string(pass) + ", thread "
                            + std::to_string(i));
    }
    // Different seeds gave different outputs (the comparison means
    // something).
    EXPECT_NE(want[0][0].bytes, want[1][0].bytes);
}

} // namespace
} // namespace test
} // namespace rndnn
