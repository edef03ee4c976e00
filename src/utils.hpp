// Internal helpers shared by the core, the kernels and the pipeline.
#ifndef RNDNN_SRC_UTILS_HPP
#define RNDNN_SRC_UTILS_HPP

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>

#include "rndnn/common.hpp"

namespace rndnn {
namespace impl {

// 128-bit unsigned integers for exact products (a GNU extension).
__extension__ typedef unsigned __int128 uint128_t;

// Writes @p x to @p os; a float or double in the fewest digits that read
// back as the same value (1.0000000000000002, not the stream's 1), so that
// a message shows the value as it was given.
template <typename T>
void put(std::ostream &os, const T &x) {
    if constexpr (std::is_floating_point_v<T>) {
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof(buf), x);
        os.write(buf, r.ptr - buf);
    } else {
        os << x;
    }
}

// Concatenates the representations of its arguments (put()).
template <typename... Ts>
std::string cat(const Ts &...xs) {
    std::ostringstream os;
    (put(os, xs), ...);
    return os.str();
}

// Throws rndnn::error; the message must name the bad value.
[[noreturn]] inline void fail(status s, const std::string &message) {
    throw error(s, message);
}

// The one check of a probability (Bernoulli p, dropout rate): @p v in
// [0, 1], NaN outside.
// @throws error (invalid_arguments) "<what>=<v> is outside [0, 1]".
inline void check_probability(double v, const char *what) {
    if (!(v >= 0.0 && v <= 1.0))
        fail(status::invalid_arguments, cat(what, "=", v, " is outside [0, 1]"));
}

// The rndnn::error that stands for the exception being handled (call it
// in a catch block) at the public call `call` ("rng::execute"): what every
// public call throws in place of a foreign exception (verbose_errors(),
// src/verbose.hpp). std::bad_alloc is out_of_memory, any other exception
// (oneDNN's, Xbyak's, std::system_error, ...) runtime_error with its
// what(); both name the call.
error foreign_error(const char *call);

// Runs f() and returns what it returns; any exception but an rndnn::error
// leaves as foreign_error(call): the boundary of the public calls that are
// no primitive's or graph's (.npy files, the known-answer checks), which
// print no verbose line.
template <typename F>
auto no_foreign_errors(const char *call, const F &f) -> decltype(f()) {
    try {
        return f();
    } catch (const error &) {
        throw;
    } catch (...) {
        throw foreign_error(call);
    }
}

// The implementation behind a public handle; throws `what` if the handle
// was default-constructed.
template <typename T>
T &checked(const std::shared_ptr<T> &p,
        const char *what = "empty primitive descriptor") {
    if (!p) fail(status::invalid_arguments, what);
    return *p;
}

// "2x3x4" for a list of dims; "()" for none.
std::string dims2str(const dims &d);

// a + b and a * b for dims, false on overflow of s64.
inline bool add_ok(dim_t a, dim_t b, dim_t &r) {
    return !__builtin_add_overflow(a, b, &r);
}
inline bool mul_ok(dim_t a, dim_t b, dim_t &r) {
    return !__builtin_mul_overflow(a, b, &r);
}

// The bits of @p from read as a To of the same size (C++20's
// std::bit_cast).
template <typename To, typename From>
inline To bit_cast(const From &from) {
    static_assert(sizeof(To) == sizeof(From), "bit_cast: sizes differ");
    To to;
    std::memcpy(&to, &from, sizeof(to));
    return to;
}
inline uint32_t float_bits(float f) { return bit_cast<uint32_t>(f); }
inline float bits_float(uint32_t u) { return bit_cast<float>(u); }
inline uint64_t double_bits(double d) { return bit_cast<uint64_t>(d); }
inline double bits_double(uint64_t u) { return bit_cast<double>(u); }

// f32 -> bf16 and f32 -> f16, rounding to nearest even once. Inf and NaN
// are kept: a NaN becomes quiet and keeps the top bits of its payload, as
// x86's vcvtneps2bf16 and vcvtps2ph do.
uint16_t f32_to_bf16(float f);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t h);
float f16_to_f32(uint16_t h);

// Splits n items over nthr threads: thread ithr gets [start, end).
inline void balance211(dim_t n, int nthr, int ithr, dim_t &start,
        dim_t &end) {
    const dim_t base = n / nthr, rem = n % nthr;
    start = ithr * base + (ithr < rem ? ithr : rem);
    end = start + base + (ithr < rem ? 1 : 0);
}

} // namespace impl
} // namespace rndnn

#endif
