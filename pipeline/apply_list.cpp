#include "pipeline/apply.hpp"
#include "src/impl_list.hpp"

namespace rndnn {
namespace impl {

namespace {
#if RNDNN_ENABLE_JIT
template <cpu_isa isa>
bool init_jit(const apply_conf_t &conf, std::string &why) {
    return init_jit_apply(isa, conf, why);
}
template <cpu_isa isa>
std::unique_ptr<apply_kernel_t> create_jit(const apply_conf_t &conf) {
    return create_jit_apply(isa, conf);
}
#endif
} // namespace

const std::vector<apply_impl_t> &apply_impl_list() {
    static const std::vector<apply_impl_t> list = {
#if RNDNN_ENABLE_JIT
            // Best ISA first; each declines what it does not cover.
            {"jit:avx2", init_jit<cpu_isa::avx2>, create_jit<cpu_isa::avx2>},
            {"jit:sse41", init_jit<cpu_isa::sse41>,
                    create_jit<cpu_isa::sse41>},
#endif
            {"ref:any", init_ref_apply, create_ref_apply},
    };
    return list;
}

const apply_impl_t &pick_apply_impl(
        const apply_conf_t &conf, const std::string &info) {
    return pick_impl(apply_impl_list(), conf, info);
}

} // namespace impl
} // namespace rndnn
