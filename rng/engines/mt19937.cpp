// MT19937 with jump-ahead to any output index (polynomials over GF(2)).
#include "rng/engines/mt19937.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

namespace rndnn {
namespace impl {

void mt19937_init_genrand(uint32_t s, uint32_t state[mt19937_n]) {
    state[0] = s;
    for (int i = 1; i < mt19937_n; ++i) {
        const uint32_t p = state[i - 1];
        state[i] = 1812433253u * (p ^ (p >> 30)) + uint32_t(i);
    }
}

void mt19937_init_by_array(const uint32_t *init_key, size_t key_length,
        uint32_t state[mt19937_n]) {
    const size_t n = mt19937_n;
    mt19937_init_genrand(19650218u, state);
    size_t i = 1, j = 0;
    for (size_t k = std::max(n, key_length); k > 0; --k) {
        const uint32_t p = state[i - 1];
        state[i] = (state[i] ^ ((p ^ (p >> 30)) * 1664525u)) + init_key[j]
                + uint32_t(j);
        ++i;
        ++j;
        if (i >= n) {
            state[0] = state[n - 1];
            i = 1;
        }
        if (j >= key_length) j = 0;
    }
    for (size_t k = n - 1; k > 0; --k) {
        const uint32_t p = state[i - 1];
        state[i] = (state[i] ^ ((p ^ (p >> 30)) * 1566083941u)) - uint32_t(i);
        ++i;
        if (i >= n) {
            state[0] = state[n - 1];
            i = 1;
        }
    }
    // Guarantees a non-zero state whatever the key.
    state[0] = 0x80000000u;
}

void mt19937_seed_state(uint64_t seed, uint32_t state[mt19937_n]) {
    if (seed >> 32 == 0) {
        mt19937_init_genrand(uint32_t(seed), state);
    } else {
        const uint32_t key[2] = {uint32_t(seed), uint32_t(seed >> 32)};
        mt19937_init_by_array(key, 2, state);
    }
}

namespace {

// Extends x[0..len) in place to x[0..len + count) with the recurrence
// x_{k+624} = x_{k+397} ^ twist(x_k, x_{k+1}); len >= 624.
void extend(uint32_t *x, size_t len, size_t count) {
    const size_t n = mt19937_n, m = mt19937_m;
    for (size_t k = len - n; k < len - n + count; ++k)
        x[k + n] = x[k + m] ^ mt19937_twist(x[k], x[k + 1]);
}

} // namespace

void mt19937_regenerate(uint32_t s[mt19937_n]) {
    const int n = mt19937_n, m = mt19937_m;
    int k = 0;
    for (; k < n - m; ++k)
        s[k] = s[k + m] ^ mt19937_twist(s[k], s[k + 1]);
    for (; k < n - 1; ++k)
        s[k] = s[k + m - n] ^ mt19937_twist(s[k], s[k + 1]);
    s[n - 1] = s[m - 1] ^ mt19937_twist(s[n - 1], s[0]);
}

namespace {

// Polynomials over GF(2) as little-endian bit arrays in 64-bit words.
using poly_t = std::vector<uint64_t>;

constexpr int poly_words = (mt19937_degree + 63) / 64; // residues: 312

inline int get_bit(const uint64_t *p, size_t i) {
    return int(p[i / 64] >> (i % 64)) & 1;
}

// 64 bits of p starting at bit position `bit` (p must hold one more word).
inline uint64_t get_word(const uint64_t *p, size_t bit) {
    const size_t q = bit / 64, r = bit % 64;
    return r == 0 ? p[q] : (p[q] >> r) | (p[q + 1] << (64 - r));
}

// dst ^= src << shift, src having nwords words; dst must be large enough.
void xor_shifted(uint64_t *dst, const uint64_t *src, size_t nwords,
        size_t shift) {
    const size_t q = shift / 64, r = shift % 64;
    if (r == 0) {
        for (size_t i = 0; i < nwords; ++i)
            dst[q + i] ^= src[i];
        return;
    }
    uint64_t carry = 0;
    for (size_t i = 0; i < nwords; ++i) {
        dst[q + i] ^= (src[i] << r) | carry;
        carry = src[i] >> (64 - r);
    }
    dst[q + nwords] ^= carry;
}

// The minimal polynomial of the bit sequence s, by Berlekamp-Massey over
// GF(2), written as a characteristic polynomial P (monic, of degree
// `degree`, P(shift) s = 0). Returns the coefficients, bit i for x^i.
poly_t berlekamp_massey(const std::vector<uint8_t> &s, int &degree) {
    const size_t n_bits = s.size();
    const size_t words = n_bits / 64 + 3;
    // s stored reversed: bit (N-1-j) holds s_j, so the window s_n, s_{n-1},
    // .., s_{n-L} needed for a discrepancy is the contiguous bit range
    // starting at N-1-n, matched word by word against C's coefficients.
    poly_t rev(words, 0);
    for (size_t j = 0; j < n_bits; ++j) {
        const size_t at = n_bits - 1 - j;
        if (s[j]) rev[at / 64] |= uint64_t(1) << (at % 64);
    }
    poly_t c(words, 0), b(words, 0), t;
    c[0] = b[0] = 1;
    size_t len = 0, m = 1, c_deg = 0, b_deg = 0;
    for (size_t n = 0; n < n_bits; ++n) {
        const size_t off = n_bits - 1 - n;
        uint64_t acc = 0;
        for (size_t w = 0; w <= c_deg / 64; ++w)
            acc ^= c[w] & get_word(rev.data(), off + 64 * w);
        if (__builtin_parityll(acc) == 0) {
            ++m;
            continue;
        }
        const size_t new_deg = std::max(c_deg, b_deg + m);
        if (2 * len <= n) {
            t.assign(c.begin(), c.begin() + c_deg / 64 + 1);
            xor_shifted(c.data(), b.data(), b_deg / 64 + 1, m);
            const size_t t_deg = c_deg;
            len = n + 1 - len;
            std::fill(b.begin(), b.end(), 0);
            std::copy(t.begin(), t.end(), b.begin());
            b_deg = t_deg;
            c_deg = new_deg;
            m = 1;
        } else {
            xor_shifted(c.data(), b.data(), b_deg / 64 + 1, m);
            c_deg = new_deg;
            ++m;
        }
    }
    // C(x) = 1 + c_1 x + .. + c_L x^L is the connection polynomial; the
    // characteristic polynomial is its reciprocal x^L C(1/x).
    poly_t p(len / 64 + 2, 0);
    for (size_t i = 0; i <= len; ++i)
        if (i <= c_deg && get_bit(c.data(), i))
            p[(len - i) / 64] |= uint64_t(1) << ((len - i) % 64);
    degree = int(len);
    return p;
}

// P(x) = x^19937 + sum of x^t over the terms t, the characteristic
// polynomial of the transition on the 19937-dimensional subspace the state
// windows (x_k..x_{k+623}) live in from k = 1 on. It has only 135 terms and
// its second-highest term is 623 below the leading one, which makes the
// reduction below cheap.
struct charpoly_t {
    std::vector<int> terms; // t < 19937, ascending
};

charpoly_t compute_charpoly() {
    // Bit 0 of the untempered sequence from x_624 on. Every window from x_1
    // on lies in the invariant subspace, where the transition's minimal
    // polynomial is the irreducible P, so the minimal polynomial of any
    // non-zero bit sequence there is P itself; 2 * 19937 bits determine it.
    const size_t n_bits = 2 * size_t(mt19937_degree);
    std::vector<uint32_t> x(mt19937_n + n_bits);
    mt19937_init_genrand(5489u, x.data());
    extend(x.data(), mt19937_n, n_bits);
    std::vector<uint8_t> s(n_bits);
    for (size_t j = 0; j < n_bits; ++j)
        s[j] = uint8_t(x[mt19937_n + j] & 1u);
    int degree = 0;
    const poly_t p = berlekamp_massey(s, degree);
    if (degree != mt19937_degree)
        throw std::logic_error("mt19937: characteristic polynomial degree");
    charpoly_t cp;
    for (int i = 0; i < mt19937_degree; ++i)
        if (get_bit(p.data(), size_t(i))) cp.terms.push_back(i);
    // reduce() folds 64 bits at a time; that needs every folded bit to land
    // below the chunk it comes from.
    if (cp.terms.empty() || cp.terms.back() + 64 > mt19937_degree)
        throw std::logic_error("mt19937: unexpected characteristic polynomial");
    return cp;
}

const charpoly_t &charpoly() {
    // Computed once (tens of ms); thread-safe static initialization.
    static const charpoly_t cp = compute_charpoly();
    return cp;
}

// r ^= h << pos for a 64-bit h.
inline void xor_word_at(uint64_t *r, uint64_t h, size_t pos) {
    const size_t q = pos / 64, s = pos % 64;
    r[q] ^= h << s;
    if (s != 0) r[q + 1] ^= h >> (64 - s);
}

// Reduces r (degree < top_bit, zero words beyond it) modulo P into
// r[0..poly_words). x^D == sum of x^t, so the 64 coefficients at
// [D + 64k, D + 64k + 64) move to [64k + t, ...) for every term t; those
// positions are all below D + 64k, so one top-down pass over the chunks
// suffices.
void reduce(uint64_t *r, size_t top_bit, const charpoly_t &cp) {
    const size_t d = mt19937_degree;
    if (top_bit <= d) return;
    for (size_t k = (top_bit - d - 1) / 64 + 1; k-- > 0;) {
        const uint64_t h = get_word(r, d + 64 * k);
        if (h == 0) continue;
        for (int t : cp.terms)
            xor_word_at(r, h, 64 * k + size_t(t));
    }
    // Everything from bit D on has been folded down.
    r[d / 64] &= (uint64_t(1) << (d % 64)) - 1;
}

// 32 bits spread to the even bit positions of 64.
inline uint64_t spread32(uint32_t v) {
    uint64_t x = v;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
    x = (x | (x << 2)) & 0x3333333333333333ull;
    x = (x | (x << 1)) & 0x5555555555555555ull;
    return x;
}

// x^e mod P, by left-to-right square-and-multiply. Squaring over GF(2) only
// spreads the bits; multiplying by x is a shift.
poly_t x_pow_mod(uint64_t e, const charpoly_t &cp) {
    const size_t d = mt19937_degree;
    poly_t r(2 * poly_words + 2, 0), sq(2 * poly_words + 2, 0);
    // The leading bits of e, as long as they stay below D, give x^v
    // directly without any reduction.
    int bit = 63;
    while (bit >= 0 && ((e >> bit) & 1) == 0)
        --bit;
    uint64_t v = 0;
    while (bit >= 0 && ((v << 1) | ((e >> bit) & 1)) < d) {
        v = (v << 1) | ((e >> bit) & 1);
        --bit;
    }
    r[v / 64] = uint64_t(1) << (v % 64);
    for (; bit >= 0; --bit) {
        std::fill(sq.begin(), sq.end(), 0);
        for (int w = 0; w < poly_words; ++w) {
            sq[2 * w] = spread32(uint32_t(r[w]));
            sq[2 * w + 1] = spread32(uint32_t(r[w] >> 32));
        }
        reduce(sq.data(), 2 * d - 1, cp);
        std::copy(sq.begin(), sq.begin() + poly_words, r.begin());
        if ((e >> bit) & 1) {
            // Multiply by x; x^D folds back to the terms.
            for (int w = poly_words; w > 0; --w)
                r[w] = (r[w] << 1) | (r[w - 1] >> 63);
            r[0] <<= 1;
            if (get_bit(r.data(), d)) {
                r[d / 64] &= ~(uint64_t(1) << (d % 64));
                for (int t : cp.terms)
                    r[t / 64] ^= uint64_t(1) << (t % 64);
            }
            r[poly_words] = 0;
        }
    }
    r.resize(poly_words);
    return r;
}

} // namespace

namespace {
// q(T) W for a polynomial q of degree < 19937 (q's bits, lowest first) is
// computed by Horner's rule a byte of q at a time, on a window kept as a
// ring: S = T^8 S + table[byte], table[v] = sum of T^t W over v's bits t
// (the windows W..T^7 W, which the sequence gives side by side). 2493 steps
// of 8 recurrence steps and one added window: a quarter of the additions
// that summing a window per coefficient of q (about 10^4) takes.
constexpr int horner_bits = 8;
constexpr size_t horner_entries = size_t(1) << horner_bits;

class ring_window_t {
public:
    // The window s_0..s_623 = 0.
    ring_window_t() { std::fill(r_, r_ + mt19937_n, 0u); }

    // S = T S: s_j becomes s_{j+1}, and s_623 the recurrence's next word.
    void step() {
        const size_t n = mt19937_n, m = mt19937_m;
        r_[h_] = r_[(h_ + m) % n] ^ mt19937_twist(r_[h_], r_[(h_ + 1) % n]);
        h_ = (h_ + 1) % n;
    }
    // S += w.
    void add(const uint32_t *w) {
        const size_t tail = mt19937_n - h_;
        for (size_t j = 0; j < tail; ++j)
            r_[h_ + j] ^= w[j];
        for (size_t j = tail; j < mt19937_n; ++j)
            r_[j - tail] ^= w[j];
    }
    void copy_to(uint32_t *out) const {
        std::copy(r_ + h_, r_ + mt19937_n, out);
        std::copy(r_, r_ + h_, out + (mt19937_n - h_));
    }

private:
    uint32_t r_[mt19937_n];
    size_t h_ = 0; // where s_0 is
};
} // namespace

void mt19937_jump(const uint32_t seeded[mt19937_n], uint64_t g,
        uint32_t window[mt19937_n]) {
    const size_t n = mt19937_n, d = mt19937_degree;
    // buf[j] = x_{624+j}: W_624 = (x_624..x_1247) and the windows after it.
    const size_t first_windows = g < d ? size_t(g) + 1 : horner_entries;
    std::vector<uint32_t> x(n + first_windows + n - 1);
    std::copy(seeded, seeded + n, x.begin());
    extend(x.data(), n, first_windows + n - 1);
    const uint32_t *buf = x.data() + n;
    if (g < d) {
        // T^g directly: cheaper than, and equal to, the reduction below.
        std::copy(buf + g, buf + g + n, window);
        return;
    }
    // W_{624+g} = T^g W_624 = q(T) W_624 with q = x^g mod P (P(T) = 0 on
    // the subspace, every window from x_1 on lies in).
    const poly_t q = x_pow_mod(g, charpoly());
    // table[v] = sum of W_{624+t} over v's bits t, each entry from one
    // with a bit fewer.
    std::unique_ptr<uint32_t[]> table(new uint32_t[horner_entries * n]);
    std::fill(table.get(), table.get() + n, 0u);
    for (size_t v = 1; v < horner_entries; ++v) {
        const uint32_t *fewer = table.get() + (v & (v - 1)) * n;
        const uint32_t *w = buf + __builtin_ctzll(v);
        uint32_t *e = table.get() + v * n;
        for (size_t j = 0; j < n; ++j)
            e[j] = fewer[j] ^ w[j];
    }
    const auto byte_of = [&q](size_t c) {
        return size_t(q[c / 8] >> (8 * (c % 8))) & (horner_entries - 1);
    };
    size_t c = size_t(poly_words) * 8; // q's bytes, highest first
    while (c > 0 && byte_of(c - 1) == 0)
        --c;
    ring_window_t s;
    while (c-- > 0) {
        for (int t = 0; t < horner_bits; ++t)
            s.step();
        s.add(table.get() + byte_of(c) * n);
    }
    s.copy_to(window);
}

namespace {
// Forward gaps up to this many outputs are walked rather than jumped.
// Walking is regenerations only (no tempering): 2^16 outputs take 12 us
// with the scalar code and 4 us with avx512's, a jump 220 us (g near 2^15)
// to 1.8 ms (g near 2^62) (Zen 5, family 26 model 2), so walking 2^20
// (about 0.2 ms scalar) still costs less than the cheapest jump.
constexpr uint64_t mt19937_walk_limit = uint64_t(1) << 20;
} // namespace

mt19937_t::mt19937_t(uint64_t seed, cpu_isa isa)
    : simd_(mt19937_simd(isa)), idx_(0), pos_(0) {
    mt19937_seed_state(seed, seeded_);
    std::copy(seeded_, seeded_ + mt19937_n, state_);
    simd_.regenerate(state_);
}

void mt19937_t::seek(uint64_t g) {
    if (g >= pos_ && g - pos_ <= mt19937_walk_limit) {
        uint64_t gap = g - pos_;
        while (gap > 0) {
            if (idx_ == mt19937_n) {
                simd_.regenerate(state_);
                idx_ = 0;
            }
            const int step = int(std::min<uint64_t>(gap, mt19937_n - idx_));
            idx_ += step;
            gap -= uint64_t(step);
        }
    } else {
        mt19937_jump(seeded_, g, state_);
        idx_ = 0;
    }
    pos_ = g;
}

void mt19937_t::generate(size_t n, uint32_t *out) {
    pos_ += n;
    while (n > 0) {
        if (idx_ == mt19937_n) {
            simd_.regenerate(state_);
            idx_ = 0;
        }
        const size_t step = std::min(n, size_t(mt19937_n - idx_));
        simd_.temper(state_ + idx_, step, out);
        idx_ += int(step);
        out += step;
        n -= step;
    }
}

} // namespace impl
} // namespace rndnn
