// rndnn/common.hpp: data type sizes, escape(), stream (names: src/enums.cpp).
#include <omp.h>

#include "rndnn/common.hpp"
#include "src/utils.hpp"

namespace rndnn {

std::size_t dt_bits(data_type adt) {
    switch (adt) {
        case data_type::undef: return 0;
        case data_type::bit: return 1;
        case data_type::s8:
        case data_type::u8: return 8;
        case data_type::bf16:
        case data_type::f16: return 16;
        case data_type::f32:
        case data_type::s32:
        case data_type::u32: return 32;
        case data_type::s64:
        case data_type::f64: return 64;
    }
    return 0;
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
