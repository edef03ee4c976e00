// The generator: a seed and an offset that reservations move forward.
#include <cstring>

#include "rndnn/generator.hpp"
#include "src/utils.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;

namespace {

void check_offset(std::int64_t offset) {
    if (offset < 0)
        fail(status::invalid_arguments,
                cat("generator offset ", offset, " is negative"));
}

} // namespace

generator::generator(std::int64_t seed, std::int64_t offset)
    : seed_(seed), offset_(offset) {
    check_offset(offset);
}

std::int64_t generator::reserve(std::int64_t count) {
    std::int64_t next;
    if (count < 0)
        fail(status::invalid_arguments,
                cat("generator reservation of ", count,
                        " elements is negative"));
    if (!impl::add_ok(offset_, count, next))
        fail(status::invalid_arguments,
                cat("generator reservation of ", count, " elements at offset ",
                        offset_, " passes 2^63 - 1"));
    const std::int64_t first = offset_;
    offset_ = next;
    return first;
}

generator::state generator::save() const {
    state s;
    const auto seed = static_cast<std::uint64_t>(seed_);
    const auto offset = static_cast<std::uint64_t>(offset_);
    for (std::size_t i = 0; i < 8; ++i) {
        s[i] = static_cast<std::uint8_t>(seed >> (8 * i));
        s[8 + i] = static_cast<std::uint8_t>(offset >> (8 * i));
    }
    return s;
}

generator generator::load(const state &s) {
    std::uint64_t seed = 0, offset = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        seed |= std::uint64_t(s[i]) << (8 * i);
        offset |= std::uint64_t(s[8 + i]) << (8 * i);
    }
    return generator(static_cast<std::int64_t>(seed),
            static_cast<std::int64_t>(offset));
}

generator generator::load(const void *bytes, std::size_t size) {
    if (!bytes)
        fail(status::invalid_arguments, "generator state bytes are null");
    if (size != state_size)
        fail(status::invalid_arguments,
                cat("a generator state is ", state_size, " bytes, not ",
                        size));
    state s;
    std::memcpy(s.data(), bytes, state_size);
    return load(s);
}

} // namespace rndnn
