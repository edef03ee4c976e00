// Pieces of an RNG problem's tensor (rng_pieces.hpp).
#include "rng_pieces.hpp"

#include "common/shard.hpp"

namespace rndnn_cli {

namespace {

rndnn::dims dense_strides(const rndnn::dims &dims) {
    rndnn::dims s(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;)
        s[i - 1] = s[i] * dims[i];
    return s;
}

} // namespace

void rng_pieces::operator()(std::int64_t first, std::int64_t count, void *dst) {
    const rndnn::rng::desc &d = p_.desc;
    if (d.global_dims.empty()) return run(flat(count), first, dst);
    // A window: the range's boxes of the block, each a window of the
    // global tensor, one after another in dst (bits at their phase).
    const rndnn::data_type dt = d.dst.get_data_type();
    const bool bit = dt == rndnn::data_type::bit;
    const auto esize = static_cast<std::int64_t>(
            bit ? 0 : rndnn::memory::desc({1}, dt).get_size());
    for_each_range_box(d.dst.get_dims(), first, count,
            [&](const box_t &b, std::int64_t f) {
                const std::int64_t at = f - first;
                rndnn::rng::desc w = d;
                w.dst = bit ? rndnn::memory::desc(
                                    b.dims, dt, dense_strides(b.dims), at % 8)
                            : rndnn::memory::desc(b.dims, dt);
                w.origin = b.origin;
                for (size_t i = 0; i < d.origin.size(); ++i)
                    w.origin[i] += d.origin[i];
                char *p = static_cast<char *>(dst)
                        + (bit ? at / 8 : at * esize);
                run(rndnn::rng(rndnn::rng::primitive_desc(w, p_.attr)), 0, p);
            });
}

const rndnn::rng &rng_pieces::flat(std::int64_t count) {
    auto it = prims_.find(count);
    if (it != prims_.end()) return it->second;
    if (prims_.size() == 8) prims_.clear();
    rndnn::rng::desc d = p_.desc;
    d.dst = rndnn::memory::desc({count}, d.dst.get_data_type());
    return prims_.emplace(count,
                         rndnn::rng(rndnn::rng::primitive_desc(d, p_.attr)))
            .first->second;
}

void rng_pieces::run(const rndnn::rng &prim, std::int64_t first, void *dst) {
    rndnn::memory mem(prim.get_primitive_desc().dst_desc(), dst);
    prim.execute(strm_,
            {{RNDNN_ARG_DST, mem},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(p_.so.seed)},
                    {RNDNN_ARG_OFFSET,
                            rndnn::memory::scalar(p_.so.offset + first)},
                    {RNDNN_ARG_STREAM, rndnn::memory::scalar(p_.so.stream_id)}});
}

} // namespace rndnn_cli
