// ISA detection and the tier cap (the public side is in rndnn/common.hpp).
#ifndef RNDNN_SRC_CPU_ISA_HPP
#define RNDNN_SRC_CPU_ISA_HPP

#include <string>
#include <vector>

#include "rndnn/common.hpp"

namespace rndnn {
namespace impl {

// The tiers this build has vector code for, best first: the one list from
// which every implementation list (rng, apply, fused dropout) is made and
// which the tests iterate (tests/test_utils.hpp, test_tiers()). It gives
// the JIT kernels' tiers and the tiers of mt19937's vector word code (the
// RNG's simd:<tier> entries). A new tier is one more entry in its
// definition (src/cpu_isa.cpp) and its code in the kernels; empty in a
// build without JIT, whose every kernel is then the scalar reference.
const std::vector<cpu_isa> &jit_tiers();

// "jit:avx2" for a tier of jit_tiers: the implementation's name.
const char *jit_impl_name(cpu_isa isa);

// "simd:avx2" for a tier of jit_tiers: the name of the reference kernel
// running with that tier's compiled vector code (mt19937's words).
const char *simd_impl_name(cpu_isa isa);

// The best tier this CPU supports (none without JIT), whatever the cap.
cpu_isa cpu_isa_present();
// The tier whose features detection hides, with every tier above it
// (RNDNN_HIDE_CPU_ISA: sse41, avx2 or avx512, read once), so that a CPU
// can act as one that lacks them (docs/build.md: CI runs the tests as an
// AVX2-only and an SSE4.1-only CPU); all when the variable is unset or
// empty.
// @throws error (invalid_arguments) naming a value that is none of those.
cpu_isa hidden_cpu_isa();
// The best tier this CPU supports below the hidden one: what detection
// reports, and what every list, test and message takes as the CPU's
// (a bad RNDNN_HIDE_CPU_ISA hides nothing here; get_max_cpu_isa() names
// it).
cpu_isa cpu_isa_detected();

// The test hook that makes JIT code generation fail (docs/jit.md, "When
// code cannot be generated"): the lowest tier whose kernels' generation
// fails, as if the executable memory could not be made executable (a W^X
// policy refusing mprotect): jit_generator_t::finalize() throws Xbyak's
// "can't protect" error there, so that the implementation lists decline
// those tiers and the next entry serves. From RNDNN_JIT_FAIL (read once):
// 1 fails every tier, sse41, avx2 or avx512 that tier and every tier
// above it (as RNDNN_HIDE_CPU_ISA); unset, empty or 0 none (all is
// returned then).
// @throws error (invalid_arguments) naming a value that is none of those.
cpu_isa jit_fail_isa();
// Whether the hook makes the generation of tier isa's kernels fail.
// @throws as jit_fail_isa().
inline bool jit_fail_hooked(cpu_isa isa) { return jit_fail_isa() <= isa; }
// For tests: sets the hook in this process, over RNDNN_JIT_FAIL (all: no
// tier fails). Not to be called while kernels are being created.
void set_jit_fail_isa(cpu_isa isa);

// The one check of a primitive's ISA cap at creation: @p cap is a
// cpu_isa, and RNDNN_MAX_CPU_ISA (get_max_cpu_isa()) is a valid tier.
// @throws error (invalid_arguments) naming the bad value.
void check_isa_cap(cpu_isa cap);

// True if a kernel of tier `isa` may run: isa <= cap and isa <= the
// process's get_max_cpu_isa().
inline bool isa_allowed(cpu_isa isa, cpu_isa cap) {
    return isa <= cap && isa <= get_max_cpu_isa();
}

// Whether code of tier isa (a JIT kernel, or compiled vector code) may run
// under the primitive's ISA cap: the CPU has the tier, and neither the cap
// nor RNDNN_MAX_CPU_ISA is below it. Says why not. Every implementation
// list's tier entries ask it.
bool tier_usable(cpu_isa isa, cpu_isa cap, std::string &why);

} // namespace impl
} // namespace rndnn

#endif
