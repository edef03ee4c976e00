// The reference softmax-dropout row kernel: the formulas of
// pipeline/softmax_dropout.hpp in scalar f32, std::exp, sums in order.
#include <cmath>
#include <cstring>
#include <limits>

#include "pipeline/softmax_dropout.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

namespace {

class ref_sd_row_t : public sd_row_kernel_t {
public:
    explicit ref_sd_row_t(const sd_row_conf_t &conf) : c_(conf) {}

    void operator()(const sd_row_call_t &call) const override {
        if (c_.backward)
            backward(call);
        else
            forward(call);
    }

private:
    float load(const void *p, int64_t j) const {
        if (c_.dt == data_type::bf16)
            return bf16_to_f32(static_cast<const uint16_t *>(p)[j]);
        return static_cast<const float *>(p)[j];
    }
    void store(void *p, int64_t j, float v) const {
        if (c_.dt == data_type::bf16)
            static_cast<uint16_t *>(p)[j] = f32_to_bf16(v);
        else
            static_cast<float *>(p)[j] = v;
    }
    static bool bit(const sd_row_call_t &call, int64_t j) {
        const int64_t b = call.shift + j;
        return (call.bits[b / 8] >> (b % 8)) & 1u;
    }

    void forward(const sd_row_call_t &call) const {
        float m = -std::numeric_limits<float>::infinity();
        for (int64_t j = 0; j < call.len; ++j)
            m = std::fmax(m, load(call.src, j));
        float sum = 0.f;
        for (int64_t j = 0; j < call.len; ++j) {
            call.work[j] = std::exp(load(call.src, j) - m);
            sum += call.work[j];
        }
        const float inv = 1.f / sum;
        for (int64_t j = 0; j < call.n; ++j) {
            const float p = j < call.len ? call.work[j] * inv : 0.f;
            const float y = !c_.dropout ? p
                    : bit(call, j)      ? p * call.scale
                                        : 0.f;
            store(call.dst, j, y);
        }
        if (c_.stats) {
            call.stats[0] = m;
            call.stats[1] = inv;
        }
    }

    void backward(const sd_row_call_t &call) const {
        float c = 0.f;
        for (int64_t j = 0; j < call.len; ++j) {
            const float p = c_.stats
                    ? std::exp(load(call.p, j) - call.stats[0]) * call.stats[1]
                    : load(call.p, j);
            call.work[j] = p;
            c += p * dp(call, j);
        }
        for (int64_t j = 0; j < call.n; ++j)
            store(call.dst, j,
                    j < call.len ? call.work[j] * (dp(call, j) - c) : 0.f);
    }
    float dp(const sd_row_call_t &call, int64_t j) const {
        const float dy = load(call.src, j);
        return !c_.dropout ? dy : bit(call, j) ? call.scale * dy : 0.f;
    }

    sd_row_conf_t c_;
};

} // namespace

bool init_ref_sd_row(const sd_row_conf_t &, std::string &) { return true; }

std::unique_ptr<sd_row_kernel_t> create_ref_sd_row(const sd_row_conf_t &conf) {
    return std::make_unique<ref_sd_row_t>(conf);
}

} // namespace impl
} // namespace rndnn
