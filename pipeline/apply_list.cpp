// The apply kernels' implementation list: the JIT kernels of every tier,
// then the reference.
#include "pipeline/apply.hpp"

namespace rndnn {
namespace impl {

const std::vector<apply_impl_t> &apply_impl_list() {
    static const std::vector<apply_impl_t> list
            = make_impl_list<apply_conf_t, apply_kernel_t, init_ref_apply,
                    create_ref_apply>(RNDNN_JIT_FN(init_jit_apply),
                    RNDNN_JIT_FN(create_jit_apply));
    return list;
}

apply_picked_t pick_apply_impl(
        const apply_conf_t &conf, const std::string &info) {
    return pick_impl(apply_impl_list(), conf, info);
}

} // namespace impl
} // namespace rndnn
