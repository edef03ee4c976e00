// The reference apply kernel: apply_value() per element, in C++.
#include "pipeline/apply.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

namespace {

float load(data_type dt, const void *p, int64_t k) {
    switch (dt) {
        case data_type::bf16:
            return bf16_to_f32(static_cast<const uint16_t *>(p)[k]);
        case data_type::f16:
            return f16_to_f32(static_cast<const uint16_t *>(p)[k]);
        default: return static_cast<const float *>(p)[k];
    }
}

void store(data_type dt, void *p, int64_t k, float v) {
    switch (dt) {
        case data_type::bf16:
            static_cast<uint16_t *>(p)[k] = f32_to_bf16(v);
            break;
        case data_type::f16:
            static_cast<uint16_t *>(p)[k] = f32_to_f16(v);
            break;
        default: static_cast<float *>(p)[k] = v;
    }
}

class ref_apply_t : public apply_kernel_t {
public:
    explicit ref_apply_t(const apply_conf_t &conf) : conf_(conf) {}

    void operator()(const apply_call_t &c) const override {
        for (int64_t k = 0; k < c.n; ++k) {
            const bool bit = (c.mask[k / 8] >> (k % 8)) & 1u;
            store(conf_.dt, c.dst, k,
                    apply_value(conf_.alg, load(conf_.dt, c.src, k), bit,
                            conf_.n_linear, c.linear));
        }
    }

private:
    apply_conf_t conf_;
};

} // namespace

bool init_ref_apply(const apply_conf_t &, std::string &) { return true; }

std::unique_ptr<apply_kernel_t> create_ref_apply(const apply_conf_t &conf) {
    return std::make_unique<ref_apply_t>(conf);
}

} // namespace impl
} // namespace rndnn
