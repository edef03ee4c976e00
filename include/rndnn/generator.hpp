/// @file
/// The generator: one seed and an offset that only grows, handing out
/// disjoint ranges of the random stream (to a graph's dropout nodes, to
/// Python's and torch's dropout, to anyone who draws masks in turn).
#ifndef RNDNN_GENERATOR_HPP
#define RNDNN_GENERATOR_HPP

#include <array>
#include <cstddef>
#include <cstdint>

#include "rndnn/common.hpp"

namespace rndnn {

/// Seeds and offsets for random nodes: one seed and an offset that only
/// grows.
///
/// A random node reserves the elements [offset, offset + count) of the
/// stream (seed, stream id 0) and the offset moves past them, so no two
/// reservations overlap: two executions draw different masks, and a
/// generator restored from a saved state draws the same ones again.
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
