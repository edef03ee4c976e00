// Pieces shared by the Google Benchmark programs (rndnn_bench_kernels,
// rndnn_bench_torch; docs/performance.md): the memcpy baseline, rndnn's
// dropout rows and their main().
#ifndef RNDNN_TOOLS_BENCH_COMMON_HPP
#define RNDNN_TOOLS_BENCH_COMMON_HPP

#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "rndnn/rndnn.hpp"

namespace rndnn_bench {

// Copies state.range(0) bytes between two buffers written beforehand.
void bm_memcpy(benchmark::State &state);

// Dropout forward_training on @p n f32 elements (dims {n}) with philox4x32_10
// at @p rate; @p mask_dt bit or u8 writes a mask of that type, undef none.
rndnn::dropout::desc dropout_fwd_desc(std::int64_t n, double rate,
        rndnn::bernoulli_method method, int bits, rndnn::data_type mask_dt);

// The data every dropout row reads: 0x3f bytes, 0.747 in f32, so that in
// place, with a scale >= 1, no value ever turns denormal.
void fill_dropout_src(void *src, std::size_t bytes);

// Registers rndnn's dropout forward rows on @p n f32 elements, rate 0.5, at
// the best ISA, each on the given thread counts (the argument):
// dropout_fwd/{threshold32,bitsliced1}/mask:{none,bit,u8}/isa:best and
// dropout_fwd/{threshold32,bitsliced1}/mask:none/inplace/isa:best. The label
// is the implementation's name.
void register_dropout(std::int64_t n, const std::vector<std::int64_t> &threads);

// The main() of a benchmark program: takes --elements=N (N >= 1) out of
// argv into @p n (left as it is without the flag), calls @p register_all,
// then runs Google Benchmark with the rest of argv.
// @returns the exit status: 2 for a bad --elements (with a message naming
//     @p program) or a flag Google Benchmark does not know.
int benchmark_main(const char *program, int argc, char **argv,
        std::int64_t &n, void (*register_all)());

} // namespace rndnn_bench

#endif
