#include "rng/rng_impl.hpp"

namespace rndnn {
namespace impl {

const std::vector<rng_impl_t> &rng_impl_list() {
    static const std::vector<rng_impl_t> list = {
            // JIT implementations go here, best ISA first (avx512, avx2,
            // sse41), each declining problems it does not cover.
            {"ref:any", init_ref_rng, create_ref_rng},
    };
    return list;
}

} // namespace impl
} // namespace rndnn
