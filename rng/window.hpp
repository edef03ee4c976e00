// A window of a global tensor: the local block an RNG problem writes, seen
// as rows whose elements are consecutive in the global index
// (docs/semantics.md, "Windows").
#ifndef RNDNN_RNG_WINDOW_HPP
#define RNDNN_RNG_WINDOW_HPP

#include <memory>
#include <vector>

#include "rndnn/rng.hpp"
#include "rng/rng_impl.hpp"

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
    // Row r's first element's position under @p strides (one a local dim;
    // the last unused), offset0 excluded: in dst, or in a p tensor.
    dim_t row_pos(dim_t r, const dims &strides) const;
};

// d's window, checked against d.dst; inactive when d.global_dims is empty.
// @throws error (invalid_arguments) naming the bad value: an origin without
//     global dims, ranks that differ, a negative origin, a block that does
//     not fit the global dims, global dims whose element count overflows.
rng_window_t make_rng_window(const rng::desc &d);

// The problems of a window's rows: conf with dst one row of conf.dst (its
// last dim's stride), offset0 k in confs[k]: a bit dst's rows start at any
// of 8 bit phases; one conf for other types. A p tensor's strides are its
// last one's (rng_window_kernel_t moves p_src to each row).
std::vector<rng_conf_t> rng_window_row_confs(
        const rng_window_t &w, const rng_conf_t &conf);

// The implementation and kernel of the RNG problem conf over window w: with
// an active window, the first entry that takes the first row's problem
// (rng_window_row_confs(w, conf)[0]) and whose row kernels can all be made
// (a rng_window_kernel_t); else pick_rng_impl(conf, info).
// @throws error (unimplemented) naming `info` if none does.
rng_picked_t pick_rng_window_impl(
        const rng_window_t &w, const rng_conf_t &conf, const std::string &info);

// A window's kernel: the row kernels of one implementation, run row by row
// (long rows one after another on every thread, short ones spread over the
// threads), each at the global index of its first element.
class rng_window_kernel_t : public rng_kernel_t {
public:
    // entry must take every conf of rng_window_row_confs(w, conf).
    rng_window_kernel_t(const rng_window_t &w, const rng_conf_t &conf,
            const rng_impl_t &entry);
    void execute(const rng_run_t &run) const override;

private:
    rng_window_t w_;
    data_type dt_;
    dims p_strides_; // conf's p tensor's, if any
    dim_t p_esize_; // its element's bytes, 0 without one
    work_t work_; // the thread rule's family (src/parallel.hpp)
    std::vector<std::unique_ptr<rng_kernel_t>> rows_;
};

} // namespace impl
} // namespace rndnn

#endif
