// Distribution emitters: code that turns one unit's words (on the stack,
// written by the engine) into dst values, and advances the dst pointer.
#ifndef RNDNN_RNG_JIT_JIT_RNG_DIST_HPP
#define RNDNN_RNG_JIT_JIT_RNG_DIST_HPP

#include <functional>
#include <memory>
#include <string>

#include "rng/jit/jit_rng_common.hpp"
#include "rng/jit/jit_rng_engine.hpp"
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
    // True if emit_unit() draws the words it needs itself (lazy
    // bitsliced); then jit_rng_call_t::first is the block index (word
    // index / 4) of the first unit's first word.
    virtual bool draws_words() const { return false; }
    // True if emit_unit() has the engine write the unit's words, in index
    // order, in batches of its own choosing (bytewise, which decides each
    // batch as it comes); jit_rng_call_t::first is then the engine's.
    virtual bool drives_engine() const { return false; }
    // Code run once per call, after the engine's.
    virtual void emit_init() {}
    // Code for one unit: words at [rsp + words_off], output at [f.dst].
    virtual void emit_unit() = 0;
    // Per execution (p may be a runtime value).
    virtual void fill_consts(double p, jit_rng_consts_t &c) const = 0;
    // The code of step(n), which the generator sets, goes where it may
    // overlap with the dist's own: emit_unit() calls it with n that add up
    // to at most one unit's groups of 32 elements, where the vector
    // registers hold nothing it needs (jit_rng_generator_t's consumer
    // steps).
    void set_step(std::function<void(int)> step) { step_ = std::move(step); }

protected:
    void emit_step(int groups) {
        if (step_) step_(groups);
    }

    jit_generator_t &h_;
    const jit_rng_frame_t &f_;
    const rng_conf_t &conf_;

private:
    std::function<void(int)> step_;
};

// Whether conf's bitsliced(b) runs lazily with this engine. Automatic:
// for b a multiple of 4 and from the tuning's lazy_min_bits on
// (src/jit_tuning.hpp); other b below it are eager: their groups start
// inside an engine block, so lazy code draws two blocks of four words a
// group before it can decide anything, more than the b words the eager
// code draws (docs/jit.md gives the measurements).
bool jit_bitsliced_lazy(const rng_conf_t &conf, const jit_engine_t &engine);

// Returns the emitter for conf's distribution and dst type, drawing from
// engine where it draws its own words, or nullptr and why not.
std::unique_ptr<jit_dist_t> make_jit_dist(jit_generator_t &h,
        const jit_rng_frame_t &f, const rng_conf_t &conf,
        jit_engine_t &engine, std::string &why);

// Whether make_jit_dist() would return an emitter at tier isa, and why not.
bool jit_dist_supported(const rng_conf_t &conf, cpu_isa isa, std::string &why);

} // namespace impl
} // namespace rndnn

#endif
