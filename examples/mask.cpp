// A dropout keep mask: 64 x 1024 elements, 90% ones, one bit each (8 KiB),
// from Philox4x32-10 at seed 42. The README quotes this program.
#include <bitset>
#include <cstdint>
#include <cstdio>

#include "rndnn/rndnn.hpp"

int main() {
    rndnn::rng::desc d(rndnn::rng_alg::philox4x32_10,
            rndnn::memory::desc({64, 1024}, rndnn::dt::bit));
    d.with_offset = true;
    rndnn::post_ops po;
    po.append_bernoulli(0.9); // keep 90%: one bit per element
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    rndnn::rng prim {rndnn::rng::primitive_desc(d, attr)};
    rndnn::memory mask(d.dst); // 8 KiB, 64-byte aligned
    prim.execute(rndnn::stream(),
            {{RNDNN_ARG_DST, mask},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(int64_t(42))},
                    {RNDNN_ARG_OFFSET, rndnn::memory::scalar(int64_t(0))}});

    const auto *bytes = mask.data<unsigned char>();
    std::size_t ones = 0;
    for (std::size_t i = 0; i < d.dst.get_size(); ++i)
        ones += std::bitset<8>(bytes[i]).count();
    std::printf("first byte %02x, %zu of %d kept (rndnn %s)\n", bytes[0], ones,
            64 * 1024, rndnn::version().str);
    // About 90% kept: a wrong mask would not be.
    return ones > 57600 && ones < 60400 ? 0 : 1; // 88% to 92% of 65536
}
