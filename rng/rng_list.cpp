#include "rng/rng_impl.hpp"

namespace rndnn {
namespace impl {

namespace {
#if RNDNN_ENABLE_JIT
template <cpu_isa isa>
bool init_jit(const rng_conf_t &conf, std::string &why) {
    return init_jit_rng(isa, conf, why);
}
template <cpu_isa isa>
std::unique_ptr<rng_kernel_t> create_jit(const rng_conf_t &conf) {
    return create_jit_rng(isa, conf);
}
#endif
} // namespace

const std::vector<rng_impl_t> &rng_impl_list() {
    static const std::vector<rng_impl_t> list = {
#if RNDNN_ENABLE_JIT
            // Best ISA first; each declines what it does not cover.
            {"jit:avx2", init_jit<cpu_isa::avx2>, create_jit<cpu_isa::avx2>},
            {"jit:sse41", init_jit<cpu_isa::sse41>,
                    create_jit<cpu_isa::sse41>},
#endif
            {"ref:any", init_ref_rng, create_ref_rng},
    };
    return list;
}

} // namespace impl
} // namespace rndnn
