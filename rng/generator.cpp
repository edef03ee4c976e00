// The generator: a seed and an offset that reservations move forward, and
// the generators derived from it (fold_in, spawn).
#include <cstring>

#include "rndnn/generator.hpp"
#include "rng/engines/philox.hpp"
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

// derive(seed, tag, key) of generator.hpp and docs/semantics.md: words 0
// and 1 of Philox4x32-10 keyed by the seed, at the counter {lo32(key),
// hi32(key), lo32(tag), hi32(tag)}.
std::int64_t derive(std::int64_t seed, std::uint64_t tag, std::uint64_t key) {
    const auto k = impl::philox_key(static_cast<std::uint64_t>(seed));
    const std::uint32_t ctr[4] = {static_cast<std::uint32_t>(key),
            static_cast<std::uint32_t>(key >> 32),
            static_cast<std::uint32_t>(tag),
            static_cast<std::uint32_t>(tag >> 32)};
    std::uint32_t w[4];
    impl::philox4x32_10(ctr, k.data(), w);
    return static_cast<std::int64_t>(
            std::uint64_t(w[0]) | std::uint64_t(w[1]) << 32);
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

generator generator::fold_in(std::uint64_t key) const {
    return generator(derive(seed_, fold_tag, key), 0);
}

generator generator::fold_in(std::string_view key) const {
    generator g = *this;
    for (std::size_t at = 0; at < key.size(); at += 8) {
        std::uint64_t chunk = 0;
        for (std::size_t j = 0; j < 8 && at + j < key.size(); ++j)
            chunk |= std::uint64_t(static_cast<unsigned char>(key[at + j]))
                    << (8 * j);
        g = g.fold_in(chunk);
    }
    return g.fold_in(static_cast<std::uint64_t>(key.size()));
}

std::vector<generator> generator::spawn(std::int64_t n) {
    // On a copy: the offset moves only once every child exists.
    generator next = *this;
    const std::int64_t first = next.reserve(n);
    std::vector<generator> children;
    if (static_cast<std::uint64_t>(n) > children.max_size())
        fail(status::out_of_memory,
                cat("spawning ", n, " generators: they do not fit in memory"));
    impl::no_foreign_errors("generator::spawn", [&] {
        children.reserve(static_cast<std::size_t>(n));
    });
    for (std::int64_t i = 0; i < n; ++i)
        children.push_back(generator(
                derive(seed_, spawn_tag, static_cast<std::uint64_t>(first + i)),
                0));
    *this = next;
    return children;
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
