// Internal helpers: foreign exceptions as errors, dims as text, bf16 and
// f16 conversions.
#include "src/utils.hpp"

#include <exception>
#include <new>

namespace rndnn {
namespace impl {

error foreign_error(const char *call) {
    try {
        throw;
    } catch (const error &e) {
        return e;
    } catch (const std::bad_alloc &) {
        return error(status::out_of_memory, cat(call, ": out of memory"));
    } catch (const std::exception &e) {
        return error(status::runtime_error, cat(call, ": ", e.what()));
    } catch (...) {
        return error(status::runtime_error,
                cat(call, ": an exception that is no std::exception"));
    }
}

std::string dims2str(const dims &d) {
    if (d.empty()) return "()";
    std::string s;
    for (size_t i = 0; i < d.size(); ++i)
        s += (i ? "x" : "") + std::to_string(d[i]);
    return s;
}

uint16_t f32_to_bf16(float f) {
    const uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet
        return static_cast<uint16_t>((u >> 16) | 0x40u);
    const uint32_t lsb = (u >> 16) & 1u;
    return static_cast<uint16_t>((u + 0x7fffu + lsb) >> 16);
}

float bf16_to_f32(uint16_t h) { return bits_float(uint32_t(h) << 16); }

uint16_t f32_to_f16(float f) {
    const uint32_t u = float_bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) // NaN: quiet, the payload's top bits kept (F16C)
        return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
    if (abs >= 0x477ff000u) // rounds to >= 2^16: infinity
        return static_cast<uint16_t>(sign | 0x7c00u);
    const int exp = static_cast<int>(abs >> 23) - 127;
    uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    if (exp >= -14) { // normal f16
        // Keep 10 of the 23 mantissa bits, round to nearest even.
        uint32_t h = (uint32_t(exp + 15) << 10) | ((mant >> 13) & 0x3ffu);
        const uint32_t rest = mant & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
        return static_cast<uint16_t>(sign | h);
    }
    if (exp < -25) return static_cast<uint16_t>(sign); // rounds to zero
    // Subnormal f16: value = mant * 2^(exp - 23), unit = 2^-24.
    const int shift = -exp - 1; // 14..24: mant >> shift counts 2^-24
    uint32_t h = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
}

float f16_to_f32(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));
    if (exp != 0) return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
    // Subnormal: mant * 2^-24, exact in f32.
    const float v = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -v : v;
}

} // namespace impl
} // namespace rndnn
