// rndnn/common.hpp: data type and status names, escape(), stream.
#include <omp.h>

#include "rndnn/common.hpp"
#include "src/utils.hpp"

namespace rndnn {

namespace {
const struct {
    data_type dt;
    const char *name;
    std::size_t bits;
} dt_table[] = {{data_type::f32, "f32", 32}, {data_type::bf16, "bf16", 16},
        {data_type::f16, "f16", 16}, {data_type::s8, "s8", 8},
        {data_type::u8, "u8", 8}, {data_type::s32, "s32", 32},
        {data_type::u32, "u32", 32}, {data_type::s64, "s64", 64},
        {data_type::bit, "bit", 1}};
} // namespace

const char *dt2str(data_type adt) {
    for (const auto &e : dt_table)
        if (e.dt == adt) return e.name;
    return adt == data_type::undef ? "undef" : "unknown";
}

data_type str2dt(const std::string &name) {
    for (const auto &e : dt_table)
        if (name == e.name) return e.dt;
    impl::fail(status::invalid_arguments,
            impl::cat("unknown data type '", escape(name),
                    "' (expected f32, bf16, f16, s8, u8, s32, u32, s64 or "
                    "bit)"));
}

std::size_t dt_bits(data_type adt) {
    for (const auto &e : dt_table)
        if (e.dt == adt) return e.bits;
    return 0;
}

const char *status2str(status s) {
    switch (s) {
        case status::success: return "success";
        case status::invalid_arguments: return "invalid_arguments";
        case status::unimplemented: return "unimplemented";
        case status::out_of_memory: return "out_of_memory";
        case status::runtime_error: return "runtime_error";
    }
    return "unknown";
}

namespace {

// The length of the valid UTF-8 sequence of a non-ASCII character that
// starts at s[i] (2 to 4), or 0 if there is none or it encodes a C1
// control (U+0080 to U+009F).
size_t utf8_length(const std::string &s, size_t i) {
    const auto byte = [&](size_t k) {
        return static_cast<unsigned char>(s[k]);
    };
    const unsigned char b0 = byte(i);
    size_t n;
    unsigned min; // the smallest code point of that length (no overlongs)
    unsigned cp;
    if ((b0 & 0xe0) == 0xc0) {
        n = 2, min = 0xa0, cp = b0 & 0x1fu; // 0x80..0x9f are the C1 controls
    } else if ((b0 & 0xf0) == 0xe0) {
        n = 3, min = 0x800, cp = b0 & 0x0fu;
    } else if ((b0 & 0xf8) == 0xf0) {
        n = 4, min = 0x10000, cp = b0 & 0x07u;
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (byte(i + k) & 0x3fu);
    }
    const bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
    return cp < min || cp > 0x10ffff || surrogate ? 0 : n;
}

} // namespace

std::string escape(const std::string &text) {
    static const char hex[] = "0123456789abcdef";
    std::string s;
    s.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f) {
            s += static_cast<char>(c);
            ++i;
        } else if (const size_t n = c >= 0x80 ? utf8_length(text, i) : 0) {
            s.append(text, i, n);
            i += n;
        } else {
            s += "\\x";
            s += hex[c >> 4];
            s += hex[c & 15];
            ++i;
        }
    }
    return s;
}

stream::stream(int nthreads) : nthreads_(nthreads) {
    if (nthreads < 0)
        impl::fail(status::invalid_arguments,
                impl::cat("thread count ", nthreads, " is negative"));
    if (nthreads_ == 0) nthreads_ = omp_get_max_threads();
}

} // namespace rndnn
