// Pieces of an RNG problem's tensor (rng_pieces.hpp).
#include "rng_pieces.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "common/shard.hpp"

namespace rndnn_cli {

namespace {

rndnn::dims dense_strides(const rndnn::dims &dims) {
    rndnn::dims s(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;)
        s[i - 1] = s[i] * dims[i];
    return s;
}

// The values of the p tensor @p p (of the block's rank, 1 where it
// broadcasts) over box @p b of the block, dense.
std::vector<unsigned char> p_box(const rndnn::npy::array &p, const box_t &b) {
    const size_t rank = b.dims.size();
    const auto esize = static_cast<std::int64_t>(
            rndnn::memory::desc({1}, p.dt).get_size());
    const rndnn::dims strides = dense_strides(p.shape);
    const std::int64_t n = b.nelems();
    std::vector<unsigned char> out(static_cast<size_t>(n * esize));
    rndnn::dims c(rank, 0);
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t at = 0;
        for (size_t j = 0; j < rank; ++j)
            if (p.shape[j] != 1) at += (b.origin[j] + c[j]) * strides[j];
        std::memcpy(out.data() + i * esize, p.data.data() + at * esize,
                static_cast<size_t>(esize));
        for (size_t j = rank; j-- > 0 && ++c[j] == b.dims[j];)
            c[j] = 0;
    }
    return out;
}

} // namespace

void rng_pieces::operator()(std::int64_t first, std::int64_t count, void *dst) {
    const rndnn::rng::desc &d = p_.desc;
    const bool p_tensor = !d.p_tensor.is_zero();
    if (d.global_dims.empty() && !p_tensor)
        return run(flat(count), first, dst);
    // A window (the whole tensor where there is none but a p tensor): the
    // range's boxes of the block, each a window of the global tensor, one
    // after another in dst (bits at their phase), each with its box of the
    // p tensor.
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
                if (w.global_dims.empty()) w.global_dims = d.dst.get_dims();
                std::vector<unsigned char> pb;
                if (p_tensor) {
                    w.p_tensor = rndnn::memory::desc(b.dims, p_.p.dt);
                    pb = p_box(p_.p, b);
                }
                char *p = static_cast<char *>(dst)
                        + (bit ? at / 8 : at * esize);
                run(rndnn::rng(rndnn::rng::primitive_desc(w, p_.attr)), 0, p,
                        pb.data());
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

void rng_pieces::run(const rndnn::rng &prim, std::int64_t first, void *dst,
        void *p) {
    const rndnn::rng::desc &d = prim.get_primitive_desc().get_desc();
    std::unordered_map<int, rndnn::memory> args
            = {{RNDNN_ARG_DST, rndnn::memory(d.dst, dst)},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(p_.so.seed)},
                    {RNDNN_ARG_OFFSET,
                            rndnn::memory::scalar(p_.so.offset + first)},
                    {RNDNN_ARG_STREAM, rndnn::memory::scalar(p_.so.stream_id)}};
    if (p) args[RNDNN_ARG_SRC] = rndnn::memory(d.p_tensor, p);
    prim.execute(strm_, args);
}

} // namespace rndnn_cli
