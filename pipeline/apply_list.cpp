// The apply kernels' implementation list: the JIT kernels of every tier,
// then the reference.
#include "pipeline/apply.hpp"

namespace rndnn {
namespace impl {

namespace {
#if RNDNN_ENABLE_JIT
constexpr auto jit_init = init_jit_apply;
constexpr auto jit_create = create_jit_apply;
#else
constexpr bool (*jit_init)(cpu_isa, const apply_conf_t &, std::string &)
        = nullptr;
constexpr std::unique_ptr<apply_kernel_t> (*jit_create)(
        cpu_isa, const apply_conf_t &)
        = nullptr;
#endif
} // namespace

const std::vector<apply_impl_t> &apply_impl_list() {
    static const std::vector<apply_impl_t> list
            = make_impl_list<apply_conf_t, apply_kernel_t, init_ref_apply,
                    create_ref_apply>(jit_init, jit_create);
    return list;
}

apply_picked_t pick_apply_impl(
        const apply_conf_t &conf, const std::string &info) {
    return pick_impl(apply_impl_list(), conf, info);
}

} // namespace impl
} // namespace rndnn
