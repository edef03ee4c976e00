// The RNG's implementation list: the JIT kernels of every tier, the
// reference with mt19937's vector words per tier, then the reference.
#include "rng/engines/mt19937.hpp"
#include "rng/rng_impl.hpp"

namespace rndnn {
namespace impl {

const std::vector<rng_impl_t> &rng_impl_list() {
    static const std::vector<rng_impl_t> list = [] {
        std::vector<rng_impl_t> l
                = make_impl_list<rng_conf_t, rng_kernel_t, init_ref_rng,
                        create_ref_rng>(RNDNN_JIT_FN(init_jit_rng),
                        RNDNN_JIT_FN(create_jit_rng));
        // The reference with mt19937's vector words, per tier of the same
        // list, between the JIT entries and ref:any.
        std::vector<rng_impl_t> simd;
        for (cpu_isa isa : jit_tiers())
            if (mt19937_simd_has(isa))
                simd.push_back({simd_impl_name(isa), isa, init_simd_rng,
                        create_simd_rng});
        l.insert(l.end() - 1, simd.begin(), simd.end());
        return l;
    }();
    return list;
}

} // namespace impl
} // namespace rndnn
