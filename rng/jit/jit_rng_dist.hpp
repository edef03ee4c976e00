// Distribution emitters: code that turns one unit's words (on the stack,
// written by the engine) into dst values, and advances the dst pointer.
#ifndef RNDNN_RNG_JIT_JIT_RNG_DIST_HPP
#define RNDNN_RNG_JIT_JIT_RNG_DIST_HPP

#include <memory>
#include <string>

#include "rng/jit/jit_rng_common.hpp"
#include "rng/rng_impl.hpp"

namespace rndnn {
namespace impl {

class jit_dist_t {
public:
    jit_dist_t(jit_generator_t &h, const jit_rng_frame_t &f,
            const rng_conf_t &conf)
        : h_(h), f_(f), conf_(conf) {}
    virtual ~jit_dist_t() = default;

    // Words one unit consumes and dst bytes it writes.
    virtual int unit_words() const { return jit_unit_words; }
    virtual int unit_bytes() const = 0;
    // Elements one unit covers.
    virtual int unit_elems() const { return jit_unit_words; }
    // True if the engine should write the words straight to dst.
    virtual bool words_are_output() const { return false; }
    // Code for one unit: words at [rsp + words_off], output at [f.dst].
    virtual void emit_unit() = 0;
    // Per execution (p may be a runtime value).
    virtual void fill_consts(double p, jit_rng_consts_t &c) const = 0;

protected:
    jit_generator_t &h_;
    const jit_rng_frame_t &f_;
    const rng_conf_t &conf_;
};

// Returns the emitter for conf's distribution and dst type, or nullptr and
// why not.
std::unique_ptr<jit_dist_t> make_jit_dist(jit_generator_t &h,
        const jit_rng_frame_t &f, const rng_conf_t &conf, std::string &why);

// Whether make_jit_dist() would return an emitter at tier isa, and why not.
bool jit_dist_supported(const rng_conf_t &conf, cpu_isa isa, std::string &why);

} // namespace impl
} // namespace rndnn

#endif
