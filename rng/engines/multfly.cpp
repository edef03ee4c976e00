// Multfly (docs/multfly.md): key init and splitting, the ChaCha permutation.
#include "rng/engines/multfly.hpp"

#include <stdexcept>

namespace rndnn {
namespace impl {

namespace {

constexpr uint32_t multfly_iv[4]
        = {2718281829u, 3141592653u, 1234567891u, 2345678910u};

inline void quarter_round(uint32_t *v, int a, int b, int c, int d) {
    v[a] += v[b]; v[d] ^= v[a]; v[d] = multfly_rotl32(v[d], 16);
    v[c] += v[d]; v[b] ^= v[c]; v[b] = multfly_rotl32(v[b], 12);
    v[a] += v[b]; v[d] ^= v[a]; v[d] = multfly_rotl32(v[d], 8);
    v[c] += v[d]; v[b] ^= v[c]; v[b] = multfly_rotl32(v[b], 7);
}

// Four ChaCha double rounds; unlike the ChaCha block function the input is
// not added back (the spec's key derivation).
void chacha_permute(uint32_t v[16]) {
    for (int i = 0; i < 4; ++i) {
        quarter_round(v, 0, 4, 8, 12);
        quarter_round(v, 1, 5, 9, 13);
        quarter_round(v, 2, 6, 10, 14);
        quarter_round(v, 3, 7, 11, 15);
        quarter_round(v, 0, 5, 10, 15);
        quarter_round(v, 1, 6, 11, 12);
        quarter_round(v, 2, 7, 8, 13);
        quarter_round(v, 3, 4, 9, 14);
    }
}

} // namespace

void multfly_initkey(const uint8_t *name, size_t len, uint64_t global_seed,
        uint64_t global_ctr, uint32_t key[8]) {
    if (len > multfly_name_max)
        throw std::invalid_argument("multfly: key name longer than 32 bytes");
    uint32_t v[16] = {};
    for (int i = 0; i < 4; ++i)
        v[i] = multfly_iv[i];
    for (size_t i = 0; i < len; ++i)
        v[4 + i / 4] |= uint32_t(name[i]) << (8 * (i % 4));
    v[12] = uint32_t(global_ctr);
    v[13] = uint32_t(global_ctr >> 32);
    v[14] = uint32_t(global_seed);
    v[15] = uint32_t(global_seed >> 32);
    chacha_permute(v);
    for (int i = 0; i < 8; ++i)
        key[i] = v[i];
}

void multfly_splitkey(
        const uint32_t key[8], uint32_t parent[8], uint32_t child[8]) {
    uint32_t v[16] = {};
    for (int i = 0; i < 4; ++i)
        v[i] = multfly_iv[i];
    for (int i = 0; i < 8; ++i)
        v[4 + i] = key[i];
    chacha_permute(v);
    for (int i = 0; i < 8; ++i) {
        parent[i] = v[i];
        child[i] = v[8 + i];
    }
}

} // namespace impl
} // namespace rndnn
