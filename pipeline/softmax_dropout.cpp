// The softmax-dropout plan: checks a problem, picks the row kernel and the
// mask's RNG kernel, and runs the rows over threads, each row with its
// mask bits drawn by whole RNG units into a thread's cache (or read from a
// stored mask).
#include "pipeline/softmax_dropout.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "pipeline/dropout_plans.hpp"
#include "rng/rng_impl.hpp"
#include "rng/window.hpp"
#include "src/parallel.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {
namespace impl {

namespace {

// Mask bits are drawn in ranges of whole units of this many elements, at
// global indices that are multiples of it: every JIT kernel's unit divides
// it, so they write straight into the cache (jit_rng_driver_t::direct_ok).
constexpr dim_t mask_granule = 4096;

dim_t round_up(dim_t x, dim_t m) { return (x + m - 1) / m * m; }

// A row's position in an operand: the offset of its first element (offset0
// included) and the stride of the last dim, in elements.
struct row_layout_t {
    dims d, strides;
    dim_t offset0 = 0;
    // Row r starts at offset0 + r * row_stride (dense or padded rows): no
    // division per row, which would cost more than a short row's softmax.
    bool uniform = true;
    dim_t row_stride = 0;

    explicit row_layout_t(const memory::desc &md)
        : d(md.get_dims()), strides(md.get_strides())
        , offset0(md.get_offset0()) {
        const size_t nd = d.size();
        row_stride = nd >= 2 ? strides[nd - 2] : 0;
        for (size_t j = 0; j + 2 < nd; ++j)
            uniform = uniform && strides[j] == strides[j + 1] * d[j + 1];
    }
    dim_t start(dim_t r) const {
        if (uniform) return offset0 + r * row_stride;
        dim_t off = offset0;
        for (size_t j = d.size() - 1; j-- > 0;) {
            off += r % d[j] * strides[j];
            r /= d[j];
        }
        return off;
    }
    dim_t step() const { return strides.back(); }
};

// Bits [pos, pos + n) of src, from bit 0 of dst. Reads no byte of src past
// the one that holds bit pos + n - 1.
void copy_bits(uint8_t *dst, const uint8_t *src, dim_t pos, dim_t n) {
    const dim_t last = (pos + n - 1) / 8;
    if (pos % 8 == 0) {
        std::memcpy(dst, src + pos / 8, static_cast<size_t>((n + 7) / 8));
        return;
    }
    for (dim_t k = 0; k < n; k += 8) {
        const dim_t b = (pos + k) / 8;
        const int s = static_cast<int>((pos + k) % 8);
        unsigned v = src[b] >> s;
        if (s != 0 && b + 1 <= last)
            v |= static_cast<unsigned>(src[b + 1]) << (8 - s);
        dst[k / 8] = static_cast<uint8_t>(v);
    }
}

// Bits [pos, pos + n) of src as bytes of 0 or 1. May read the byte after
// the one that holds the last bit (the thread caches have it).
void expand_u8(uint8_t *dst, const uint8_t *src, dim_t pos, dim_t n) {
    const int s = static_cast<int>(pos % 8);
    dim_t k = 0;
    for (; k + 8 <= n; k += 8) {
        const dim_t q = (pos + k) / 8;
        const unsigned byte = ((src[q] | src[q + 1] << 8) >> s) & 0xffu;
        // Byte i of the product is the byte of bits; keep its bit i, then
        // move it to bit 0.
        const uint64_t spread = byte * 0x0101010101010101ull;
        const uint64_t x = (spread & 0x8040201008040201ull)
                + 0x7f7f7f7f7f7f7f7full;
        const uint64_t v = (x >> 7) & 0x0101010101010101ull;
        std::memcpy(dst + k, &v, 8);
    }
    for (; k < n; ++k)
        dst[k] = (src[(pos + k) / 8] >> ((pos + k) % 8)) & 1u;
}

// Bytes of 0 or 1 (masks that dropout wrote) as bits from bit 0 of dst.
void pack_u8(uint8_t *dst, const uint8_t *src, dim_t n) {
    dim_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t x;
        std::memcpy(&x, src + k, 8);
        dst[k / 8] = static_cast<uint8_t>((x * 0x0102040810204080ull) >> 56);
    }
    if (k < n) {
        unsigned v = 0;
        for (dim_t i = k; i < n; ++i)
            v |= static_cast<unsigned>(src[i] != 0) << (i - k);
        dst[k / 8] = static_cast<uint8_t>(v);
    }
}

} // namespace

struct softmax_dropout_t::impl_t {
    softmax_dropout_desc_t d;
    data_type dt = data_type::f32;
    dim_t n = 0, rows = 0, mat_rows = 1; // mat_rows: the dim before the last
    std::shared_ptr<const sd_row_kernel_t> row;
    std::string name;

    // The dropout.
    dropout_conf_t drop;
    data_type mask_dt = data_type::undef; // a stored mask's, else undef
    dim_t cache_bits = 0; // the thread cache's range of mask elements
    std::shared_ptr<const rng_kernel_t> cache_rng; // draws cache_bits at a time
    std::shared_ptr<const rng_kernel_t> mask_rng; // forward: the stored mask
    bool write_rows = false; // forward writes the stored mask by rows

    // The global index (before the offset) of row r's first mask element.
    dim_t mask_row(dim_t r) const {
        if (!drop.window.active) return drop.offset_shift + r * n;
        dim_t global, pos;
        drop.window.row(r, global, pos);
        return global;
    }
};

namespace {

void check(const softmax_dropout_desc_t &d) {
    const bool bwd = d.backward;
    const memory::desc *ops[] = {&d.src, &d.dst, &d.p};
    const char *names[] = {bwd ? "diff_dst" : "src",
            bwd ? "diff_src" : "dst", d.stats ? "scores" : "probabilities"};
    for (int i = 0; i < (bwd ? 3 : 2); ++i) {
        const memory::desc &md = *ops[i];
        if (md.is_zero() || md.is_host_scalar())
            fail(status::invalid_arguments,
                    cat("softmax_dropout: ", names[i], " is empty or a host "
                                                       "scalar"));
        const data_type t = md.get_data_type();
        if (t != data_type::f32 && t != data_type::bf16)
            fail(status::invalid_arguments,
                    cat("softmax_dropout: ", names[i], " ", md.str(),
                            " is not f32 or bf16"));
        if (md.get_dims() != d.src.get_dims()
                || t != d.src.get_data_type())
            fail(status::invalid_arguments,
                    cat("softmax_dropout: ", names[i], " ", md.str(),
                            " must have the dims and type of ", names[0],
                            " ", d.src.str()));
    }
    if (d.causal && d.src.get_dims().size() < 2)
        fail(status::invalid_arguments,
                cat("softmax_dropout: causal needs 2 dims or more, got ",
                        d.src.str()));
    if (d.causal_row0 < 0)
        fail(status::invalid_arguments,
                cat("softmax_dropout: causal_row0=", d.causal_row0,
                        " is negative"));
}

} // namespace

softmax_dropout_t::softmax_dropout_t(const softmax_dropout_desc_t &d)
    : impl_(std::make_unique<impl_t>()) {
    check(d);
    impl_t &s = *impl_;
    s.d = d;
    s.dt = d.src.get_data_type();
    const dims &dd = d.src.get_dims();
    s.n = dd.back();
    s.rows = d.src.nelems() / std::max<dim_t>(s.n, 1);
    if (dd.size() >= 2) s.mat_rows = dd[dd.size() - 2];

    sd_row_conf_t rc;
    rc.backward = d.backward;
    rc.dt = s.dt;
    rc.dropout = d.dropout;
    rc.stats = d.stats;
    rc.max_isa = d.max_isa;
    const std::string info = cat(d.backward ? "backward" : "forward", ",",
            d.src.str(), d.causal ? ",causal" : "",
            d.dropout ? cat(",rate=", d.drop.rate) : std::string(),
            d.stats ? ",stats" : "");
    const auto ri = pick_impl(sd_row_impl_list(), rc, info);
    s.row = ri.kernel;
    s.name = cat("softmax_dropout:", ri.name());

    if (d.dropout) {
        dropout_conf_t &c = s.drop;
        c.desc = d.drop;
        c.desc.prop = d.backward ? prop_kind::backward
                                 : prop_kind::forward_training;
        c.desc.src = memory::desc(dd, s.dt);
        c.desc.dst = c.desc.src;
        c.desc.with_offset = true;
        c.attr.set_max_cpu_isa(d.max_isa);
        check_dropout_desc(c);
        if (c.broadcast)
            fail(status::unimplemented,
                    cat("softmax_dropout: the noise shape ",
                            dims2str(c.noise),
                            " broadcasts over the rows of ", d.src.str()));
        if (c.has_mask) {
            if (!d.drop.mask.is_dense())
                fail(status::unimplemented,
                        cat("softmax_dropout: the mask ", d.drop.mask.str(),
                                " is not dense"));
            s.mask_dt = d.drop.mask.get_data_type();
        }
        // Forward writes a stored mask row by row from its thread's cache
        // where rows own whole bytes of it (u8 always; bits where rows
        // and the mask start on bytes), so that no two threads write one
        // byte; else it draws the whole mask first.
        s.write_rows = c.generate && c.has_mask && !c.window.active
                && (s.mask_dt == data_type::u8
                        || (s.n % 8 == 0
                                && d.drop.mask.get_offset0() % 8 == 0));
        std::string rng_name;
        if (c.generate && (!c.has_mask || s.write_rows)) {
            s.cache_bits = std::max<dim_t>(8 * mask_granule,
                    round_up(s.n + mask_granule, mask_granule));
            rng_conf_t rng = c.noise_rng;
            rng.dst = memory::desc({s.cache_bits}, data_type::bit);
            rng.nelems = s.cache_bits;
            const rng_picked_t e = pick_rng_impl(rng, info);
            s.cache_rng = e.kernel;
            rng_name = e.name();
        } else if (c.generate) {
            const rng_picked_t e
                    = pick_rng_window_impl(c.window, c.noise_rng, info);
            s.mask_rng = e.kernel;
            rng_name = e.name();
        }
        if (!rng_name.empty()) s.name += cat("+", rng_name);
    }
    verbose_print(verbose_t::dispatch, "create", cat(s.name, ",", info));
}

softmax_dropout_t::~softmax_dropout_t() = default;

const std::string &softmax_dropout_t::impl_name() const { return impl_->name; }

dims softmax_dropout_t::stats_dims(const dims &d) {
    dim_t rows = 1;
    for (size_t j = 0; j + 1 < d.size(); ++j)
        rows *= d[j];
    return {rows, 2};
}

void softmax_dropout_t::execute(const softmax_dropout_args_t &a) const {
    const impl_t &s = *impl_;
    const softmax_dropout_desc_t &d = s.d;
    const dim_t n = s.n;
    if (s.rows == 0 || n == 0) return;
    const dim_t es = s.dt == data_type::bf16 ? 2 : 4;
    const row_layout_t src_l(d.src), dst_l(d.dst), p_l(d.p);
    // Rows whose last dim is not contiguous go through staging copies.
    const bool staged = src_l.step() != 1 || dst_l.step() != 1
            || (d.backward && p_l.step() != 1);

    rng_run_t run;
    run.seed = a.seed;
    run.offset = a.offset;
    run.stream = a.stream;
    run.p = s.drop.keep.p;
    run.nthr = 1;
    if (s.mask_rng) { // forward with a stored mask: the whole mask first
        rng_run_t whole = run;
        whole.offset += s.drop.offset_shift;
        whole.dst = a.mask;
        whole.nthr = a.nthr;
        s.mask_rng->execute(whole);
    }

    // Each thread: work floats, mask bits, staging rows (src, dst, p).
    const dim_t work_floats = round_up(sd_work_floats(n), 16);
    const dim_t bit_bytes = round_up(
            (s.cache_bits > 0 ? s.cache_bits : n) / 8 + 16, 64);
    const dim_t stage_bytes = staged ? round_up(n * es, 64) : 0;
    const dim_t per_thread = work_floats * 4 + bit_bytes + 3 * stage_bytes;
    // Whole rows a thread, by the rule of src/parallel.hpp over the
    // elements.
    const int nthr = static_cast<int>(std::min<dim_t>(s.rows,
            threads_for(work_t::softmax_dropout, s.rows * n, a.nthr)));
    std::vector<uint8_t> scratch(static_cast<size_t>(per_thread * nthr + 64));
    uint8_t *base = scratch.data()
            + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
    const float scale = s.drop.keep.scale;

    parallel(nthr, [&](int ithr, int nt) {
        dim_t r0, r1;
        balance211(s.rows, nt, ithr, r0, r1);
        uint8_t *mine = base + per_thread * ithr;
        float *work = reinterpret_cast<float *>(mine);
        uint8_t *bits = mine + work_floats * 4;
        uint8_t *stage = bits + bit_bytes;
        dim_t cache_lo = -1; // the cache's first global mask index
        rng_run_t cr = run;
        cr.dst = bits;

        sd_row_call_t call {};
        call.work = work;
        call.n = n;
        call.scale = scale;
        for (dim_t r = r0; r < r1; ++r) {
            call.len = d.causal
                    ? std::min(d.causal_row0 + r % s.mat_rows + 1, n)
                    : n;
            call.stats = a.stats ? a.stats + 2 * r : nullptr;
            call.shift = 0;
            call.bits = bits;
            if (s.cache_rng) {
                const dim_t g = a.offset + s.mask_row(r);
                if (cache_lo < 0 || g < cache_lo
                        || g + n > cache_lo + s.cache_bits) {
                    cache_lo = g / mask_granule * mask_granule;
                    cr.offset = cache_lo;
                    s.cache_rng->execute(cr);
                }
                call.bits = bits + (g - cache_lo) / 8;
                call.shift = (g - cache_lo) % 8;
                if (s.write_rows) {
                    const dim_t m0 = d.drop.mask.get_offset0() + r * n;
                    auto *mask = static_cast<uint8_t *>(a.mask);
                    if (s.mask_dt == data_type::bit)
                        copy_bits(mask + m0 / 8, call.bits, call.shift, n);
                    else
                        expand_u8(mask + m0, call.bits, call.shift, n);
                }
            } else if (s.mask_dt == data_type::bit) {
                copy_bits(bits, static_cast<const uint8_t *>(a.mask),
                        d.drop.mask.get_offset0() + r * n, n);
            } else if (s.mask_dt == data_type::u8) {
                pack_u8(bits,
                        static_cast<const uint8_t *>(a.mask)
                                + d.drop.mask.get_offset0() + r * n,
                        n);
            }
            const auto at = [&](const void *p, const row_layout_t &l) {
                return static_cast<const uint8_t *>(p) + l.start(r) * es;
            };
            if (!staged) {
                call.src = at(a.src, src_l);
                call.dst = const_cast<uint8_t *>(at(a.dst, dst_l));
                call.p = d.backward ? at(a.p, p_l) : nullptr;
                (*s.row)(call);
                continue;
            }
            // Gather the row's operands, run, scatter dst.
            const auto gather = [&](const void *p, const row_layout_t &l,
                                        uint8_t *to) {
                const uint8_t *from = at(p, l);
                for (dim_t j = 0; j < n; ++j)
                    std::memcpy(to + j * es, from + j * l.step() * es,
                            static_cast<size_t>(es));
            };
            gather(a.src, src_l, stage);
            if (d.backward) gather(a.p, p_l, stage + 2 * stage_bytes);
            call.src = stage;
            call.dst = stage + stage_bytes;
            call.p = stage + 2 * stage_bytes;
            (*s.row)(call);
            uint8_t *to = const_cast<uint8_t *>(at(a.dst, dst_l));
            for (dim_t j = 0; j < n; ++j)
                std::memcpy(to + j * dst_l.step() * es,
                        stage + stage_bytes + j * es, static_cast<size_t>(es));
        }
    });
}

} // namespace impl
} // namespace rndnn
