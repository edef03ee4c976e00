// ISA detection and the tier cap (the public side is in rndnn/common.hpp).
#ifndef RNDNN_SRC_CPU_ISA_HPP
#define RNDNN_SRC_CPU_ISA_HPP

#include <vector>

#include "rndnn/common.hpp"

namespace rndnn {
namespace impl {

// The JIT tiers this build generates code for, best first: the one list
// from which every implementation list (rng, apply, fused dropout) is made
// and which the tests iterate. A new tier is one more entry in its
// definition (src/cpu_isa.cpp) and its code in the kernels; empty in a
// build without JIT.
const std::vector<cpu_isa> &jit_tiers();

// "jit:avx2" for a tier of jit_tiers: the implementation's name.
const char *jit_impl_name(cpu_isa isa);

// The best tier this CPU supports, whatever the cap (none without JIT).
cpu_isa cpu_isa_detected();

// Output bytes from which kernels store non-temporally (when the output
// is aligned): measured on this project's machines (docs/jit.md), streaming
// stores save the read-for-ownership of each output line once the output
// no longer fits the caches, and cost 2x while it does.
constexpr double nt_min_bytes = 16.0 * 1024 * 1024;

// True if a kernel of tier `isa` may run: isa <= cap and isa <= the
// process's get_max_cpu_isa().
inline bool isa_allowed(cpu_isa isa, cpu_isa cap) {
    return isa <= cap && isa <= get_max_cpu_isa();
}

} // namespace impl
} // namespace rndnn

#endif
