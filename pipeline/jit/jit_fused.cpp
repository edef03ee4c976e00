// Placeholder until the fused JIT kernel lands: declines every problem.
#include "pipeline/fused.hpp"

namespace rndnn {
namespace impl {

bool init_jit_fused(cpu_isa, const fused_conf_t &, std::string &why) {
    why = "not built yet";
    return false;
}

std::unique_ptr<fused_kernel_t> create_jit_fused(cpu_isa, const fused_conf_t &) {
    return nullptr;
}

} // namespace impl
} // namespace rndnn
