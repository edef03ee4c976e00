// Shares of a global tensor and their pieces (shard.hpp).
#include "shard.hpp"

#include <algorithm>
#include <stdexcept>

#include "cli_common.hpp"

namespace rndnn_cli {

using rndnn::dim_t;
using rndnn::dims;

split_t parse_split(const std::string &text) {
    if (text == "rows") return split_t::rows;
    if (text == "cols") return split_t::cols;
    if (text == "blocks") return split_t::blocks;
    throw usage_error("unknown --split '" + text
            + "' (expected rows, cols or blocks)");
}

const char *split2str(split_t s) {
    switch (s) {
        case split_t::rows: return "rows";
        case split_t::cols: return "cols";
        case split_t::blocks: return "blocks";
    }
    return "?";
}

std::int64_t box_t::nelems() const {
    std::int64_t n = 1;
    for (const dim_t d : dims)
        n *= d;
    return n;
}

std::int64_t part_begin(std::int64_t n, int r, int k) {
    // n < 2^63 and r <= k < 2^31: the product fits in 128 bits only, so
    // divide first.
    return n / k * r + n % k * r / k;
}

box_t rank_box(const dims &global, split_t split, int rank, int nranks) {
    if (global.empty())
        throw std::logic_error("rank_box: a 0-d tensor has no dims to split");
    box_t b {dims(global.size(), 0), global};
    const auto cut = [&](size_t d, int r, int k) {
        b.origin[d] = part_begin(global[d], r, k);
        b.dims[d] = part_begin(global[d], r + 1, k) - b.origin[d];
    };
    const size_t last = global.size() - 1;
    switch (split) {
        case split_t::rows: cut(0, rank, nranks); break;
        case split_t::cols: cut(last, rank, nranks); break;
        case split_t::blocks: {
            if (last == 0) {
                cut(0, rank, nranks);
                break;
            }
            int pr = 1;
            for (int d = 1; d * d <= nranks; ++d)
                if (nranks % d == 0) pr = d;
            const int pc = nranks / pr;
            cut(0, rank / pc, pr);
            cut(last, rank % pc, pc);
            break;
        }
    }
    return b;
}

piece_iterator::piece_iterator(const dims &global, const box_t &box,
        std::int64_t max_elems, bool contiguous)
    : global_(global)
    , origin_(box.origin)
    , dims_(box.dims)
    , pos_(global.size(), 0) {
    const int n = static_cast<int>(global.size());
    done_ = n == 0 || box.nelems() == 0;
    if (done_) return;
    // A piece is contiguous in G where every dim inside its split dim is
    // whole: the split dim is at least the innermost dim that is not.
    int k = 0;
    for (int d = n - 1; contiguous && d > 0 && k == 0; --d)
        if (origin_[d] != 0 || dims_[d] != global_[d]) k = d;
    // ... and far enough in that one index of it fits in a piece.
    std::int64_t inner = 1;
    for (int d = k + 1; d < n; ++d)
        inner *= dims_[d];
    split_dim_ = k;
    while (inner > max_elems) {
        ++split_dim_;
        inner /= dims_[split_dim_];
    }
    step_ = std::max<std::int64_t>(1, max_elems / inner);
}

bool piece_iterator::next(piece_t &p) {
    if (done_) return false;
    const int n = static_cast<int>(global_.size());
    const int j = split_dim_;
    p.box.origin = origin_;
    p.box.dims = dims_;
    for (int d = 0; d < j; ++d) {
        p.box.origin[d] += pos_[d];
        p.box.dims[d] = 1;
    }
    p.box.origin[j] += pos_[j];
    p.box.dims[j] = std::min(step_, dims_[j] - pos_[j]);
    p.first = 0;
    for (int d = 0; d < n; ++d)
        p.first = p.first * global_[d] + p.box.origin[d];
    p.count = p.box.nelems();

    // Advance: dim j by a step, then the dims outside it like an odometer.
    pos_[j] += p.box.dims[j];
    for (int d = j; d > 0 && pos_[d] == dims_[d]; --d) {
        pos_[d] = 0;
        ++pos_[d - 1];
    }
    done_ = pos_[0] == dims_[0];
    return true;
}

namespace {

// The range [a, b) of the sub-tensor of dims d.. at @p box's position.
void range_boxes(const dims &d, size_t k, box_t &box, std::int64_t base,
        std::int64_t a, std::int64_t b,
        const std::function<void(const box_t &, std::int64_t)> &fn) {
    if (a == b) return;
    std::int64_t inner = 1;
    for (size_t i = k + 1; i < d.size(); ++i)
        inner *= d[i];
    std::int64_t ra = a / inner;
    const std::int64_t rb = b / inner;
    const auto row = [&](std::int64_t r, std::int64_t from, std::int64_t to) {
        box.origin[k] = r;
        box.dims[k] = 1;
        range_boxes(d, k + 1, box, base + r * inner, from, to, fn);
        box.dims[k] = d[k];
        box.origin[k] = 0;
    };
    if (ra == rb) return row(ra, a % inner, b % inner);
    if (a % inner) row(ra++, a % inner, inner);
    if (ra < rb) {
        box.origin[k] = ra;
        box.dims[k] = rb - ra;
        fn(box, base + ra * inner);
        box.dims[k] = d[k];
        box.origin[k] = 0;
    }
    if (b % inner) row(rb, 0, b % inner);
}

} // namespace

void for_each_range_box(const dims &d, std::int64_t first, std::int64_t count,
        const std::function<void(const box_t &, std::int64_t)> &fn) {
    box_t box {dims(d.size(), 0), d};
    range_boxes(d, 0, box, 0, first, first + count, fn);
}

std::int64_t byte_align(std::int64_t first, std::int64_t &count,
        std::int64_t n) {
    const auto f = [n](std::int64_t x) { return x == n ? n : x & ~7LL; };
    const std::int64_t a = f(first), b = f(first + count);
    count = b - a;
    return a;
}

} // namespace rndnn_cli
