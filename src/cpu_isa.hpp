// ISA detection and the tier cap (the public side is in rndnn/common.hpp).
#ifndef RNDNN_SRC_CPU_ISA_HPP
#define RNDNN_SRC_CPU_ISA_HPP

#include "rndnn/common.hpp"

namespace rndnn {
namespace impl {

// The best tier this CPU supports, whatever the cap (none without JIT).
cpu_isa cpu_isa_detected();

// True if a kernel of tier `isa` may run: isa <= cap and isa <= the
// process's get_max_cpu_isa().
inline bool isa_allowed(cpu_isa isa, cpu_isa cap) {
    return isa <= cap && isa <= get_max_cpu_isa();
}

} // namespace impl
} // namespace rndnn

#endif
