/// @file
/// The generator: one seed and an offset that only grows, handing out
/// disjoint ranges of the random stream (to a graph's dropout nodes, to
/// Python's and torch's dropout, to anyone who draws masks in turn).
#ifndef RNDNN_GENERATOR_HPP
#define RNDNN_GENERATOR_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "rndnn/common.hpp"

namespace rndnn {

/// Seeds and offsets for random nodes: one seed and an offset that only
/// grows.
///
/// A random node reserves the elements [offset, offset + count) of the
/// stream (seed, stream id 0) and the offset moves past them, so no two
/// reservations overlap: two executions draw different masks, and a
/// generator restored from a saved state draws the same ones again.
///
/// Derived generators (docs/semantics.md, "Derived generators"): fold_in()
/// names a sub-stream by a key, as JAX's random.fold_in; spawn() makes
/// children, as NumPy's SeedSequence.spawn. Both give generators at offset
/// 0 whose seed is derive(seed, tag, key):
///
///     (w0, w1, w2, w3) = Philox4x32-10(
///             key = {lo32(seed), hi32(seed)},
///             counter = {lo32(key), hi32(key), lo32(tag), hi32(tag)})
///     derive(seed, tag, key) = w0 | w1 << 32, as an s64
///
/// with tag fold_tag or spawn_tag. That counter is the one the RNG
/// (philox4x32_10) uses for elements 4 key .. 4 key + 3 of stream tag:
/// the derived seed is elements 4 key and 4 key + 1 of the stream
/// (seed, stream tag), so a caller who draws that stream sees it.
class RNDNN_API generator {
public:
    /// Bytes of a saved state: the seed, then the offset, each an s64 in
    /// little-endian byte order.
    static constexpr std::size_t state_size = 16;
    using state = std::array<std::uint8_t, state_size>;

    /// @param seed any s64.
    /// @param offset the first element to hand out, >= 0.
    /// @throws error (invalid_arguments) if @p offset is negative.
    explicit generator(std::int64_t seed = 0, std::int64_t offset = 0);

    std::int64_t get_seed() const { return seed_; }
    /// @returns the first element the next reservation gets, >= 0.
    std::int64_t get_offset() const { return offset_; }

    /// Reserves @p count elements of the stream.
    /// @param count elements, >= 0.
    /// @returns the first reserved element (the offset before the call).
    /// @throws error (invalid_arguments) if @p count is negative or the
    ///     offset would pass 2^63 - 1; the state is unchanged then.
    std::int64_t reserve(std::int64_t count);

    /// The domain tag of fold_in(): "rndnfold" read as a little-endian u64.
    static constexpr std::uint64_t fold_tag = 0x646c6f666e646e72u;
    /// The domain tag of spawn(): "rndnspwn" read as a little-endian u64.
    static constexpr std::uint64_t spawn_tag = 0x6e7770736e646e72u;

    /// The sub-stream named @p key: generator(derive(seed, fold_tag, key),
    /// 0). A function of the seed and @p key only: not of the offset, nor
    /// of what was folded or spawned before. Two keys give the same seed
    /// about as often as two random 64-bit seeds would be equal (the
    /// seed is half of a Philox block, a bijection of the counter).
    generator fold_in(std::uint64_t key) const;
    /// The sub-stream named by the bytes of @p key (UTF-8 for a text):
    /// its bytes in chunks of 8, each read as a little-endian u64 (the last
    /// chunk padded with zero bytes), folded in one after another, then
    /// the byte count: fold_in(c_0).fold_in(c_1)...fold_in(size). So "a"
    /// and "a\0" differ, and fold_in("") == fold_in(0).
    generator fold_in(std::string_view key) const;
    /// @p n children: child i is generator(derive(seed, spawn_tag,
    /// first + i), 0) with first = reserve(n). The offset moves on by
    /// @p n, so spawning again gives new children, and a generator
    /// restored from a saved state spawns the same children again.
    /// @param n children, >= 0.
    /// @throws error (invalid_arguments) as reserve(); the state is
    ///     unchanged then. error (out_of_memory) if the children do not
    ///     fit in memory; the state is unchanged then too.
    std::vector<generator> spawn(std::int64_t n);

    /// @returns the state: 16 bytes, seed then offset, little-endian.
    state save() const;
    /// @returns the generator that save() described.
    /// @throws error (invalid_arguments) if the saved offset is negative.
    static generator load(const state &s);
    /// The same from raw bytes (read from a file).
    /// @param size bytes at @p bytes; must be 16.
    /// @throws error (invalid_arguments) if @p bytes is null, @p size is
    ///     not 16 or the offset is negative.
    static generator load(const void *bytes, std::size_t size);

    bool operator==(const generator &o) const {
        return seed_ == o.seed_ && offset_ == o.offset_;
    }
    bool operator!=(const generator &o) const { return !(*this == o); }

private:
    std::int64_t seed_;
    std::int64_t offset_;
};

} // namespace rndnn

#endif
