// The per-algorithm 32-bit word streams of docs/semantics.md.
#include "rng/engines/word_source.hpp"

#include <array>
#include <algorithm>
#include <stdexcept>

#include "rng/engines/mcg31m1.hpp"
#include "rng/engines/mt19937.hpp"
#include "rng/engines/multfly.hpp"
#include "rng/engines/philox.hpp"
#include "rng/engines/threefry.hpp"

namespace rndnn {
namespace impl {

namespace {

inline uint32_t lo32(uint64_t v) { return uint32_t(v); }
inline uint32_t hi32(uint64_t v) { return uint32_t(v >> 32); }

// Streams whose words come in independent blocks of 4: W(g) is word g % 4
// of block(g / 4). block_fn_t::operator()(uint64_t b, uint32_t out[4]).
template <typename block_fn_t>
class block4_source_t : public word_source_t {
public:
    explicit block4_source_t(const block_fn_t &fn) : fn_(fn) {}

    void fill(uint64_t first, size_t n, uint32_t *out) override {
        uint64_t b = first / 4;
        uint32_t blk[4];
        // Leading partial block.
        const size_t head = size_t(first % 4);
        if (head != 0 && n > 0) {
            fn_(b++, blk);
            const size_t k = std::min(n, 4 - head);
            std::copy(blk + head, blk + head + k, out);
            out += k;
            n -= k;
        }
        // Whole blocks straight into the output.
        for (; n >= 4; n -= 4, out += 4)
            fn_(b++, out);
        if (n > 0) {
            fn_(b, blk);
            std::copy(blk, blk + n, out);
        }
    }

private:
    block_fn_t fn_;
};

template <typename block_fn_t>
std::unique_ptr<word_source_t> make_block4(const block_fn_t &fn) {
    return std::unique_ptr<word_source_t>(new block4_source_t<block_fn_t>(fn));
}

// Counter {lo32(b), hi32(b), lo32(stream), hi32(stream)}: cuRAND's layout,
// for a block function of a key of @p key_words words.
template <size_t key_words,
        void (*block)(const uint32_t *, const uint32_t *, uint32_t *)>
struct curand_fn_t {
    std::array<uint32_t, key_words> key;
    uint32_t stream[2];
    void operator()(uint64_t b, uint32_t out[4]) const {
        const uint32_t ctr[4] = {lo32(b), hi32(b), stream[0], stream[1]};
        block(ctr, key.data(), out);
    }
};
using philox_fn_t = curand_fn_t<2, philox4x32_10>;
using threefry_fn_t = curand_fn_t<4, threefry4x32_20>;

// Counter {lo32(stream), hi32(stream), lo32(g & ~3), hi32(g & ~3)}: oneDNN's
// layout, with g & ~3 == 4 * b.
struct philox_onednn_fn_t {
    std::array<uint32_t, 2> key;
    uint32_t stream[2];
    void operator()(uint64_t b, uint32_t out[4]) const {
        const uint64_t g = b * 4;
        const uint32_t ctr[4] = {stream[0], stream[1], lo32(g), hi32(g)};
        philox4x32_10(ctr, key.data(), out);
    }
};

struct multfly_fn_t {
    uint32_t key[8];
    void operator()(uint64_t b, uint32_t out[4]) const {
        multfly_gen32(key, b, 0, out);
    }
};

class mcg31m1_source_t : public word_source_t {
public:
    explicit mcg31m1_source_t(uint64_t seed) : s_(mcg31m1_state(seed)) {}

    void fill(uint64_t first, size_t n, uint32_t *out) override {
        if (n == 0) return;
        // One jump for the start, then the recurrence.
        uint32_t x = mcg31m1_mul(s_, mcg31m1_pow(mcg31m1_a, first));
        out[0] = x;
        for (size_t k = 1; k < n; ++k) {
            x = mcg31m1_mul(x, mcg31m1_a);
            out[k] = x;
        }
    }

private:
    uint32_t s_;
};

class mt19937_source_t : public word_source_t {
public:
    mt19937_source_t(uint64_t seed, cpu_isa isa) : gen_(seed, isa) {}

    void fill(uint64_t first, size_t n, uint32_t *out) override {
        if (n == 0) return;
        if (first != gen_.position()) gen_.seek(first);
        gen_.generate(n, out);
    }

private:
    mt19937_t gen_;
};

} // namespace

namespace {

// A counter-based stream: fn_t of the seed's key (@p key_of) and the stream.
template <typename fn_t, decltype(fn_t::key) (*key_of)(uint64_t)>
std::unique_ptr<word_source_t> make_keyed(
        uint64_t seed, uint64_t stream, const std::string &, cpu_isa) {
    return make_block4(fn_t {key_of(seed), {lo32(stream), hi32(stream)}});
}

// The engines: one row an algorithm (its name is its row in src/enums.cpp;
// its JIT emitter, if any, its row in rng/jit/jit_rng_engine.cpp).
struct engine_row_t {
    rng_alg alg;
    engine_traits_t traits;
    std::unique_ptr<word_source_t> (*make)(uint64_t seed, uint64_t stream,
            const std::string &name, cpu_isa isa);
};

const engine_row_t engines[] = {
        {rng_alg::philox4x32_10, {32, true},
                make_keyed<philox_fn_t, philox_key>},
        {rng_alg::philox4x32_10_onednn, {32, true},
                make_keyed<philox_onednn_fn_t, philox_key>},
        {rng_alg::threefry4x32_20, {32, true},
                make_keyed<threefry_fn_t, threefry_key>},
        // Jumps ahead per word: not counter-based for lazy bitsliced.
        {rng_alg::mcg31m1, {31, false},
                [](uint64_t seed, uint64_t, const std::string &, cpu_isa) {
                    return std::unique_ptr<word_source_t>(
                            new mcg31m1_source_t(seed));
                }},
        {rng_alg::mt19937, {32, false},
                [](uint64_t seed, uint64_t, const std::string &, cpu_isa isa) {
                    return std::unique_ptr<word_source_t>(
                            new mt19937_source_t(seed, isa));
                }},
        {rng_alg::multfly, {32, true},
                [](uint64_t seed, uint64_t stream, const std::string &name,
                        cpu_isa) {
                    multfly_fn_t fn;
                    multfly_initkey(
                            reinterpret_cast<const uint8_t *>(name.data()),
                            name.size(), seed, stream, fn.key);
                    return make_block4(fn);
                }},
};

const engine_row_t &row_of(rng_alg alg) {
    for (const engine_row_t &r : engines)
        if (r.alg == alg) return r;
    throw std::invalid_argument("rndnn: no engine row for an rng_alg");
}

} // namespace

engine_traits_t engine_traits(rng_alg alg) { return row_of(alg).traits; }

std::unique_ptr<word_source_t> make_word_source(rng_alg alg, uint64_t seed,
        uint64_t stream, const std::string &name, cpu_isa isa) {
    return row_of(alg).make(seed, stream, name, isa);
}

} // namespace impl
} // namespace rndnn
