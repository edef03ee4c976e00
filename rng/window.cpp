// Windows of a global tensor: their checks and their rows.
#include "rng/window.hpp"

#include <limits>

#include "src/parallel.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

void rng_window_t::row(dim_t r, dim_t &global, dim_t &pos) const {
    const size_t last = local.size() - 1;
    global = origin[last] * global_strides[last];
    pos = offset0 + row_pos(r, local_strides);
    for (size_t j = last; j-- > 0;) {
        global += (origin[j] + r % local[j]) * global_strides[j];
        r /= local[j];
    }
}

dim_t rng_window_t::row_pos(dim_t r, const dims &strides) const {
    dim_t pos = 0;
    for (size_t j = local.size() - 1; j-- > 0;) {
        pos += (r % local[j]) * strides[j];
        r /= local[j];
    }
    return pos;
}

rng_window_t make_rng_window(const rng::desc &d) {
    rng_window_t w;
    if (d.global_dims.empty()) {
        if (!d.origin.empty())
            fail(status::invalid_arguments,
                    cat("origin ", dims2str(d.origin),
                            " is given without global dims"));
        return w;
    }
    const dims &local = d.dst.get_dims();
    const dims origin = d.origin.empty() ? dims(local.size(), 0) : d.origin;
    if (d.global_dims.size() != local.size() || origin.size() != local.size())
        fail(status::invalid_arguments,
                cat("window: global dims ", dims2str(d.global_dims),
                        ", origin ", dims2str(origin), " and dst dims ",
                        dims2str(local), " must have the same rank"));
    if (local.empty())
        fail(status::invalid_arguments, "window: dst has no dims");
    dim_t n = 1;
    for (size_t j = 0; j < local.size(); ++j) {
        const dim_t g = d.global_dims[j];
        if (g < 0 || origin[j] < 0 || origin[j] > g || local[j] > g - origin[j])
            fail(status::invalid_arguments,
                    cat("window: dst dims ", dims2str(local), " at origin ",
                            dims2str(origin), " do not fit the global dims ",
                            dims2str(d.global_dims), " (dim ", j, ")"));
        if (g != 0 && n > std::numeric_limits<dim_t>::max() / g)
            fail(status::invalid_arguments,
                    cat("window: global dims ", dims2str(d.global_dims),
                            " hold more than 2^63 - 1 elements"));
        n *= g;
    }
    w.active = true;
    w.local = local;
    w.local_strides = d.dst.get_strides();
    w.origin = origin;
    w.offset0 = d.dst.get_offset0();
    w.global_nelems = n;
    w.global_strides.assign(local.size(), 1);
    for (size_t j = local.size() - 1; j-- > 0;)
        w.global_strides[j] = w.global_strides[j + 1] * d.global_dims[j + 1];
    w.row_len = local.back();
    w.rows = 1;
    for (size_t j = 0; j + 1 < local.size(); ++j)
        w.rows *= local[j];
    if (w.row_len == 0) w.rows = 0;
    return w;
}

std::vector<rng_conf_t> rng_window_row_confs(
        const rng_window_t &w, const rng_conf_t &conf) {
    const data_type dt = conf.dst.get_data_type();
    std::vector<rng_conf_t> confs;
    for (int phase = 0; phase < (dt == data_type::bit ? 8 : 1); ++phase) {
        rng_conf_t c = conf;
        c.dst = memory::desc({w.row_len}, dt, {w.local_strides.back()}, phase);
        c.nelems = w.row_len;
        if (c.p_tensor) c.p_strides = {conf.p_strides.back()};
        confs.push_back(c);
    }
    return confs;
}

rng_picked_t pick_rng_window_impl(const rng_window_t &w,
        const rng_conf_t &conf, const std::string &info) {
    if (!w.active) return pick_rng_impl(conf, info);
    return pick_impl(rng_impl_list(), rng_window_row_confs(w, conf)[0], info,
            [&](const rng_impl_t &entry) -> std::unique_ptr<rng_kernel_t> {
                return std::make_unique<rng_window_kernel_t>(w, conf, entry);
            });
}

rng_window_kernel_t::rng_window_kernel_t(const rng_window_t &w,
        const rng_conf_t &conf, const rng_impl_t &entry)
    : w_(w)
    , dt_(conf.dst.get_data_type())
    , p_strides_(conf.p_strides)
    , p_esize_(conf.p_tensor ? dt_bits(conf.p_dt) / 8 : 0)
    , work_(rng_work(conf)) {
    for (const rng_conf_t &c : rng_window_row_confs(w, conf))
        rows_.push_back(entry.create(c));
}

void rng_window_kernel_t::execute(const rng_run_t &run) const {
    constexpr dim_t long_row = 65536;
    const bool bits = dt_ == data_type::bit;
    const dim_t esize = bits ? 0 : dt_bits(dt_) / 8;
    auto do_row = [&](dim_t r, int nthr) {
        dim_t g, pos;
        w_.row(r, g, pos);
        rng_run_t rr = run;
        rr.offset = run.offset + g;
        rr.nthr = nthr;
        auto *base = static_cast<unsigned char *>(run.dst);
        rr.dst = bits ? base + pos / 8 : base + pos * esize;
        if (run.p_src)
            rr.p_src = static_cast<const unsigned char *>(run.p_src)
                    + w_.row_pos(r, p_strides_) * p_esize_;
        rows_[bits ? pos % 8 : 0]->execute(rr);
    };
    // Short rows split over threads as a whole (each row on one), by the
    // one rule of src/parallel.hpp over the window's elements.
    const int nthr = w_.row_len >= long_row
            ? 1
            : threads_for(work_, w_.rows * w_.row_len, run.nthr);
    if (nthr <= 1) {
        for (dim_t r = 0; r < w_.rows; ++r)
            do_row(r, run.nthr);
        return;
    }
    parallel(nthr, [&](int ithr, int nt) {
        dim_t r0, r1;
        balance211(w_.rows, nt, ithr, r0, r1);
        for (dim_t r = r0; r < r1; ++r)
            do_row(r, 1);
    });
}

} // namespace impl
} // namespace rndnn
