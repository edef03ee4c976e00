// Google Benchmark program: libtorch's CPU dropout against rndnn's, in one
// process run (docs/performance.md). Built only where CMake finds Torch
// (Debian's libtorch-dev: scripts/install-deps.sh --bench).
//
//     rndnn_bench_torch [--elements=N] [--benchmark_... flags]
//
// Every row runs on one thread (at::set_num_threads(1); rndnn's stream of
// 1 thread) over N f32 elements (default 2^25) at rate 0.5:
// - torch_dropout/{out,inplace,functional,functional_inplace,native}:
//   torch::dropout(x, p, true), torch::dropout_(x, p, true),
//   torch::nn::functional::dropout with inplace false and true, and
//   at::native_dropout(x, p, true), which also returns the bool mask;
// - dropout_fwd/...: rndnn's dropout forward (tools/bench/bench_common.cpp);
// - memcpy/BYTES: a copy of the data's bytes.
#include <string>

#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "bench_common.hpp"
#include "common/cli_common.hpp"

namespace {

// Elements per problem (--elements).
int64_t n = int64_t(1) << 25;

enum class torch_op { out, inplace, functional, functional_inplace, native };

void bm_torch_dropout(benchmark::State &state, torch_op op) {
    const double p = 0.5;
    namespace F = torch::nn::functional;
    torch::Tensor x = torch::empty({n}, torch::kFloat32);
    rndnn_bench::fill_dropout_src(x.data_ptr(), x.nbytes());
    for (auto _ : state) {
        torch::Tensor y;
        switch (op) {
            case torch_op::out: y = torch::dropout(x, p, true); break;
            case torch_op::inplace: y = torch::dropout_(x, p, true); break;
            case torch_op::functional:
                y = F::dropout(x, F::DropoutFuncOptions().p(p));
                break;
            case torch_op::functional_inplace:
                y = F::dropout(x, F::DropoutFuncOptions().p(p).inplace(true));
                break;
            case torch_op::native:
                y = std::get<0>(at::native_dropout(x, p, true));
                break;
        }
        benchmark::DoNotOptimize(y.data_ptr());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * n);
    state.SetBytesProcessed(
            int64_t(state.iterations()) * static_cast<int64_t>(x.nbytes()));
    state.SetLabel("libtorch " TORCH_VERSION);
}

void register_all() {
    benchmark::RegisterBenchmark(
            ("memcpy/" + std::to_string(n * 4)).c_str(), rndnn_bench::bm_memcpy)
            ->Arg(n * 4)
            ->UseRealTime();
    const struct {
        const char *name;
        torch_op op;
    } ops[] = {{"torch_dropout/out", torch_op::out},
            {"torch_dropout/inplace", torch_op::inplace},
            {"torch_dropout/functional", torch_op::functional},
            {"torch_dropout/functional_inplace", torch_op::functional_inplace},
            {"torch_dropout/native", torch_op::native}};
    for (const auto &o : ops)
        benchmark::RegisterBenchmark(o.name, bm_torch_dropout, o.op)
                ->UseRealTime();
    rndnn_bench::register_dropout(n, {1});
}

} // namespace

int main(int argc, char **argv) {
    at::set_num_threads(1);
    return rndnn_bench::benchmark_main(
            "rndnn_bench_torch", argc, argv, n, register_all);
}
