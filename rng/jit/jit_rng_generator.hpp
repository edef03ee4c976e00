// The JIT RNG kernel's generator and C++ driver, shared by the RNG
// primitive (jit_rng.cpp) and by kernels that consume its output in the
// same pass (the fused dropout kernel, pipeline/jit/jit_fused.cpp).
//
// The generator composes an engine and a distribution into one loop over
// units; a subclass may add code after each unit (the consumer hooks). The
// driver splits the units of an execution over threads and writes partial
// units and non-dense dst through a scratch buffer.
#ifndef RNDNN_RNG_JIT_JIT_RNG_GENERATOR_HPP
#define RNDNN_RNG_JIT_JIT_RNG_GENERATOR_HPP

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>

#include "rng/jit/jit_rng_dist.hpp"
#include "rng/jit/jit_rng_engine.hpp"
#include "rng/rng_impl.hpp"
#include "src/layout.hpp"
#include "src/parallel.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

// The kernel function: per unit, the engine writes the unit's words and the
// distribution turns them into dst values at [f.dst], advancing f.dst by
// dist().unit_bytes(); then comes the consumer's code, if any.
class jit_rng_generator_t : public jit_generator_t {
public:
    using kernel_fn_t = void (*)(const jit_rng_call_t *);

    // Sets up the engine and distribution emitters for a copy of conf,
    // which init_jit_rng() accepted; create() generates the code.
    jit_rng_generator_t(cpu_isa isa, const rng_conf_t &conf);

    // Generates the code, once, after construction (the hooks are virtual,
    // so they cannot run from this class's constructor). With `nt`, a
    // second function with non-temporal output stores, for calls whose
    // output is aligned to vlen() (has_nt(), operator()'s `nt`).
    void create(bool nt = false);

    const rng_conf_t &conf() const { return conf_; }
    const jit_engine_t &engine() const { return *engine_; }
    const jit_dist_t &dist() const { return *dist_; }
    // call may be the first member of a larger argument struct that the
    // consumer's code reads through frame().args.
    void operator()(const jit_rng_call_t &call, bool nt = false) const {
        (nt ? fn_nt_ : fn_)(&call);
    }
    bool has_nt() const { return fn_nt_ != nullptr; }

protected:
    const jit_rng_frame_t &frame() const { return frame_; }

    // Consumer hooks. Their code may use every vector register, rax, rcx,
    // rdx, rsi, r8-r11 and the frame's consumer slot; it must keep the
    // frame's registers (except that consume_unit may move f.dst).
    //
    // Once per call, after the engine's init: f.args still holds the call.
    virtual void emit_consumer_init() {}
    // After each unit: the unit's dist output is the dist().unit_bytes()
    // bytes before [f.dst].
    virtual void emit_consume_unit() {}
    // Inside a unit's code, where the distribution offers it (lazy
    // bitsliced, between engine blocks): work on `groups` groups of 32
    // elements that an earlier unit left, so that it overlaps with the
    // engine's. This code may use rax, the vector registers and k1-k5, and
    // must keep every other register.
    virtual void emit_consume_step(int groups) { (void)groups; }
    // Once per call, after the last unit.
    virtual void emit_consumer_fini() {}
    // After the function's code: data the consumer's code reads, e.g.
    // constant tables addressed relative to rip.
    virtual void emit_consumer_data() {}

private:
    // One kernel function (the consumer's data comes after all of them).
    void generate();
    // n words from the engine to [out], advancing out.
    void emit_words(const Xbyak::Reg64 &out, int n);

    static constexpr int max_inline_batches = 4;
    // The emitters keep references to it, and read it at execution.
    const rng_conf_t conf_;
    jit_rng_frame_t frame_;
    std::unique_ptr<jit_engine_t> engine_;
    std::unique_ptr<jit_dist_t> dist_;
    kernel_fn_t fn_ = nullptr, fn_nt_ = nullptr;
};

// The constants of a kernel's last execution, kept for the next one with
// the same (seed, stream, p, scale): zeroing and filling them (20 KiB, the
// Philox keys, the bitsliced levels) cost 0.13 us a call, a sixth of a
// dropout of 16 f32 (Xeon, family 6, model 167). Consts is
// jit_rng_consts_t or a struct that begins with one. Thread safe: an
// execution holds its entry, which nothing changes once made; another key
// makes a new entry.
template <typename Consts>
class jit_consts_cache_t {
public:
    struct entry_t {
        uint64_t seed, stream;
        double p;
        float scale;
        Consts c;
    };

    // The entry of (seed, stream, p, scale): the last one if its key is
    // the same bits, else a new one, zeroed, then filled by fill(c).
    template <typename Fill>
    std::shared_ptr<const entry_t> get(uint64_t seed, uint64_t stream,
            double p, float scale, const Fill &fill) const {
        std::shared_ptr<const entry_t> e = std::atomic_load(&last_);
        if (e && e->seed == seed && e->stream == stream
                && std::memcmp(&e->p, &p, sizeof p) == 0
                && std::memcmp(&e->scale, &scale, sizeof scale) == 0)
            return e;
        // new: aligned as Consts (64 bytes); value-initialized: zeroed.
        std::shared_ptr<entry_t> n(new entry_t());
        n->seed = seed;
        n->stream = stream;
        n->p = p;
        n->scale = scale;
        fill(n->c);
        std::atomic_store(&last_, std::shared_ptr<const entry_t>(n));
        return n;
    }

private:
    mutable std::shared_ptr<const entry_t> last_;
};

// Elements per scratch pass: partial units and non-dense layouts.
constexpr int jit_rng_scratch_elems = 4096;

// The C++ side of a JIT RNG kernel that does not depend on what consumes
// its units: per-execution constants, the split of the global units over
// threads, the engine's position at a unit, and the dst's addresses and
// stores.
class jit_rng_driver_t {
public:
    // The problem is gen.conf(); gen must outlive the driver.
    explicit jit_rng_driver_t(const jit_rng_generator_t &gen);

    int unit_elems() const { return unit_elems_; }
    // Units that fill jit_rng_scratch_elems elements and at most
    // jit_rng_scratch_elems * 4 bytes, the scratch's (integers' s64 values
    // take 8 bytes an element; at least one unit).
    int scratch_units() const {
        return std::max(1,
                std::min(jit_rng_scratch_elems / unit_elems_,
                        jit_rng_scratch_elems * 4 / unit_bytes_));
    }

    // Fills the engine's and the distribution's fields of an execution's
    // constants; the caller zeroes c first, so that no field is unset.
    void fill_consts(const rng_run_t &run, jit_rng_consts_t &c) const;

    // The thread rule's family (src/parallel.hpp): the distribution's
    // (rng_work()) unless a consumer of the units sets its own.
    void set_work(work_t w) { work_ = w; }

    // Calls f(u0, u1) on each thread with its range [u0, u1) of the global
    // units that hold the elements [run.offset, run.offset + nelems); the
    // ranges split the units in order, over threads_for(the family,
    // nelems, run.nthr) threads (at most one a unit). Nothing runs if
    // nelems is 0.
    template <typename F>
    void parallel_units(const rng_run_t &run, const F &f) const {
        const dim_t n = conf_.nelems;
        if (n == 0) return;
        const uint64_t ue = static_cast<uint64_t>(unit_elems_);
        const uint64_t g0 = run.offset, g1 = g0 + n; // <= 2^63 - 1
        const uint64_t unit0 = g0 / ue;
        const auto units = static_cast<dim_t>((g1 - 1) / ue + 1 - unit0);
        const int nthr = static_cast<int>(std::min<dim_t>(
                units, threads_for(work_, n, run.nthr)));
        parallel(nthr, [&](int ithr, int nthr_) {
            dim_t us, ue_;
            balance211(units, nthr_, ithr, us, ue_);
            if (us == ue_) return;
            f(unit0 + us, unit0 + ue_);
        });
    }

    // Starts a thread's range at global unit u0: the engine's lane states
    // in `state` (jit_max_state_bytes, 64-byte aligned), which the kernel
    // calls then advance as they produce the range's units in order.
    void begin_range(const rng_run_t &run, uint64_t u0, void *state,
            jit_rng_call_t &call) const;
    // Sets jit_rng_call_t::first and unit for a call whose first unit is
    // global unit u.
    void at_unit(uint64_t u, jit_rng_call_t &call) const {
        call.first = gen_.dist().draws_words()
                ? u * unit_words_ / 4
                : gen_.engine().first_of(u * unit_words_);
        call.unit = u;
    }

    // Whether whole units can be written straight into dst: dense dst, and
    // for bit dst, units starting on byte boundaries.
    bool direct_ok(const rng_run_t &run) const;
    // Whether a call writing whole units to `dst` may use the generator's
    // non-temporal function: it has one and dst is aligned to vlen.
    bool nt_ok(const void *dst) const {
        return gen_.has_nt()
                && reinterpret_cast<uintptr_t>(dst) % gen_.vlen() == 0;
    }
    // The address of global element g in a dense dst (bit dst: its byte).
    void *dst_at(const rng_run_t &run, uint64_t g) const;
    // Stores global elements [gs, ge) into dst through the layout, from
    // scratch, the kernel's dense output from global element scratch_g
    // (<= gs) on; flags holds jit_rng_scratch_elems bytes.
    void store(const rng_run_t &run, uint64_t gs, uint64_t ge,
            const unsigned char *scratch, uint64_t scratch_g,
            uint8_t *flags) const;

private:
    const jit_rng_generator_t &gen_;
    const rng_conf_t &conf_;
    layout_t layout_;
    int dst_bits_;
    int unit_elems_, unit_words_, unit_bytes_;
    work_t work_;
    // conf_.dst.is_dense(), once: it builds the dense strides on the heap,
    // 260 instructions and an allocation a call (of 2,300 for 16 normal
    // values).
    bool dst_dense_;
};

} // namespace impl
} // namespace rndnn

#endif
