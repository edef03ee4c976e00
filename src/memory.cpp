// memory::desc (dims, types, strides, padding) and memory (buffers, scalars).
#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "rndnn/memory.hpp"
#include "src/enums.hpp"
#include "src/utils.hpp"

namespace rndnn {

using impl::cat;
using impl::dims2str;
using impl::fail;

namespace {

// Checks the shape and its element count, and that the dense strides (the
// products of the inner dims, a 0 counted as 1) fit an s64: the count
// alone is 0 for a shape with a 0 dim, however large the others.
void check_dims(const dims &d, data_type adt) {
    impl::check_enum(adt, "data type", "data_type");
    if (adt == data_type::undef)
        fail(status::invalid_arguments, "memory descriptor needs a data type");
    if (d.size() > static_cast<size_t>(max_ndims))
        fail(status::invalid_arguments,
                cat("shape ", dims2str(d), " has ", d.size(),
                        " dims; at most ", max_ndims, " are supported"));
    for (size_t i = 0; i < d.size(); ++i)
        if (d[i] < 0)
            fail(status::invalid_arguments,
                    cat("shape ", dims2str(d), ": dim ", i, " is negative"));
    dim_t stride = 1;
    for (size_t i = d.size(); i-- > 0;)
        if (!impl::mul_ok(stride, std::max<dim_t>(d[i], 1), stride))
            fail(status::invalid_arguments,
                    cat("shape ", dims2str(d),
                            " overflows a 64-bit element count (the product"
                            " of its dims, a 0 counted as 1, passes 2^63 -"
                            " 1)"));
}

dims dense_strides(const dims &d) {
    dims s(d.size());
    dim_t stride = 1;
    for (size_t i = d.size(); i-- > 0;) {
        s[i] = stride;
        stride *= std::max<dim_t>(d[i], 1); // checked by check_dims
    }
    return s;
}

// Position of the last element plus one, in elements (bits for `bit`);
// 0 if there are no elements. Throws if it overflows, or if its byte size
// does not fit a size_t.
dim_t extent(const dims &d, const dims &s, dim_t offset0, data_type adt) {
    dim_t last = offset0;
    for (size_t i = 0; i < d.size(); ++i) {
        if (d[i] == 0) return 0;
        dim_t step;
        if (!impl::mul_ok(d[i] - 1, s[i], step) || !impl::add_ok(last, step, last))
            fail(status::invalid_arguments,
                    cat("shape ", dims2str(d), " with strides ", dims2str(s),
                            " overflows a 64-bit extent"));
    }
    const dim_t bits = static_cast<dim_t>(dt_bits(adt));
    dim_t nbits;
    if (!impl::mul_ok(last + 1, bits, nbits))
        fail(status::invalid_arguments,
                cat("shape ", dims2str(d), " of ", dt2str(adt),
                        " overflows a 64-bit byte size"));
    return last + 1;
}

} // namespace

memory::desc::desc(const dims &adims, data_type adt)
    : desc(adims, adt, [&] {
        check_dims(adims, adt);
        return dense_strides(adims);
    }()) {}

memory::desc::desc(const dims &adims, data_type adt, const dims &astrides,
        dim_t aoffset0)
    : dims_(adims), strides_(astrides), offset0_(aoffset0), dt_(adt) {
    check_dims(adims, adt);
    if (astrides.size() != adims.size())
        fail(status::invalid_arguments,
                cat("strides ", dims2str(astrides), " do not match shape ",
                        dims2str(adims), " (", astrides.size(), " vs ",
                        adims.size(), " dims)"));
    if (aoffset0 < 0)
        fail(status::invalid_arguments,
                cat("first-element offset ", aoffset0, " is negative"));
    for (size_t i = 0; i < astrides.size(); ++i)
        if (astrides[i] < 0)
            fail(status::invalid_arguments,
                    cat("strides ", dims2str(astrides), ": stride ", i,
                            " is negative"));
    extent(adims, astrides, aoffset0, adt); // throws on overflow

    // No overlap: sorted by stride, each stride is at least the span of
    // the smaller ones. Dims of size 1 never step, so they do not count.
    std::vector<size_t> order;
    for (size_t i = 0; i < adims.size(); ++i)
        if (adims[i] > 1) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return astrides[a] < astrides[b];
    });
    dim_t span = 1; // positions spanned by the dims so far
    for (size_t i : order) {
        if (astrides[i] < span)
            fail(status::invalid_arguments,
                    cat("strides ", dims2str(astrides), " make elements of "
                            "shape ", dims2str(adims), " overlap (dim ", i,
                            " has stride ", astrides[i], " < ", span,
                            ")"));
        span += (adims[i] - 1) * astrides[i]; // bounded by extent()
    }
}

memory::desc memory::desc::host_scalar(data_type adt) {
    impl::check_enum(adt, "data type", "data_type");
    if (adt != data_type::s32 && adt != data_type::s64
            && adt != data_type::f32)
        fail(status::invalid_arguments,
                cat("host scalar of type ", dt2str(adt),
                        " is not supported (s32, s64 or f32)"));
    desc d(dims {}, adt);
    d.host_scalar_ = true;
    return d;
}

dim_t memory::desc::nelems() const {
    dim_t n = 1;
    for (dim_t d : dims_)
        n *= d;
    return n;
}

std::size_t memory::desc::get_size() const {
    if (is_zero()) return 0;
    const dim_t n = extent(dims_, strides_, offset0_, dt_);
    return static_cast<std::size_t>(
            (static_cast<impl::uint128_t>(n) * dt_bits(dt_) + 7) / 8);
}

bool memory::desc::is_dense() const {
    return strides_ == dense_strides(dims_);
}

std::string memory::desc::str() const {
    std::string s = cat(dt2str(dt_), ":", dims_.empty() ? "1" : dims2str(dims_));
    if (!is_dense()) s += cat(":s=", dims2str(strides_));
    if (offset0_) s += cat(":o=", offset0_);
    if (host_scalar_) s += ":host";
    return s;
}

bool memory::desc::operator==(const desc &o) const {
    return dims_ == o.dims_ && strides_ == o.strides_ && offset0_ == o.offset0_
            && dt_ == o.dt_ && host_scalar_ == o.host_scalar_;
}

memory::padded_layout memory::pad(const dims &logical, data_type adt,
        const dims &pad_before, const dims &pad_after) {
    check_dims(logical, adt);
    if (pad_before.size() != logical.size()
            || pad_after.size() != logical.size())
        fail(status::invalid_arguments,
                cat("padding ", dims2str(pad_before), " / ",
                        dims2str(pad_after), " does not match shape ",
                        dims2str(logical)));
    dims host(logical.size());
    for (size_t i = 0; i < logical.size(); ++i) {
        if (pad_before[i] < 0 || pad_after[i] < 0)
            fail(status::invalid_arguments,
                    cat("padding of dim ", i, " is negative (before ",
                            pad_before[i], ", after ", pad_after[i], ")"));
        if (!impl::add_ok(logical[i], pad_before[i], host[i])
                || !impl::add_ok(host[i], pad_after[i], host[i]))
            fail(status::invalid_arguments,
                    cat("padded dim ", i, " overflows"));
    }
    const desc host_md(host, adt); // checks the host shape
    const dims strides = host_md.get_strides();
    dim_t offset0 = 0;
    for (size_t i = 0; i < logical.size(); ++i)
        offset0 += pad_before[i] * strides[i]; // within the host extent
    padded_layout l {desc(logical, adt, strides, offset0), host,
            host_md.get_size()};
    return l;
}

struct memory::impl_t {
    desc md;
    void *handle = nullptr;
    bool owned = false;
    alignas(8) unsigned char scalar[8] = {};
    ~impl_t() {
        if (owned) std::free(handle);
    }
};

memory::memory(const desc &md) : impl_(std::make_shared<impl_t>()) {
    impl_->md = md;
    const std::size_t size = md.get_size();
    if (size == 0) return;
    // aligned_alloc needs a multiple of the alignment.
    impl_->handle = std::aligned_alloc(64, (size + 63) / 64 * 64);
    if (!impl_->handle)
        fail(status::out_of_memory,
                cat("could not allocate ", size, " bytes for ", md.str()));
    impl_->owned = true;
}

memory::memory(const desc &md, void *handle)
    : impl_(std::make_shared<impl_t>()) {
    impl_->md = md;
    impl_->handle = handle;
}

namespace {
template <typename T>
memory make_scalar(data_type adt, T value) {
    memory m(memory::desc::host_scalar(adt), nullptr);
    std::memcpy(m.get_data_handle(), &value, sizeof(T));
    return m;
}
} // namespace

memory memory::scalar(std::int32_t value) {
    return make_scalar(data_type::s32, value);
}
memory memory::scalar(std::int64_t value) {
    return make_scalar(data_type::s64, value);
}
memory memory::scalar(float value) { return make_scalar(data_type::f32, value); }

void memory::set_data_handle(void *handle) {
    if (!impl_) fail(status::invalid_arguments, "set_data_handle: empty memory");
    if (impl_->owned || impl_->md.is_host_scalar())
        fail(status::invalid_arguments,
                cat("set_data_handle: the memory of ", impl_->md.str(),
                        impl_->md.is_host_scalar()
                                ? " holds its value (write it through "
                                  "get_data_handle())"
                                : " owns its allocation"));
    impl_->handle = handle;
}

const memory::desc &memory::get_desc() const {
    static const desc empty;
    return impl_ ? impl_->md : empty;
}

void *memory::get_data_handle() const {
    if (!impl_) return nullptr;
    return impl_->md.is_host_scalar() ? impl_->scalar : impl_->handle;
}

} // namespace rndnn
