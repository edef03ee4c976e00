// The softmax-dropout row kernels' implementation list: the JIT kernels of
// every tier, then the reference.
#include "pipeline/softmax_dropout.hpp"

namespace rndnn {
namespace impl {

namespace {
#if RNDNN_ENABLE_JIT
constexpr auto jit_init = init_jit_sd_row;
constexpr auto jit_create = create_jit_sd_row;
#else
constexpr bool (*jit_init)(cpu_isa, const sd_row_conf_t &, std::string &)
        = nullptr;
constexpr std::unique_ptr<sd_row_kernel_t> (*jit_create)(
        cpu_isa, const sd_row_conf_t &)
        = nullptr;
#endif
} // namespace

const std::vector<sd_row_impl_t> &sd_row_impl_list() {
    static const std::vector<sd_row_impl_t> list
            = make_impl_list<sd_row_conf_t, sd_row_kernel_t, init_ref_sd_row,
                    create_ref_sd_row>(jit_init, jit_create);
    return list;
}

} // namespace impl
} // namespace rndnn
