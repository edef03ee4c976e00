// Google Benchmark program for the RNG kernels, through the public API
// (docs/performance.md).
//
//     rndnn_bench_kernels [--elements=N] [--benchmark_... flags]
//
// Each RNG problem writes N elements (default 2^25), on 1 and 2 threads
// (the argument), once as the reference kernel (name part isa:none, the
// attribute's cap cpu_isa::none) and once at the best ISA (isa:best, no
// cap) when that picks another implementation; the label is the
// implementation's name. The memcpy rows copy the bytes that N u32 words
// and N bits take, the baseline to quote ratios against. The
// random123_philox_threshold32_bit rows are Random123's philox4x32 in a
// plain loop compiled with -O3 -march=native, writing the mask of
// philox4x32_10/bernoulli_threshold32/bit (checked to be the same bits),
// at 2^22 elements and at N.
//
// Dropout: the dropout_fwd rows are rndnn's dropout forward on N f32
// elements at rate 0.5 (tools/bench/bench_common.cpp), on 1 and 2 threads; the
// onednn_dropout rows are the baseline, dropout as a framework builds it
// with oneDNN alone: a u8 keep mask from Random123's philox4x32 in a plain
// loop, then oneDNN's binary mul of the data by the mask with an
// eltwise_linear post-op (alpha = 1 / (1 - rate)), timed together on one
// thread, and checked to give rndnn's dst and mask.
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "bench_baseline_random123.hpp"
#include "bench_common.hpp"
#include "common/cli_common.hpp"
#include "rndnn/rndnn.hpp"

namespace {

// Elements per problem (--elements).
int64_t n = int64_t(1) << 25;

rndnn::rng::primitive_desc make_pd(rndnn::rng_alg alg, rndnn::dt t,
        const rndnn::post_ops &po, rndnn::cpu_isa max_isa, int64_t elems) {
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    attr.set_max_cpu_isa(max_isa);
    return {rndnn::rng::desc(alg, rndnn::memory::desc({elems}, t)), attr};
}

// One RNG problem under an ISA cap; the argument is the thread count.
void bm_rng(benchmark::State &state, rndnn::rng_alg alg, rndnn::dt t,
        const rndnn::post_ops &po, rndnn::cpu_isa max_isa) {
    const rndnn::rng::primitive_desc pd = make_pd(alg, t, po, max_isa, n);
    const rndnn::rng prim(pd);
    rndnn::memory dst(pd.dst_desc());
    std::memset(dst.get_data_handle(), 0, pd.dst_desc().get_size());
    const rndnn::stream strm(static_cast<int>(state.range(0)));
    const std::unordered_map<int, rndnn::memory> args = {
            {RNDNN_ARG_DST, dst},
            {RNDNN_ARG_SEED, rndnn::memory::scalar(int64_t(42))}};
    for (auto _ : state)
        prim.execute(strm, args);
    state.SetItemsProcessed(int64_t(state.iterations()) * n);
    state.SetBytesProcessed(int64_t(state.iterations())
            * int64_t(pd.dst_desc().get_size()));
    state.SetLabel(pd.impl_name());
}

using baseline_fn_t = void (*)(uint8_t *, int64_t, uint64_t, uint32_t);

// Random123's philox4x32 in a loop; the argument is the element count.
void bm_random123(benchmark::State &state, baseline_fn_t baseline,
        const std::string &label) {
    const int64_t elems = state.range(0);
    const double p = 0.5;
    const auto threshold = static_cast<uint32_t>(std::ceil(p * 0x1p32));
    const uint64_t seed = 42;
    std::vector<uint8_t> mask(static_cast<size_t>((elems + 7) / 8));

    // The same bits as rndnn's mask, or the comparison means nothing.
    rndnn::post_ops po;
    po.append_bernoulli(p);
    const rndnn::rng::primitive_desc pd = make_pd(rndnn::rng_alg::philox4x32_10,
            rndnn::dt::bit, po, rndnn::cpu_isa::none, elems);
    rndnn::memory want(pd.dst_desc());
    // The kernel leaves the unused bits of the last byte alone: zero them.
    std::memset(want.get_data_handle(), 0, mask.size());
    rndnn::rng(pd).execute(rndnn::stream(1),
            {{RNDNN_ARG_DST, want},
                    {RNDNN_ARG_SEED,
                            rndnn::memory::scalar(static_cast<int64_t>(seed))}});
    baseline(mask.data(), elems, seed, threshold);
    if (std::memcmp(mask.data(), want.get_data_handle(), mask.size()) != 0) {
        state.SkipWithError("Random123's mask differs from rndnn's");
        return;
    }

    for (auto _ : state) {
        baseline(mask.data(), elems, seed, threshold);
        benchmark::DoNotOptimize(mask.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * elems);
    state.SetBytesProcessed(
            int64_t(state.iterations()) * static_cast<int64_t>(mask.size()));
    state.SetLabel(label);
}

// Dropout with oneDNN alone at rate 0.5 on N f32 elements: the u8 keep mask
// from @p mask_fn, then oneDNN's binary mul with an eltwise_linear post-op,
// on state.range(0) threads (oneDNN's, through omp_set_num_threads; the
// mask loop is serial).
void bm_onednn_dropout(benchmark::State &state, baseline_fn_t mask_fn,
        const std::string &label) {
    const double rate = 0.5;
    const auto threshold
            = static_cast<uint32_t>(std::ceil((1 - rate) * 0x1p32));
    const auto scale = static_cast<float>(1 / (1 - rate));
    const uint64_t seed = 42;
    const int nthr = static_cast<int>(state.range(0));

    using tag = dnnl::memory::format_tag;
    using ddt = dnnl::memory::data_type;
    const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    const dnnl::memory::desc data_md({n}, ddt::f32, tag::a);
    const dnnl::memory::desc mask_md({n}, ddt::u8, tag::a);
    dnnl::post_ops ops;
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, scale, 0.f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const dnnl::binary::primitive_desc pd(
            dnnl::binary::desc(
                    dnnl::algorithm::binary_mul, data_md, mask_md, data_md),
            attr, eng);
    const dnnl::binary mul(pd);
    dnnl::memory src(data_md, eng), mask(mask_md, eng), dst(data_md, eng);
    const size_t bytes = data_md.get_size();
    rndnn_bench::fill_dropout_src(src.get_data_handle(), bytes);
    std::memset(dst.get_data_handle(), 0, bytes);
    auto *mask_ptr = static_cast<uint8_t *>(mask.get_data_handle());
    const auto run = [&] {
        mask_fn(mask_ptr, n, seed, threshold);
        mul.execute(strm,
                {{DNNL_ARG_SRC_0, src}, {DNNL_ARG_SRC_1, mask},
                        {DNNL_ARG_DST, dst}});
        strm.wait();
    };
    const int saved_nthr = omp_get_max_threads();
    omp_set_num_threads(nthr);
    run();

    // rndnn's dst and mask, or the comparison means nothing.
    const rndnn::dropout::desc d = rndnn_bench::dropout_fwd_desc(n, rate,
            rndnn::bernoulli_method::threshold32, 1, rndnn::dt::u8);
    rndnn::memory want_src(d.src), want_dst(d.dst), want_mask(d.mask);
    rndnn_bench::fill_dropout_src(want_src.get_data_handle(), bytes);
    rndnn::dropout(rndnn::dropout::primitive_desc(d))
            .execute(rndnn::stream(nthr),
                    {{RNDNN_ARG_SRC, want_src}, {RNDNN_ARG_DST, want_dst},
                            {RNDNN_ARG_MASK, want_mask},
                            {RNDNN_ARG_SEED,
                                    rndnn::memory::scalar(
                                            static_cast<int64_t>(seed))}});
    if (std::memcmp(mask_ptr, want_mask.get_data_handle(), size_t(n)) != 0
            || std::memcmp(dst.get_data_handle(), want_dst.get_data_handle(),
                       bytes)
                    != 0) {
        omp_set_num_threads(saved_nthr);
        state.SkipWithError("the baseline's dst or mask differs from rndnn's");
        return;
    }

    for (auto _ : state) {
        run();
        benchmark::ClobberMemory();
    }
    omp_set_num_threads(saved_nthr);
    state.SetItemsProcessed(int64_t(state.iterations()) * n);
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
    state.SetLabel(label + " + onednn binary "
            + pd.impl_info_str());
}

rndnn::post_ops none() { return {}; }
rndnn::post_ops bernoulli(double p, rndnn::bernoulli_method m, int b = 1) {
    rndnn::post_ops po;
    po.append_bernoulli(p, m, b);
    return po;
}
rndnn::post_ops uniform() {
    rndnn::post_ops po;
    po.append_uniform(0.f, 1.f);
    return po;
}
rndnn::post_ops normal() {
    rndnn::post_ops po;
    po.append_normal(0.f, 1.f);
    return po;
}
rndnn::post_ops integers() {
    rndnn::post_ops po;
    po.append_integers(0, 1000); // 2 words an element
    return po;
}
rndnn::post_ops permutation() {
    rndnn::post_ops po;
    po.append_permutation(INT64_MAX); // every offset; 2h = 64 bits
    return po;
}

// Registers one RNG problem as the reference and, if another
// implementation takes it, at the best ISA; each on 1 and 2 threads.
void reg(const std::string &name, rndnn::rng_alg alg, rndnn::dt t,
        const rndnn::post_ops &po) {
    const auto none_isa = rndnn::cpu_isa::none;
    const auto best_isa = rndnn::cpu_isa::all; // no cap
    const std::string ref_impl
            = make_pd(alg, t, po, none_isa, n).impl_name();
    const std::string best_impl
            = make_pd(alg, t, po, best_isa, n).impl_name();
    for (const auto isa : {none_isa, best_isa}) {
        if (isa == best_isa && best_impl == ref_impl) break;
        const std::string full
                = name + (isa == none_isa ? "/isa:none" : "/isa:best");
        benchmark::RegisterBenchmark(full.c_str(), bm_rng, alg, t, po, isa)
                ->ArgName("threads")
                ->Arg(1)
                ->Arg(2)
                ->UseRealTime();
    }
}

void register_all() {
    using rndnn::dt;
    using rndnn::rng_alg;
    const auto thr = rndnn::bernoulli_method::threshold32;
    const auto sliced = rndnn::bernoulli_method::bitsliced;
    for (int64_t bytes : {n * 4, (n + 7) / 8})
        benchmark::RegisterBenchmark(
                ("memcpy/" + std::to_string(bytes)).c_str(),
                rndnn_bench::bm_memcpy)
                ->Arg(bytes)
                ->UseRealTime();
    // Each baseline is compiled twice (tools/CMakeLists.txt): the _scalar
    // rows also with -fno-tree-vectorize.
    for (const bool scalar : {false, true}) {
        namespace b = rndnn_bench;
        const std::string suffix = scalar ? "_scalar" : "";
        const std::string flags = std::string("-O3 -march=native")
                + (scalar ? " -fno-tree-vectorize" : "");
        auto *r123 = benchmark::RegisterBenchmark(
                ("random123_philox_threshold32_bit" + suffix).c_str(),
                bm_random123,
                scalar ? b::random123_philox_threshold32_bit_scalar
                       : b::random123_philox_threshold32_bit,
                "random123:" + flags)
                             ->UseRealTime();
        r123->Arg(int64_t(1) << 22);
        if (n != int64_t(1) << 22) r123->Arg(n);
        benchmark::RegisterBenchmark(
                ("onednn_dropout/random123_u8" + suffix).c_str(),
                bm_onednn_dropout,
                scalar ? b::random123_philox_threshold32_u8_scalar
                       : b::random123_philox_threshold32_u8,
                "random123 u8:" + flags)
                ->ArgName("threads")
                ->Arg(1)
                ->UseRealTime();
    }
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::mcg31m1, rng_alg::mt19937,
                 rng_alg::multfly}) {
        const std::string a = rndnn::alg2str(alg);
        reg(a + "/bits/u32", alg, dt::u32, none());
        reg(a + "/bernoulli_threshold32/bit", alg, dt::bit,
                bernoulli(0.5, thr));
    }
    const auto philox = rng_alg::philox4x32_10;
    reg("philox4x32_10/bernoulli_bitsliced1/bit", philox, dt::bit,
            bernoulli(0.5, sliced, 1));
    reg("philox4x32_10/bernoulli_bitsliced8/bit", philox, dt::bit,
            bernoulli(0.1, sliced, 8));
    reg("philox4x32_10/bernoulli_threshold32/u8", philox, dt::u8,
            bernoulli(0.5, thr));
    reg("philox4x32_10/uniform/f32", philox, dt::f32, uniform());
    reg("philox4x32_10/uniform/bf16", philox, dt::bf16, uniform());
    reg("philox4x32_10/normal/f32", philox, dt::f32, normal());
    reg("philox4x32_10/integers/s64", philox, dt::s64, integers());
    reg("philox4x32_10/permutation/s64", philox, dt::s64, permutation());
    for (const char *dist : {"exponential", "gumbel", "lognormal"}) {
        std::vector<double> values; // the defaults: scale 1, loc 0, ...
        for (const auto &param : rndnn::find_distribution(dist).params)
            values.push_back(param.default_value);
        rndnn::post_ops po;
        po.append_distribution(dist, values);
        reg(std::string("philox4x32_10/") + dist + "/f32", philox, dt::f32, po);
    }

    rndnn_bench::register_dropout(n, {1, 2});
}

} // namespace

int main(int argc, char **argv) {
    return rndnn_bench::benchmark_main(
            "rndnn_bench_kernels", argc, argv, n, register_all);
}
