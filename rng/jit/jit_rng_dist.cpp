// Distribution emitters: JIT code turning one unit's words into dst values.
// The families are in files of their own (jit_rng_dist_parts.hpp lists
// them); this one holds the raw words, the shared pieces and the choice.
#include "rng/jit/jit_rng_dist.hpp"

#include "rng/jit/jit_rng_dist_parts.hpp"
#include "src/jit_tuning.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

void jit_vec_t::fill_f32(float v) { fill(float_bits(v)); }
void jit_vec_t::fill_f64(double v) { fill_q(double_bits(v)); }

void emit_round_bf16_finite(jit_generator_t &h, const jit_rng_frame_t &f,
        const Xbyak::Xmm &v, const Xbyak::Xmm &lsb) {
    h.uni_vpsrld(lsb, v, 16);
    h.uni_vpand(lsb, lsb, h.ptr[f.consts + RNDNN_JIT_CONST(i_one)]);
    h.uni_vpaddd(v, v, lsb);
    h.uni_vpaddd(v, v, h.ptr[f.consts + RNDNN_JIT_CONST(bf16_round)]);
    h.uni_vpsrld(v, v, 16);
}

namespace {

// --- bits: the words are the output ----------------------------------------

class jit_bits_t : public jit_dist_t {
public:
    using jit_dist_t::jit_dist_t;
    int unit_bytes() const override { return jit_unit_words * 4; }
    bool words_are_output() const override { return true; }
    void emit_unit() override {}
    void fill_consts(double, jit_rng_consts_t &) const override {}
};

} // namespace

bool jit_dist_supported(const rng_conf_t &conf, cpu_isa isa, std::string &why) {
    const data_type t = conf.dst.get_data_type();
    // F16C (vcvtps2ph) comes with the avx2 tier.
    const auto f16_ok = [&] {
        if (t != data_type::f16 || isa >= cpu_isa::avx2) return true;
        why = "f16 needs F16C (avx2 tier and up)";
        return false;
    };
    if (t == data_type::f64) {
        // uniform, normal, exponential, gumbel, lognormal, laplace,
        // rayleigh and truncated_normal (check_dst_type takes no other),
        // from qword lanes of two 32-bit words, in VEX and EVEX forms.
        if (is_mcg(conf)) {
            why = "f64 values need 32-bit words in the JIT kernels";
            return false;
        }
        if (isa < cpu_isa::avx2) {
            why = "f64 values need the avx2 tier and up";
            return false;
        }
    }
    switch (conf.dist) {
        case dist_t::bits: return true; // every dst type it writes
        case dist_t::bernoulli:
            // A p tensor: the bits kernel's words, decided in C++
            // (create_jit_rng), where the words are addressed by counter.
            if (conf.p_tensor && !engine_traits(conf.alg).by_counter) {
                why = cat("a p tensor with alg=", alg2str(conf.alg),
                        ": its words are sequential (the reference draws "
                        "them)");
                return false;
            }
            return true; // every dst type it writes
        case dist_t::uniform:
            if (isa < cpu_isa::avx2) {
                why = "uniform needs FMA (avx2 tier and up)";
                return false;
            }
            return true;
        case dist_t::normal:
        case dist_t::exponential:
        case dist_t::gumbel:
        case dist_t::laplace:
        case dist_t::rayleigh:
        case dist_t::lognormal:
        case dist_t::truncated_normal: return f16_ok();
        case dist_t::integers:
            // avx2 and avx512 pack the narrow types (sse41 declines).
            if (isa < cpu_isa::avx2) {
                why = "integers needs the avx2 tier and up";
                return false;
            }
            return true;
        case dist_t::permutation:
            // Cycle walking repeats the network a data-dependent number
            // of times an element.
            why = "permutation (cycle walking: a data-dependent count of "
                  "Feistel passes an element) has no JIT kernel";
            return false;
    }
    why = "unknown distribution";
    return false;
}

bool jit_bitsliced_lazy(const rng_conf_t &conf, const jit_engine_t &engine) {
    if (conf.dist != dist_t::bernoulli || conf.method != bernoulli_method::bitsliced
            || engine.lazy_vectors() == 0)
        return false;
    switch (conf.eval) {
        case bitsliced_eval_t::automatic:
            return conf.bits % 4 == 0
                    || conf.bits >= jit_tuning().lazy_min_bits;
        case bitsliced_eval_t::eager: return false;
        case bitsliced_eval_t::lazy: return true;
    }
    return false;
}

std::unique_ptr<jit_dist_t> make_jit_dist(jit_generator_t &h,
        const jit_rng_frame_t &f, const rng_conf_t &conf,
        jit_engine_t &engine, std::string &why) {
    if (!jit_dist_supported(conf, h.isa(), why)) return nullptr;
    switch (conf.dist) {
        case dist_t::bits: return std::make_unique<jit_bits_t>(h, f, conf);
        case dist_t::bernoulli:
            if (conf.method == bernoulli_method::bytewise)
                return make_jit_bytewise(h, f, conf, engine);
            if (jit_bitsliced_lazy(conf, engine))
                return make_jit_bitsliced_lazy(h, f, conf, engine);
            if (conf.method == bernoulli_method::bitsliced)
                return std::make_unique<jit_bitsliced_t>(h, f, conf);
            return make_jit_threshold(h, f, conf);
        case dist_t::uniform: return make_jit_uniform(h, f, conf);
        case dist_t::normal: return make_jit_normal(h, f, conf);
        case dist_t::integers: return make_jit_integers(h, f, conf);
        case dist_t::exponential:
        case dist_t::gumbel:
        case dist_t::laplace:
        case dist_t::rayleigh: return make_jit_ln_value(h, f, conf);
        case dist_t::lognormal: return make_jit_lognormal(h, f, conf);
        case dist_t::permutation: return nullptr; // declined above
        case dist_t::truncated_normal:
            return make_jit_truncated_normal(h, f, conf);
    }
    return nullptr;
}

} // namespace impl
} // namespace rndnn
