// The reference RNG kernel: plain C++ that defines the output bits. It
// works on blocks of consecutive global indices g: fetch the words the block
// needs, turn them into values (rng/distributions.hpp), store the values
// through the layout. As ref:any every word is scalar code; as simd:<tier>
// (mt19937 only) the words come from that tier's vector code, bit for bit
// the scalar words.
#include <algorithm>

#include "rng/distributions.hpp"
#include "rng/engines/word_source.hpp"
#include "rng/rng_impl.hpp"
#include "src/layout.hpp"
#include "src/parallel.hpp"

namespace rndnn {
namespace impl {

namespace {

// Thread and block boundaries fall on multiples of this many global
// indices, so no 4-word counter block, Box-Muller pair or 32-element
// bitsliced group is split between two blocks (integers' elements draw
// words of their own, permutation's none: any boundary would do).
// Global indices are u64 so that rounding up near 2^63 cannot overflow.
constexpr uint64_t align_elems = 64;
constexpr uint64_t block_elems = 4096; // a multiple of align_elems

class ref_rng_t : public rng_kernel_t {
public:
    // words_isa: the tier of mt19937's word code (none: scalar); words:
    // where the words come from instead, if set; decide: what decides a p
    // tensor's elements first, if set.
    ref_rng_t(const rng_conf_t &conf, cpu_isa words_isa,
            word_source_maker_t words = nullptr, p_decider_t decide = nullptr)
        : conf_(conf)
        , words_isa_(words_isa)
        , words_(std::move(words))
        , decide_(std::move(decide))
        , layout_(conf.dst)
        , shift_(u24_shift(engine_traits(conf.alg).word_bits == 31))
        , dst_dt_(conf.dst.get_data_type()) {}

    void execute(const rng_run_t &run) const override {
        const dim_t n = conf_.nelems;
        if (n == 0) return;
        const uint64_t g0 = run.offset, g1 = g0 + n; // <= 2^63 - 1
        const uint64_t unit0 = g0 / align_elems;
        const auto units = static_cast<dim_t>(
                (g1 - 1) / align_elems + 1 - unit0);
        const int nthr = threads_for(rng_work(conf_), n, run.nthr);
        parallel(nthr, [&](int ithr, int nthr_) {
            dim_t us, ue;
            balance211(units, nthr_, ithr, us, ue);
            if (us == ue) return;
            const uint64_t gs = std::max(g0, (unit0 + us) * align_elems);
            const uint64_t ge = std::min(g1, (unit0 + ue) * align_elems);
            run_range(run, gs, ge);
        });
    }

private:
    void run_range(const rng_run_t &run, uint64_t gs, uint64_t ge) const;
    // integers' values of elements [gb, gn), stored.
    void integers(word_source_t &source, const rng_run_t &run, uint64_t gb,
            uint64_t gn) const;
    // The f64 values of elements [gb, gn) (one block at most): two words
    // an element (value_words), stored.
    void values_f64(word_source_t &source, const rng_run_t &run, uint64_t gb,
            uint64_t gn) const;
    // The p tensor's values (as f32) of dst's elements [i0, i0 + cnt),
    // counted row-major over dst's dims.
    void p_values(const rng_run_t &run, dim_t i0, dim_t cnt, float *out) const;
    // permutation's values of elements [gb, gn), stored.
    void permutation(const rng_run_t &run, uint64_t gb, uint64_t gn) const;
    // bytewise's decisions of elements [gb, gn) into flags: their units
    // decided whole (a tie's word depends on the ties before it).
    void bytewise_flags(word_source_t &source, uint64_t threshold,
            uint64_t gb, uint64_t gn, uint8_t *flags) const;

    rng_conf_t conf_;
    cpu_isa words_isa_;
    word_source_maker_t words_;
    p_decider_t decide_;
    layout_t layout_;
    int shift_;
    data_type dst_dt_;
};

void ref_rng_t::run_range(
        const rng_run_t &run, uint64_t gs, uint64_t ge) const {
    const auto source = words_ ? words_(run.seed, run.stream)
                               : make_word_source(conf_.alg, run.seed,
                                       run.stream, conf_.name, words_isa_);
    alignas(64) uint32_t words[block_elems + align_elems];
    alignas(64) float values[block_elems];
    alignas(64) uint8_t flags[block_elems];
    alignas(64) unsigned char typed[block_elems * 4];

    const bool mcg = engine_traits(conf_.alg).word_bits == 31;
    const uint64_t threshold = mcg ? bernoulli_threshold_mcg31(run.p)
                                   : bernoulli_threshold32(run.p);
    const uint32_t flip = conf_.method == bernoulli_method::onednn ? ~0u : 0u;
    const uint64_t level = bitsliced_level(run.p, conf_.bits);
    const int b = conf_.bits;
    // The f32 kernels' parameters (f32 values, rng_conf_t).
    const auto f32 = [](double v) { return static_cast<float>(v); };
    const float a = f32(conf_.a), b_minus_a = f32(conf_.b) - a;
    const float mean = f32(conf_.mean), stddev = f32(conf_.stddev);
    const float loc = f32(conf_.loc), scale = f32(conf_.scale);

    // Stores the block's 0/1 decisions in the dst type.
    auto emit_flags = [&](dim_t i0, dim_t cnt) {
        switch (dst_dt_) {
            case data_type::bit:
                layout_.store_bits(run.dst, i0, cnt, flags);
                return;
            case data_type::u8: layout_.store(run.dst, i0, cnt, flags); return;
            case data_type::s32: {
                auto *t = reinterpret_cast<int32_t *>(typed);
                for (dim_t k = 0; k < cnt; ++k)
                    t[k] = flags[k];
                break;
            }
            default: { // f32
                auto *t = reinterpret_cast<float *>(typed);
                for (dim_t k = 0; k < cnt; ++k)
                    t[k] = flags[k] ? 1.f : 0.f;
                break;
            }
        }
        layout_.store(run.dst, i0, cnt, typed);
    };
    // Stores the block's f32 values in the dst type, rounded once.
    auto emit_values = [&](dim_t i0, dim_t cnt) {
        if (dst_dt_ == data_type::f32) {
            layout_.store(run.dst, i0, cnt, values);
            return;
        }
        auto *t = reinterpret_cast<uint16_t *>(typed);
        for (dim_t k = 0; k < cnt; ++k)
            t[k] = dst_dt_ == data_type::bf16 ? f32_to_bf16(values[k])
                                              : f32_to_f16(values[k]);
        layout_.store(run.dst, i0, cnt, typed);
    };

    for (uint64_t gb = gs; gb < ge;) {
        const uint64_t gn = std::min(ge, (gb / block_elems + 1) * block_elems);
        const auto cnt = static_cast<dim_t>(gn - gb);
        const auto i0 = static_cast<dim_t>(gb - run.offset);
        if (dst_dt_ == data_type::f64) {
            values_f64(*source, run, gb, gn);
            gb = gn;
            continue;
        }
        switch (conf_.dist) {
            case dist_t::bits:
                source->fill(gb, cnt, words);
                layout_.store(run.dst, i0, cnt, words);
                break;
            case dist_t::bernoulli:
                if (conf_.p_tensor) {
                    source->fill(gb, cnt, words);
                    p_values(run, i0, cnt, values);
                    for (dim_t k = decide_ ? decide_(words, values, cnt, flags)
                                           : 0;
                            k < cnt; ++k)
                        flags[k] = bernoulli_tensor_decide(words[k], values[k]);
                } else if (conf_.method == bernoulli_method::bytewise) {
                    bytewise_flags(*source, threshold, gb, gn, flags);
                } else if (conf_.method != bernoulli_method::bitsliced) {
                    source->fill(gb, cnt, words);
                    for (dim_t k = 0; k < cnt; ++k)
                        flags[k] = (words[k] ^ flip) < threshold;
                } else {
                    const uint64_t grp0 = gb / 32, grp1 = (gn - 1) / 32 + 1;
                    source->fill(grp0 * b, (grp1 - grp0) * b, words);
                    for (uint64_t grp = grp0; grp < grp1; ++grp) {
                        const uint32_t lt = bitsliced_decide(
                                words + (grp - grp0) * b, b, level);
                        const uint64_t lo = std::max(gb, grp * 32);
                        const uint64_t hi = std::min(gn, grp * 32 + 32);
                        for (uint64_t g = lo; g < hi; ++g)
                            flags[g - gb] = (lt >> (g & 31)) & 1u;
                    }
                }
                emit_flags(i0, cnt);
                break;
            case dist_t::uniform:
                source->fill(gb, cnt, words);
                for (dim_t k = 0; k < cnt; ++k)
                    values[k] = uniform_value(
                            words[k], shift_, a, b_minus_a);
                emit_values(i0, cnt);
                break;
            case dist_t::normal: {
                const uint64_t w0 = gb & ~uint64_t(1), w1 = ((gn - 1) | 1) + 1;
                source->fill(w0, w1 - w0, words);
                for (uint64_t g = w0; g < w1; g += 2) {
                    float v[2];
                    normal_pair(words[g - w0], words[g - w0 + 1], shift_,
                            mean, stddev, &v[0], &v[1]);
                    for (int j = 0; j < 2; ++j)
                        if (g + j >= gb && g + j < gn) values[g + j - gb] = v[j];
                }
                emit_values(i0, cnt);
                break;
            }
            case dist_t::integers: integers(*source, run, gb, gn); break;
            case dist_t::permutation: permutation(run, gb, gn); break;
            case dist_t::exponential:
                source->fill(gb, cnt, words);
                for (dim_t k = 0; k < cnt; ++k)
                    values[k] = exponential_value(words[k], shift_, scale);
                emit_values(i0, cnt);
                break;
            case dist_t::gumbel:
                source->fill(gb, cnt, words);
                for (dim_t k = 0; k < cnt; ++k)
                    values[k] = gumbel_value(words[k], shift_, loc, scale);
                emit_values(i0, cnt);
                break;
            case dist_t::laplace:
                source->fill(gb, cnt, words);
                for (dim_t k = 0; k < cnt; ++k)
                    values[k] = laplace_value(words[k], shift_, loc, scale);
                emit_values(i0, cnt);
                break;
            case dist_t::rayleigh:
                source->fill(gb, cnt, words);
                for (dim_t k = 0; k < cnt; ++k)
                    values[k] = rayleigh_value(words[k], shift_, scale);
                emit_values(i0, cnt);
                break;
            case dist_t::truncated_normal:
                source->fill(gb, cnt, words);
                for (dim_t k = 0; k < cnt; ++k)
                    values[k] = truncnorm_value(
                            words[k], shift_, conf_.truncnorm);
                emit_values(i0, cnt);
                break;
            case dist_t::lognormal: {
                const uint64_t w0 = gb & ~uint64_t(1), w1 = ((gn - 1) | 1) + 1;
                source->fill(w0, w1 - w0, words);
                for (uint64_t g = w0; g < w1; g += 2) {
                    float v[2];
                    lognormal_pair(words[g - w0], words[g - w0 + 1], shift_,
                            mean, stddev, &v[0], &v[1]);
                    for (int j = 0; j < 2; ++j)
                        if (g + j >= gb && g + j < gn) values[g + j - gb] = v[j];
                }
                emit_values(i0, cnt);
                break;
            }
        }
        gb = gn;
    }
}

void ref_rng_t::values_f64(word_source_t &source, const rng_run_t &run,
        uint64_t gb, uint64_t gn) const {
    // Element g's words: W(wpe g) and W(wpe g + 1).
    constexpr uint64_t wpe = value_words(data_type::f64);
    static_assert(wpe == 2, "u53_of takes an element's two words");
    alignas(64) uint32_t words[wpe * (block_elems + 2)];
    alignas(64) double values[block_elems];
    const int wb = engine_traits(conf_.alg).word_bits;
    const auto u53 = [&](uint64_t e) { // element e of the words fetched
        return u53_of(words[wpe * e], words[wpe * e + 1], wb);
    };
    const double a = conf_.a, b_minus_a = conf_.b - conf_.a;
    const auto cnt = static_cast<dim_t>(gn - gb);
    switch (conf_.dist) {
        case dist_t::uniform:
            source.fill(wpe * gb, wpe * (gn - gb), words);
            for (dim_t k = 0; k < cnt; ++k)
                values[k] = uniform_value_f64(u53(k), a, b_minus_a);
            break;
        case dist_t::exponential:
            source.fill(wpe * gb, wpe * (gn - gb), words);
            for (dim_t k = 0; k < cnt; ++k)
                values[k] = exponential_value_f64(u53(k), conf_.scale);
            break;
        case dist_t::gumbel:
            source.fill(wpe * gb, wpe * (gn - gb), words);
            for (dim_t k = 0; k < cnt; ++k)
                values[k] = gumbel_value_f64(u53(k), conf_.loc, conf_.scale);
            break;
        case dist_t::truncated_normal:
            source.fill(wpe * gb, wpe * (gn - gb), words);
            for (dim_t k = 0; k < cnt; ++k)
                values[k] = truncnorm_value_f64(u53(k), conf_.truncnorm64);
            break;
        case dist_t::laplace:
            source.fill(wpe * gb, wpe * (gn - gb), words);
            for (dim_t k = 0; k < cnt; ++k)
                values[k] = laplace_value_f64(
                        u53(k), words[wpe * k], conf_.loc, conf_.scale);
            break;
        case dist_t::rayleigh:
            source.fill(wpe * gb, wpe * (gn - gb), words);
            for (dim_t k = 0; k < cnt; ++k)
                values[k] = rayleigh_value_f64(u53(k), conf_.scale);
            break;
        case dist_t::normal:
        case dist_t::lognormal: {
            // Whole pairs of elements: their 4 words each.
            const uint64_t e0 = gb & ~uint64_t(1), e1 = ((gn - 1) | 1) + 1;
            source.fill(wpe * e0, wpe * (e1 - e0), words);
            const bool lognormal = conf_.dist == dist_t::lognormal;
            for (uint64_t g = e0; g < e1; g += 2) {
                double v[2];
                normal_pair_f64(u53(g - e0), u53(g - e0 + 1), conf_.mean,
                        conf_.stddev, &v[0], &v[1]);
                for (int j = 0; j < 2; ++j)
                    if (g + j >= gb && g + j < gn)
                        values[g + j - gb] = lognormal
                                ? exp_approx_f64(v[j])
                                : v[j];
            }
            break;
        }
        default: return; // no other distribution writes f64 (check_dst_type)
    }
    layout_.store(run.dst, static_cast<dim_t>(gb - run.offset), cnt, values);
}

void ref_rng_t::integers(word_source_t &source, const rng_run_t &run,
        uint64_t gb, uint64_t gn) const {
    // Chunks of 1024 elements: their 4096 words (at most) and s64 values.
    constexpr uint64_t chunk = 1024;
    alignas(64) uint32_t words[chunk * 4];
    alignas(64) int64_t values[chunk];
    alignas(64) unsigned char typed[chunk * 8];
    const uint64_t r = conf_.range;
    const int k = integers_words(r);
    for (uint64_t g0 = gb; g0 < gn; g0 += chunk) {
        const uint64_t n = std::min(chunk, gn - g0);
        source.fill(g0 * k, n * k, words);
        for (uint64_t e = 0; e < n; ++e) {
            const uint32_t *w = words + e * k;
            values[e] = integers_value(conf_.low,
                    k == 2 ? integers_offset2(w[0], w[1], r)
                           : integers_offset4(w, r));
        }
        for (uint64_t e = 0; e < n; ++e) {
            switch (dst_dt_) {
                case data_type::s64:
                    reinterpret_cast<int64_t *>(typed)[e] = values[e];
                    break;
                case data_type::s32:
                    reinterpret_cast<int32_t *>(typed)[e]
                            = static_cast<int32_t>(values[e]);
                    break;
                case data_type::u8: typed[e] = static_cast<uint8_t>(values[e]); break;
                default: // f32: |value| <= 2^24, exact
                    reinterpret_cast<float *>(typed)[e]
                            = static_cast<float>(values[e]);
            }
        }
        layout_.store(run.dst, static_cast<dim_t>(g0 - run.offset),
                static_cast<dim_t>(n), typed);
    }
}

void ref_rng_t::p_values(
        const rng_run_t &run, dim_t i0, dim_t cnt, float *out) const {
    const dims &d = conf_.dst.get_dims();
    const dims &s = conf_.p_strides;
    const size_t rank = d.size();
    // The coordinates of element i0 and its position in p.
    dims c(rank);
    dim_t pos = 0;
    dim_t r = i0;
    for (size_t j = rank; j-- > 0;) {
        c[j] = r % d[j];
        r /= d[j];
        pos += c[j] * s[j];
    }
    const bool bf16 = conf_.p_dt == data_type::bf16;
    const auto *p32 = static_cast<const float *>(run.p_src);
    const auto *p16 = static_cast<const uint16_t *>(run.p_src);
    if (rank == 0) { // one element
        std::fill(out, out + cnt, bf16 ? bf16_to_f32(p16[0]) : p32[0]);
        return;
    }
    const size_t last = rank - 1;
    const dim_t step = s[last];
    for (dim_t k = 0; k < cnt;) {
        // The rest of the current row, at stride step (0: one value).
        const dim_t span = std::min(cnt - k, d[last] - c[last]);
        if (bf16)
            for (dim_t e = 0; e < span; ++e)
                out[k + e] = bits_float(uint32_t(p16[pos + e * step]) << 16);
        else
            for (dim_t e = 0; e < span; ++e)
                out[k + e] = p32[pos + e * step];
        k += span;
        pos += span * step;
        c[last] += span;
        // Carry into the outer coordinates.
        for (size_t j = last; c[j] == d[j] && j > 0; --j) {
            pos -= c[j] * s[j];
            c[j] = 0;
            pos += s[j - 1];
            ++c[j - 1];
        }
    }
}

void ref_rng_t::permutation(
        const rng_run_t &run, uint64_t gb, uint64_t gn) const {
    const auto key = philox_key(run.seed);
    const int h = permutation_half_bits(conf_.n);
    const auto i0 = static_cast<dim_t>(gb - run.offset);
    const auto cnt = static_cast<dim_t>(gn - gb);
    if (dst_dt_ == data_type::s64) {
        alignas(64) int64_t values[block_elems];
        permutation_values(gb, gn - gb, conf_.n, h, key.data(), run.stream,
                values);
        layout_.store(run.dst, i0, cnt, values);
        return;
    }
    alignas(64) int32_t values[block_elems]; // s32: n <= 2^31
    permutation_values(gb, gn - gb, conf_.n, h, key.data(), run.stream,
            values);
    layout_.store(run.dst, i0, cnt, values);
}

void ref_rng_t::bytewise_flags(word_source_t &source, uint64_t threshold,
        uint64_t gb, uint64_t gn, uint8_t *flags) const {
    const uint64_t ue = bytewise_unit_elems;
    std::vector<uint32_t> words(bytewise_unit_words);
    std::vector<uint8_t> unit(ue);
    for (uint64_t u = gb / ue; u * ue < gn; ++u) {
        source.fill(u * bytewise_unit_words, bytewise_unit_words, words.data());
        bytewise_decide(words.data(), threshold,
                [&](uint64_t n, uint32_t *out) {
                    source.fill(bytewise_tie_word(u, 0), n, out);
                },
                unit.data());
        const uint64_t lo = std::max(gb, u * ue), hi = std::min(gn, u * ue + ue);
        std::copy(unit.begin() + (lo - u * ue), unit.begin() + (hi - u * ue),
                flags + (lo - gb));
    }
}

} // namespace

bool init_ref_rng(const rng_conf_t &, std::string &) { return true; }

std::unique_ptr<rng_kernel_t> create_ref_rng(const rng_conf_t &conf) {
    return std::make_unique<ref_rng_t>(conf, cpu_isa::none);
}

std::unique_ptr<rng_kernel_t> create_ref_rng_with_words(const rng_conf_t &conf,
        word_source_maker_t words, p_decider_t decide) {
    return std::make_unique<ref_rng_t>(
            conf, cpu_isa::none, std::move(words), std::move(decide));
}

bool init_simd_rng(cpu_isa isa, const rng_conf_t &conf, std::string &why) {
    if (!tier_usable(isa, conf.max_isa, why)) return false;
    if (conf.alg != rng_alg::mt19937) {
        why = cat("alg=", alg2str(conf.alg), " has no vector word code");
        return false;
    }
    return true;
}

std::unique_ptr<rng_kernel_t> create_simd_rng(
        cpu_isa isa, const rng_conf_t &conf) {
    return std::make_unique<ref_rng_t>(conf, isa);
}

} // namespace impl
} // namespace rndnn
