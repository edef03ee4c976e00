// Google Benchmark program for the RNG kernels, through the public API.
// Each problem writes 2^22 elements on one thread by default; the memcpy
// rows copy the same number of output bytes, as the baseline to quote
// ratios against (docs/performance.md).
#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>

#include "rndnn/rndnn.hpp"

namespace {

constexpr int64_t n = int64_t(1) << 22;

void bm_memcpy(benchmark::State &state) {
    const auto bytes = static_cast<size_t>(state.range(0));
    std::vector<char> src(bytes, 1), dst(bytes);
    for (auto _ : state) {
        std::memcpy(dst.data(), src.data(), bytes);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

void bm_rng(benchmark::State &state, rndnn::rng_alg alg, rndnn::dt t,
        const rndnn::post_ops &po) {
    rndnn::rng::desc d(alg, rndnn::memory::desc({n}, t));
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    const rndnn::rng prim {rndnn::rng::primitive_desc(d, attr)};
    rndnn::memory dst(d.dst);
    std::memset(dst.get_data_handle(), 0, d.dst.get_size());
    const rndnn::stream strm(static_cast<int>(state.range(0)));
    const std::unordered_map<int, rndnn::memory> args = {
            {RNDNN_ARG_DST, dst},
            {RNDNN_ARG_SEED, rndnn::memory::scalar(int64_t(42))}};
    for (auto _ : state)
        prim.execute(strm, args);
    state.SetItemsProcessed(int64_t(state.iterations()) * n);
    state.SetBytesProcessed(
            int64_t(state.iterations()) * int64_t(d.dst.get_size()));
    state.SetLabel(prim.get_primitive_desc().impl_name());
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

// Registers one RNG problem, run on 1 and 2 threads (the argument).
void reg(const std::string &name, rndnn::rng_alg alg, rndnn::dt t,
        const rndnn::post_ops &po) {
    benchmark::RegisterBenchmark(name.c_str(), bm_rng, alg, t, po)
            ->Arg(1)
            ->Arg(2)
            ->UseRealTime();
}

void register_all() {
    using rndnn::dt;
    using rndnn::rng_alg;
    const auto thr = rndnn::bernoulli_method::threshold32;
    const auto sliced = rndnn::bernoulli_method::bitsliced;
    for (int64_t bytes : {n * 4, n / 8})
        benchmark::RegisterBenchmark(
                ("memcpy/" + std::to_string(bytes)).c_str(), bm_memcpy)
                ->Arg(bytes);
    for (rng_alg alg : {rng_alg::philox4x32_10, rng_alg::philox4x32_10_onednn,
                 rng_alg::threefry4x32_20, rng_alg::mcg31m1, rng_alg::mt19937,
                 rng_alg::multfly}) {
        const std::string a = rndnn::alg2str(alg);
        reg(a + "/bits/u32", alg, dt::u32, none());
        reg(a + "/bernoulli_threshold32/bit", alg, dt::bit, bernoulli(0.5, thr));
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
}

} // namespace

int main(int argc, char **argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
