// The softmax-dropout row kernels' implementation list: the JIT kernels of
// every tier, then the reference.
#include "pipeline/softmax_dropout.hpp"

namespace rndnn {
namespace impl {

const std::vector<sd_row_impl_t> &sd_row_impl_list() {
    static const std::vector<sd_row_impl_t> list
            = make_impl_list<sd_row_conf_t, sd_row_kernel_t, init_ref_sd_row,
                    create_ref_sd_row>(RNDNN_JIT_FN(init_jit_sd_row),
                    RNDNN_JIT_FN(create_jit_sd_row));
    return list;
}

} // namespace impl
} // namespace rndnn
