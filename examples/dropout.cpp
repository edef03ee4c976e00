// Dropout forward and backward: once keeping the mask as bits, once
// keeping nothing and recomputing it from the seed; both backwards give the
// same gradient. The README quotes this program.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "rndnn/rndnn.hpp"

int main() {
    const rndnn::memory::desc md({64, 1024}, rndnn::dt::f32);
    std::vector<float> xs(65536), ys(65536), dys(65536, 1.f), dx1(65536),
            dx2(65536);
    for (std::size_t i = 0; i < xs.size(); ++i)
        xs[i] = static_cast<float>(i % 100) * 0.01f;
    rndnn::memory x(md, xs.data()), y(md, ys.data()), dy(md, dys.data());
    const auto seed = rndnn::memory::scalar(int64_t(42));

    rndnn::dropout::desc dd;
    dd.src = dd.dst = md;
    dd.rate = 0.1;
    // Forward, the keep mask stored as bits (8 KiB for 256 KiB of data).
    dd.mask = rndnn::memory::desc({64, 1024}, rndnn::dt::bit);
    rndnn::memory mask(dd.mask);
    rndnn::dropout fwd {rndnn::dropout::primitive_desc(dd)};
    fwd.execute(rndnn::stream(), {{RNDNN_ARG_SRC, x}, {RNDNN_ARG_DST, y},
            {RNDNN_ARG_MASK, mask}, {RNDNN_ARG_SEED, seed}});

    // Backward from the stored mask: no seed needed.
    dd.prop = rndnn::prop_kind::backward;
    rndnn::dropout bwd {rndnn::dropout::primitive_desc(dd)};
    bwd.execute(rndnn::stream(), {{RNDNN_ARG_DIFF_DST, dy},
            {RNDNN_ARG_DIFF_SRC, rndnn::memory(md, dx1.data())},
            {RNDNN_ARG_MASK, mask}});

    // Backward recomputing the mask from the seed: nothing was stored.
    dd.mask = rndnn::memory::desc();
    rndnn::dropout bwd2 {rndnn::dropout::primitive_desc(dd)};
    bwd2.execute(rndnn::stream(), {{RNDNN_ARG_DIFF_DST, dy},
            {RNDNN_ARG_DIFF_SRC, rndnn::memory(md, dx2.data())},
            {RNDNN_ARG_SEED, seed}});

    std::size_t dropped = 0;
    for (float v : dx1)
        dropped += v == 0.f;
    const bool same = std::memcmp(dx1.data(), dx2.data(), 65536 * 4) == 0;
    std::printf("dropped %zu of 65536; backward from bits %s recomputed\n",
            dropped, same ? "==" : "!=");
    return same && dropped > 5000 && dropped < 8000 ? 0 : 1;
}
