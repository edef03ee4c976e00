// Engine emitters: code that writes the next batch of 32-bit words W(i),
// in index order, to memory. An engine keeps its position in its stack slot
// (or in the call's state buffer) between batches, so it may use every
// vector register while it runs and the distribution after it may too.
#ifndef RNDNN_RNG_JIT_JIT_RNG_ENGINE_HPP
#define RNDNN_RNG_JIT_JIT_RNG_ENGINE_HPP

#include <memory>

#include "rng/jit/jit_rng_common.hpp"
#include "rng/rng_impl.hpp"

namespace rndnn {
namespace impl {

class jit_engine_t {
public:
    jit_engine_t(jit_generator_t &h, const jit_rng_frame_t &f) : h_(h), f_(f) {}
    virtual ~jit_engine_t() = default;

    // Words one emit_batch() writes; divides jit_unit_words.
    virtual int batch_words() const = 0;
    // Code run once per call, before the first batch.
    virtual void emit_init() = 0;
    // Code writing the next batch_words() words at [out].
    virtual void emit_batch(const Xbyak::Reg64 &out) = 0;

    // Per execution: the constants the code reads. seed/stream as in
    // rng_run_t.
    virtual void fill_consts(
            uint64_t seed, uint64_t stream, jit_rng_consts_t &c) const = 0;
    // The jit_rng_call_t::first / state of a call whose first word is W(i):
    // philox fills first; threefry, mcg31m1 and multfly fill state (at most
    // jit_max_state_bytes of lane states).
    virtual uint64_t first_of(uint64_t i) const = 0;
    virtual void init_state(uint64_t seed, uint64_t i, void *state) const = 0;

    // --- Words addressed by lane, for lazy bitsliced(b) -----------------
    // Engines whose words are addressed by counter (philox, threefry,
    // multfly) compute, for up to R = lazy_vectors() vectors of 32-bit
    // lanes at once, the four words of one block a lane: lane l of vector v
    // gets the words W(4c), ..., W(4c + 3) of block c = cbase + off, off
    // lane l of the dwords at [offsets + v * vlen]. 0: the engine cannot
    // (mcg31m1 is sequential).
    virtual int lazy_vectors() const { return 0; }
    // For nvec <= lazy_vectors() vectors, writes word i of vector v to
    // [out + (4 * v + i) * vlen]. The vector registers and k6 are
    // clobbered; cbase (a block index) is kept.
    virtual void emit_lazy_blocks(int, const Xbyak::Reg64 &,
            const Xbyak::RegExp &, const Xbyak::RegExp &) {}

protected:
    jit_generator_t &h_;
    const jit_rng_frame_t &f_;
};

// Makes the engine emitter of conf.alg for the kernel @p h.
using jit_engine_factory_t = std::unique_ptr<jit_engine_t> (*)(
        const rng_conf_t &conf, jit_generator_t &h, const jit_rng_frame_t &f);

// The one list of the algorithms with a JIT engine: philox4x32_10 in the
// cuRAND or the oneDNN counter layout, threefry4x32_20, mcg31m1 and
// multfly (keyed by conf.name, which must outlive the engine); nullptr for
// the others (mt19937), which the JIT kernels then decline.
jit_engine_factory_t jit_engine_factory(rng_alg alg);

} // namespace impl
} // namespace rndnn

#endif
