// Baselines for the kernel benchmarks (tools/bench/bench_kernels.cpp): the
// Bernoulli threshold32 mask of philox4x32_10, as bits or as u8 bytes,
// from Random123's philox4x32 in a plain scalar loop, compiled with -O3
// -march=native (tools/CMakeLists.txt) - what a user gets without rndnn.
#ifndef RNDNN_TOOLS_BENCH_BASELINE_RANDOM123_HPP
#define RNDNN_TOOLS_BENCH_BASELINE_RANDOM123_HPP

#include <cstdint>

namespace rndnn_bench {

// Writes elements g = 0 .. n - 1 of the mask to the ceil(n / 8) bytes at
// @p dst: element g is 1 iff W(g) < @p threshold, W(g) word g % 4 of
// Philox4x32-10 with counter {lo32(g / 4), hi32(g / 4), 0, 0} and key
// {lo32(seed), hi32(seed)}; bit g % 8 of byte g / 8, least significant bit
// first, the unused bits of the last byte 0. This is rndnn's
// philox4x32_10 bernoulli threshold32 mask with stream 0 and offset 0,
// for p < 1 (threshold = ceil(p * 2^32)).
void random123_philox_threshold32_bit(std::uint8_t *dst, std::int64_t n,
        std::uint64_t seed, std::uint32_t threshold);
// The same, compiled with -fno-tree-vectorize too: a scalar loop even where
// -march=native has vector instructions GCC would use.
void random123_philox_threshold32_bit_scalar(std::uint8_t *dst,
        std::int64_t n, std::uint64_t seed, std::uint32_t threshold);

// The same mask as bytes 0 and 1: element g to dst[g], n bytes. This is
// rndnn's philox4x32_10 bernoulli threshold32 u8 mask, and the keep mask of
// rndnn's dropout with rate 1 - p, both with stream 0 and offset 0.
void random123_philox_threshold32_u8(std::uint8_t *dst, std::int64_t n,
        std::uint64_t seed, std::uint32_t threshold);
void random123_philox_threshold32_u8_scalar(std::uint8_t *dst,
        std::int64_t n, std::uint64_t seed, std::uint32_t threshold);

} // namespace rndnn_bench

#endif
