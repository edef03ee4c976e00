/// @file
/// Data types, status codes, the error type, argument ids and the stream.
#ifndef RNDNN_COMMON_HPP
#define RNDNN_COMMON_HPP

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

/// Marks the public API: the only symbols librndnn.so exports (the library
/// is built with hidden visibility; docs/build.md, "Installing").
#define RNDNN_API __attribute__((visibility("default")))
/// Marks the opaque state of a public class (its `impl_t`), which stays
/// inside the library.
#define RNDNN_INTERNAL __attribute__((visibility("hidden")))

namespace rndnn {

/// Signed 64-bit count of elements, dims, strides and offsets.
using dim_t = std::int64_t;
/// A list of dims or strides, outermost first.
using dims = std::vector<dim_t>;

/// Most dims a memory descriptor may have.
constexpr int max_ndims = 8;

/// Element data types.
///
/// `bit` is the 1-bit mask type: element k of a dense bit tensor is bit
/// (k % 8) of byte (k / 8), least significant bit first (NumPy
/// `packbits(bitorder='little')`). `f64` (IEEE binary64) comes last so
/// that the others keep their values; only the RNG's continuous
/// distributions write it (docs/semantics.md).
enum class data_type { undef, f32, bf16, f16, s8, u8, s32, u32, s64, bit, f64 };
using dt = data_type;

/// @returns the name of @p adt ("f32", "bit", ...; "unknown" for a value
/// that is no enumerator).
RNDNN_API const char *dt2str(data_type adt);
/// @returns the data type named @p name.
/// @throws error (invalid_arguments) naming @p name if it names none.
RNDNN_API data_type str2dt(const std::string &name);
/// @returns the size of one element of @p adt in bits (1 for bit, 0 for
/// undef).
RNDNN_API std::size_t dt_bits(data_type adt);

/// Outcome of a library call.
enum class status {
    success,
    invalid_arguments, ///< a value or a combination of values is wrong
    unimplemented, ///< valid, but no implementation supports it
    out_of_memory,
    runtime_error, ///< anything else (I/O, a dependency failed)
};
/// @returns the name of @p s ("invalid_arguments", ...).
RNDNN_API const char *status2str(status s);

/// The exception every public call throws; what() names the bad value.
/// No other type leaves the library (docs/api.md): a public call turns a
/// std::bad_alloc into an error of status out_of_memory and any other
/// exception (oneDNN's, Xbyak's, std::system_error) into runtime_error,
/// naming the call. A JIT kernel whose code cannot be generated is no
/// error: the next implementation serves instead.
class RNDNN_API error : public std::runtime_error {
public:
    error(rndnn::status s, const std::string &message)
        : std::runtime_error(message), status_(s) {}
    rndnn::status status() const { return status_; }

private:
    rndnn::status status_;
};

/// @returns @p text as messages quote input: printable ASCII and valid
///     UTF-8 as they are, every other byte (controls such as ESC, NUL, DEL,
///     the C1 controls, bytes of no valid UTF-8 sequence) as `\xNN`, so
///     that quoting a file's bytes or a command line can never drive the
///     terminal that shows the message. Idempotent: escaping an escaped
///     text changes nothing.
RNDNN_API std::string escape(const std::string &text);

/// Instruction-set tiers of the JIT kernels, lowest first. `none` means the
/// reference (compiled C++) kernels only; `all`, above every tier, is the
/// cap that caps nothing (no CPU is detected as `all`).
enum class cpu_isa {
    none,
    sse41, ///< SSE4.1
    avx2, ///< AVX2 with FMA and F16C
    avx512, ///< AVX-512 F, BW, VL and DQ
    all, ///< no cap: every tier the CPU has
};
/// @returns the name of @p isa ("none", "sse41", "avx2", "avx512", "all").
RNDNN_API const char *isa2str(cpu_isa isa);
/// @returns the tier named @p name.
/// @throws error (invalid_arguments) naming @p name if it names none.
RNDNN_API cpu_isa str2isa(const std::string &name);
/// @returns the best tier the library may use in this process: the best the
///     CPU supports, capped by the environment variable RNDNN_MAX_CPU_ISA
///     (none, sse41, avx2, avx512 or all; read once, at the first call), and
///     `none` in a build without JIT (RNDNN_ENABLE_JIT=OFF). What the CPU
///     supports is what detection reports: the environment variable
///     RNDNN_HIDE_CPU_ISA (sse41, avx2 or avx512; read once) makes it
///     report a CPU without that tier and every tier above it (for tests).
/// @throws error (invalid_arguments) naming the value if RNDNN_MAX_CPU_ISA
///     names no tier, or RNDNN_HIDE_CPU_ISA none of its three values.
RNDNN_API cpu_isa get_max_cpu_isa();

/// An execution context: how many OpenMP threads a primitive may use.
/// Results never depend on the thread count. A primitive uses fewer where
/// its problem is too small to pay for a thread: each thread gets about
/// 20 us of work at least, measured per kind of kernel
/// (docs/architecture.md, "Threads"), so 2^16 f32 of dropout run on one
/// thread and 2^20 on two.
class RNDNN_API stream {
public:
    /// @param nthreads threads to use, >= 1; 0 picks OpenMP's default
    ///     (omp_get_max_threads()).
    /// @throws error (invalid_arguments) if @p nthreads is negative.
    explicit stream(int nthreads = 0);
    /// @returns the thread count, >= 1.
    int get_nthreads() const { return nthreads_; }

private:
    int nthreads_;
};

} // namespace rndnn

/// Execution argument ids (keys of the argument map of execute()).
inline constexpr int RNDNN_ARG_SRC = 1;
inline constexpr int RNDNN_ARG_SRC_0 = RNDNN_ARG_SRC;
inline constexpr int RNDNN_ARG_SRC_1 = 2;
inline constexpr int RNDNN_ARG_DST = 17;
/// Backward dropout: the gradient in (diff_dst) and out (diff_src).
inline constexpr int RNDNN_ARG_DIFF_DST = 18;
inline constexpr int RNDNN_ARG_DIFF_SRC = 19;
/// Dropout's keep mask (bit or u8), written forward, read backward.
inline constexpr int RNDNN_ARG_MASK = 20;
/// Softmax-dropout's row stats (f32 {rows, 2}), written forward, read
/// backward.
inline constexpr int RNDNN_ARG_STATS = 21;
/// Categorical's max scores (f32, one a row), written.
inline constexpr int RNDNN_ARG_MAX_SCORES = 22;
/// Seed: s32 or s64 (chosen at creation), a host scalar or a one-element
/// memory (chosen at creation).
inline constexpr int RNDNN_ARG_SEED = 33;
/// Offset of the first element in the stream, s64 >= 0.
inline constexpr int RNDNN_ARG_OFFSET = 34;
/// Stream (subsequence) id: an s64 whose bits are read as u64.
inline constexpr int RNDNN_ARG_STREAM = 35;
/// Bernoulli probability when given at execution: f32 in [0, 1].
inline constexpr int RNDNN_ARG_P = 36;
/// Output: offset + elements generated, a one-element s64 memory.
inline constexpr int RNDNN_ARG_NEXT_OFFSET = 37;
/// Dropout rate when given at execution: f32 in [0, 1].
inline constexpr int RNDNN_ARG_RATE = 38;

#endif
