// The RNG's implementation list: the JIT kernels of every tier, then the
// reference.
#include "rng/rng_impl.hpp"

namespace rndnn {
namespace impl {

namespace {
#if RNDNN_ENABLE_JIT
constexpr auto jit_init = init_jit_rng;
constexpr auto jit_create = create_jit_rng;
#else
constexpr bool (*jit_init)(cpu_isa, const rng_conf_t &, std::string &)
        = nullptr;
constexpr std::unique_ptr<rng_kernel_t> (*jit_create)(
        cpu_isa, const rng_conf_t &)
        = nullptr;
#endif
} // namespace

const std::vector<rng_impl_t> &rng_impl_list() {
    static const std::vector<rng_impl_t> list
            = make_impl_list<rng_conf_t, rng_kernel_t, init_ref_rng,
                    create_ref_rng>(jit_init, jit_create);
    return list;
}

} // namespace impl
} // namespace rndnn
