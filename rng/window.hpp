// A window of a global tensor: the local block an RNG problem writes, seen
// as rows whose elements are consecutive in the global index
// (docs/semantics.md, "Windows").
#ifndef RNDNN_RNG_WINDOW_HPP
#define RNDNN_RNG_WINDOW_HPP

#include "rndnn/rng.hpp"

namespace rndnn {
namespace impl {

struct rng_window_t {
    bool active = false; // false: dst is the whole tensor
    dims local, local_strides, origin, global_strides;
    dim_t offset0 = 0; // dst's
    dim_t global_nelems = 0;
    dim_t rows = 0; // elements of the local dims but the last
    dim_t row_len = 0; // the local last dim

    // Row r (in row-major order over the local dims but the last): the
    // global index of its first element (before the offset) and that
    // element's position in dst, in elements, offset0 included.
    void row(dim_t r, dim_t &global, dim_t &pos) const;
};

// d's window, checked against d.dst; inactive when d.global_dims is empty.
// @throws error (invalid_arguments) naming the bad value: an origin without
//     global dims, ranks that differ, a negative origin, a block that does
//     not fit the global dims, global dims whose element count overflows.
rng_window_t make_rng_window(const rng::desc &d);

} // namespace impl
} // namespace rndnn

#endif
