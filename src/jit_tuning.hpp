// The JIT kernels' tuning: every choice of the fused dropout, apply and
// RNG kernels that was made by timing, one named value each, per CPU
// (docs/jit.md, "Tuning per CPU"). No output bit depends on them.
#ifndef RNDNN_SRC_JIT_TUNING_HPP
#define RNDNN_SRC_JIT_TUNING_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace rndnn {
namespace impl {

// What detection reports of the CPU (cpuid; the display family and model,
// as /proc/cpuinfo's "cpu family" and "model").
struct cpu_id_t {
    enum vendor_t { other, intel, amd } vendor = other;
    int family = 0;
    int model = 0;
    bool avx512f = false;
};

// This CPU's (a build without JIT: vendor other, family and model 0).
const cpu_id_t &cpu_id();

// The values. Each says which commit chose it by timing, and on which CPU;
// docs/jit.md gives the measurements.
struct jit_tuning_t {
    // The entry's name ("zen5", "zen4", ...): what RNDNN_JIT_TUNING and
    // the tests name it by.
    const char *name;

    // --- The fused dropout kernel's consumer (pipeline/jit/jit_fused.cpp)
    // Each consumer step prefetches (prefetcht0) its groups' data this
    // many units ahead; 0: no prefetch (ba94237, Zen 5: 15.6 -> 9.4 ms).
    int step_prefetch_units;
    // At each unit's end the fused kernel prefetches (prefetcht0) the
    // unit's data this many bytes on, where the distribution offers no
    // consumer steps (threshold32, onednn, eager bitsliced; not lazy
    // bitsliced or bytewise); 0: none.
    int unit_prefetch_bytes;
    // A step's groups run as a loop of pairs (true) or unrolled at each
    // place the distribution offers a step (false; ba94237, Zen 5 avx2:
    // the unrolled kernel, 33 KB, did not fit the op cache).
    bool step_loop;
    // The apply emitter's dropout form (fused kernel, avx2 and avx512):
    // the scale kept in a register and scale * x or the dropped value
    // picked by the lane's bit (avx512: a multiply merged under kmov'd
    // bits; avx2: vpsllvd, vblendvps), 4 operations a register (true), or
    // the general form that tests the bit, selects, broadcasts the scale
    // and multiplies, 7 (false; ba94237).
    bool scaled_select;
    // Consumer steps a lazy bitsliced row offers: 2 of G / 2 groups (at
    // its start and after its first block's levels) or 4 of G / 4 (c65f943,
    // Zen 5: 8.0 -> 7.4 ms).
    int lazy_row_steps;

    // --- The RNG kernel's lazy bitsliced code (rng/jit/)
    // Groups of 32 elements in a lazy bitsliced unit: 64 or 128, so that
    // the queue of undecided groups (about 7.5 or 15 a unit) fills its 16
    // lanes (1b7f63d, Zen 5: 3.08 -> 2.75 ms at avx512).
    int lazy_unit_groups;
    // bitsliced(b) is lazy for b a multiple of 4 and from this b on; other
    // b are eager (Zen 4, 2^25 bits: b = 6 lazy slower, b = 8 faster).
    int lazy_min_bits;

    // --- Stores (fused dropout, apply and RNG kernels)
    // Output bytes from which kernels store non-temporally where the
    // output is aligned (16 MiB: the crossover of a scale loop).
    double nt_min_bytes;
    // Non-temporal stores also in place (dst is src), where the data's
    // loads already brought the lines in (false: regular stores there;
    // 400b0fe, Zen 5: 10.5 -> 8.5 ms at avx2).
    bool stream_in_place;
};

// The values the kernels generated now use: the entry for this CPU,
// chosen once from cpu_id() (detected_jit_tuning()), unless
// RNDNN_JIT_TUNING (read once; for measurements and tests) says other
// values, as parse_jit_tuning() reads them, or set_jit_tuning() set some.
// @throws error (invalid_arguments) naming a bad RNDNN_JIT_TUNING.
const jit_tuning_t &jit_tuning();

// The first entry of jit_tunings() whose key matches c ("default" if
// none), and cpu_id()'s (chosen once).
const jit_tuning_t &jit_tuning_for(const cpu_id_t &c);
const jit_tuning_t &detected_jit_tuning();

// Values from `text`: "NAME[,FIELD=VALUE]...", an entry by its name
// (empty: this CPU's) with fields set over it (booleans as 0 or 1; e.g.
// "intel,scaled_select=1,step_prefetch_units=1"). False, and why, if it
// names no entry or a field or value it may not take.
bool parse_jit_tuning(
        const std::string &text, jit_tuning_t &t, std::string &why);

// The entries, in the order they are matched; the last is "default".
struct jit_tuning_entry_t {
    jit_tuning_t values;
    // Which CPUs take it (every key that is set must match).
    cpu_id_t::vendor_t vendor;
    int family; // -1: any
    int model_lo, model_hi; // -1: any
    int avx512f; // -1: any, 0: without, 1: with
};
const std::vector<jit_tuning_entry_t> &jit_tunings();

// The entry named `name`, or nullptr.
const jit_tuning_t *find_jit_tuning(const std::string &name);

// For tests: kernels created from now on use `t` (a copy is kept), over
// detection and RNDNN_JIT_TUNING; clear_jit_tuning() undoes it. Not to
// be called while kernels are being created.
void set_jit_tuning(const jit_tuning_t &t);
void clear_jit_tuning();
// Counts set_jit_tuning() and clear_jit_tuning() calls: a cache of kernels
// or primitive descriptors keys on it, so that a kernel made under other
// values is not reused.
uint64_t jit_tuning_epoch();

} // namespace impl
} // namespace rndnn

#endif
