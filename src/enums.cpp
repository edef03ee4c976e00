// Range checks of the public enums (src/enums.hpp).
#include "src/enums.hpp"

namespace rndnn {
namespace impl {

bool is_enumerator(data_type v) {
    switch (v) {
        case data_type::undef:
        case data_type::f32:
        case data_type::bf16:
        case data_type::f16:
        case data_type::s8:
        case data_type::u8:
        case data_type::s32:
        case data_type::u32:
        case data_type::s64:
        case data_type::bit: return true;
    }
    return false;
}

bool is_enumerator(cpu_isa v) {
    switch (v) {
        case cpu_isa::none:
        case cpu_isa::sse41:
        case cpu_isa::avx2:
        case cpu_isa::avx512:
        case cpu_isa::all: return true;
    }
    return false;
}

bool is_enumerator(rng_alg v) {
    switch (v) {
        case rng_alg::philox4x32_10:
        case rng_alg::philox4x32_10_onednn:
        case rng_alg::threefry4x32_20:
        case rng_alg::mcg31m1:
        case rng_alg::mt19937:
        case rng_alg::multfly: return true;
    }
    return false;
}

bool is_enumerator(bernoulli_method v) {
    switch (v) {
        case bernoulli_method::threshold32:
        case bernoulli_method::bitsliced:
        case bernoulli_method::automatic: return true;
    }
    return false;
}

bool is_enumerator(scalar_kind v) {
    switch (v) {
        case scalar_kind::host:
        case scalar_kind::memory: return true;
    }
    return false;
}

bool is_enumerator(binary_alg v) {
    switch (v) {
        case binary_alg::mul:
        case binary_alg::add: return true;
    }
    return false;
}

bool is_enumerator(prop_kind v) {
    switch (v) {
        case prop_kind::forward_training:
        case prop_kind::forward_inference:
        case prop_kind::backward: return true;
    }
    return false;
}

bool is_enumerator(dropout_plan v) {
    switch (v) {
        case dropout_plan::any:
        case dropout_plan::fused:
        case dropout_plan::chain: return true;
    }
    return false;
}

bool is_enumerator(eltwise_alg v) {
    switch (v) {
        case eltwise_alg::relu:
        case eltwise_alg::gelu_tanh:
        case eltwise_alg::gelu_erf:
        case eltwise_alg::linear: return true;
    }
    return false;
}

bool is_enumerator(mask_mode v) {
    switch (v) {
        case mask_mode::bit:
        case mask_mode::u8:
        case mask_mode::recompute: return true;
    }
    return false;
}

} // namespace impl
} // namespace rndnn
