/* rndnn's C API (docs/c_api.md): the library's use from C and from any
 * language with a C FFI (Rust, Julia, Go, C#, Python's ctypes), in
 * oneDNN's dnnl.h style. A C99 header, also valid C++; a thin layer over
 * the C++ API (include/rndnn/), with the same semantics
 * (docs/semantics.md, docs/dropout.md).
 *
 * Errors. Every function that can fail returns an rndnn_status_t and
 * never lets a C++ exception out: rndnn_success, or the status the C++
 * API would have thrown (std::bad_alloc is rndnn_out_of_memory, any other
 * failure rndnn_runtime_error). rndnn_last_error_message() then gives the
 * message the C++ API would have thrown, naming the bad value. On failure
 * no output argument is written (a handle out-argument is set to NULL).
 *
 * Ownership. A handle (rndnn_rng_t, rndnn_dropout_t, rndnn_generator_t)
 * is created by its *_create (or a generator's fold_in, spawn, load) and
 * owned by the caller, who releases it with its *_destroy exactly once;
 * destroying NULL does nothing. Buffers are always the caller's: the
 * library never keeps a pointer to one past the call. Strings the library
 * returns are its own and live as long as the process, except
 * rndnn_last_error_message()'s (see there).
 *
 * Thread safety. rng and dropout handles are immutable: one handle may be
 * executed from several threads at once (each call with its own buffers).
 * A generator is not synchronized: calls that change it (reserve, spawn)
 * must not run at the same time as any other call on the same handle.
 * Every other function may be called from any thread.
 *
 * Alignment. Buffers need only the alignment of their element type (a
 * byte for bit and u8 masks); 64-byte alignment is faster. A buffer holds
 * at least rndnn_memory_desc_get_size() bytes of its descriptor; the
 * library cannot check sizes or alignment behind a pointer.
 *
 * Enums. Each value is a fixed number written here, equal to the C++
 * enumerator's (tests/test_c_api.cpp checks every one); new values are
 * only ever appended (before each enum's *_max, which is no value but
 * makes the type an int for every compiler and FFI: pass enums as C int).
 * Their names are the C++ API's (rndnn_*2str). An integer that is no value
 * of its enum is refused with rndnn_invalid_arguments. */
#ifndef RNDNN_H
#define RNDNN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the C API's functions: exported by librndnn.so (the library is
 * built with hidden visibility). */
#define RNDNN_C_API __attribute__((visibility("default")))

/** Outcome of a call (rndnn::status). */
typedef enum {
    rndnn_success = 0,
    rndnn_invalid_arguments = 1, /**< a value or a combination is wrong */
    rndnn_unimplemented = 2, /**< valid, but no implementation applies */
    rndnn_out_of_memory = 3,
    rndnn_runtime_error = 4, /**< anything else (a dependency failed) */
    rndnn_status_max = 0x7fffffff, /**< no value: makes the type an int */
} rndnn_status_t;

/** Element data types (rndnn::data_type). rndnn_bit is the 1-bit mask
 * type: element k of a dense bit tensor is bit (k % 8) of byte (k / 8),
 * least significant bit first. */
typedef enum {
    rndnn_data_type_undef = 0, /**< no type: an empty descriptor */
    rndnn_f32 = 1,
    rndnn_bf16 = 2,
    rndnn_f16 = 3,
    rndnn_s8 = 4,
    rndnn_u8 = 5,
    rndnn_s32 = 6,
    rndnn_u32 = 7,
    rndnn_s64 = 8,
    rndnn_bit = 9,
    rndnn_f64 = 10, /**< IEEE binary64: the RNG's continuous
                     * distributions only (docs/semantics.md, "f64
                     * values") */
    rndnn_data_type_max = 0x7fffffff, /**< no value: makes the type an int */
} rndnn_data_type_t;

/** Instruction-set tiers of the JIT kernels, lowest first (rndnn::cpu_isa).
 * rndnn_cpu_isa_none: the reference kernels only; rndnn_cpu_isa_all: the
 * cap that caps nothing. */
typedef enum {
    rndnn_cpu_isa_none = 0,
    rndnn_cpu_isa_sse41 = 1,
    rndnn_cpu_isa_avx2 = 2,
    rndnn_cpu_isa_avx512 = 3,
    rndnn_cpu_isa_all = 4,
    rndnn_cpu_isa_max = 0x7fffffff, /**< no value: makes the type an int */
} rndnn_cpu_isa_t;

/** Word generators (rndnn::rng_alg; docs/semantics.md). */
typedef enum {
    rndnn_philox4x32_10 = 0, /**< the default: cuRAND's and MKL's layout */
    rndnn_philox4x32_10_onednn = 1, /**< oneDNN's dropout layout */
    rndnn_threefry4x32_20 = 2,
    rndnn_mcg31m1 = 3,
    rndnn_mt19937 = 4,
    rndnn_multfly = 5, /**< needs a key name (rndnn_draw_desc_t) */
    rndnn_rng_alg_max = 0x7fffffff, /**< no value: makes the type an int */
} rndnn_rng_alg_t;

/** How a Bernoulli decision is drawn (rndnn::bernoulli_method). */
typedef enum {
    rndnn_bernoulli_threshold32 = 0,
    rndnn_bernoulli_bitsliced = 1,
    rndnn_bernoulli_auto = 2, /**< the default */
    rndnn_bernoulli_onednn = 3,
    rndnn_bernoulli_bytewise = 4,
    rndnn_bernoulli_method_max = 0x7fffffff, /**< no value: makes the type an int */
} rndnn_bernoulli_method_t;

/** What a dropout computes (rndnn::prop_kind). */
typedef enum {
    rndnn_forward_training = 0,
    rndnn_forward_inference = 1,
    rndnn_backward = 2,
    rndnn_prop_kind_max = 0x7fffffff, /**< no value: makes the type an int */
} rndnn_prop_kind_t;

/** How a dropout is executed (rndnn::dropout_plan); both plans give the
 * same bits. */
typedef enum {
    rndnn_dropout_plan_any = 0,
    rndnn_dropout_plan_fused = 1,
    rndnn_dropout_plan_chain = 2,
    rndnn_dropout_plan_max = 0x7fffffff, /**< no value: makes the type an int */
} rndnn_dropout_plan_t;

/** @returns the name of a value ("invalid_arguments", "f32", "avx2",
 * "philox4x32_10", "auto", "backward", "fused"; the C++ API's names), or
 * "unknown" for an integer that is no value. Never NULL; never fails. */
RNDNN_C_API const char *rndnn_status2str(rndnn_status_t s);
RNDNN_C_API const char *rndnn_dt2str(rndnn_data_type_t dt);
RNDNN_C_API const char *rndnn_cpu_isa2str(rndnn_cpu_isa_t isa);
RNDNN_C_API const char *rndnn_rng_alg2str(rndnn_rng_alg_t alg);
RNDNN_C_API const char *rndnn_bernoulli_method2str(
        rndnn_bernoulli_method_t method);
RNDNN_C_API const char *rndnn_prop_kind2str(rndnn_prop_kind_t prop);
RNDNN_C_API const char *rndnn_dropout_plan2str(rndnn_dropout_plan_t plan);

/** @returns the message of the last call on this thread that failed, ""
 * if the last call succeeded (every call that returns a status sets it).
 * Thread-local; valid until the next rndnn_ call on this thread. Never
 * NULL; never fails. */
RNDNN_C_API const char *rndnn_last_error_message(void);

/** The running library's version (rndnn::version()). */
typedef struct {
    int major, minor, patch;
    const char *str; /**< "MAJOR.MINOR.PATCH" */
    const char *hash; /**< the git commit it was built from, or "unknown" */
} rndnn_version_t;
/** @returns the version; never NULL; never fails. */
RNDNN_C_API const rndnn_version_t *rndnn_version(void);

/** Writes the best ISA tier the library may use in this process to
 * @p isa: the CPU's best, capped by the environment variable
 * RNDNN_MAX_CPU_ISA (rndnn::get_max_cpu_isa()).
 * @returns rndnn_invalid_arguments if @p isa is NULL or RNDNN_MAX_CPU_ISA
 *     names no tier. */
RNDNN_C_API rndnn_status_t rndnn_get_max_cpu_isa(rndnn_cpu_isa_t *isa);

/** Most dims a memory descriptor has. */
#define RNDNN_MAX_NDIMS 8

/** A tensor's layout: a plain value the caller owns and may fill itself.
 * Element (i_0, ..., i_{n-1}) lives at element position offset0 + sum_d
 * i_d * strides[d] of the buffer, counted in elements (in bits for
 * rndnn_bit). Strides are >= 0 and no two elements may overlap. A zeroed
 * struct (data_type rndnn_data_type_undef) is the empty descriptor: "no
 * mask" where a mask is optional. ndims 0 is a scalar (one element). */
typedef struct {
    int ndims; /**< 0 to RNDNN_MAX_NDIMS */
    int64_t dims[RNDNN_MAX_NDIMS]; /**< each >= 0; only ndims are read */
    int64_t strides[RNDNN_MAX_NDIMS]; /**< in elements (bits for bit) */
    int64_t offset0; /**< the first element's position, >= 0 */
    rndnn_data_type_t data_type;
} rndnn_memory_desc_t;

/** Fills @p md with a dense row-major tensor of @p ndims dims @p dims
 * (each >= 0) and type @p data_type, offset0 0.
 * @returns rndnn_invalid_arguments naming the value if @p md is NULL,
 *     @p dims is NULL with ndims > 0, ndims is outside [0, 8], a dim is
 *     negative, the size overflows, or the type is undef or no type. */
RNDNN_C_API rndnn_status_t rndnn_memory_desc_init(rndnn_memory_desc_t *md,
        int ndims, const int64_t *dims, rndnn_data_type_t data_type);
/** Fills @p md with a strided tensor: @p strides one per dim, >= 0, in
 * elements (bits for bit); @p offset0 >= 0.
 * @returns rndnn_invalid_arguments as rndnn_memory_desc_init(), and if
 *     @p strides is NULL with ndims > 0, a stride or offset0 is negative,
 *     or elements overlap. */
RNDNN_C_API rndnn_status_t rndnn_memory_desc_init_strided(
        rndnn_memory_desc_t *md, int ndims, const int64_t *dims,
        rndnn_data_type_t data_type, const int64_t *strides, int64_t offset0);
/** Writes to @p size the bytes a buffer of @p md needs (offset0 and
 * strides included; 0 for no elements or the empty descriptor).
 * @returns rndnn_invalid_arguments if a pointer is NULL or @p md is not
 *     a valid descriptor (as rndnn_memory_desc_init_strided() checks). */
RNDNN_C_API rndnn_status_t rndnn_memory_desc_get_size(
        const rndnn_memory_desc_t *md, size_t *size);

/** How a primitive draws from an RNG stream (rndnn::draw_desc): the
 * algorithm, multfly's key, a window of a global tensor and an ISA cap.
 * A plain value; rndnn_draw_desc_init() sets the defaults. */
typedef struct {
    rndnn_rng_alg_t alg;
    /** multfly only: the key name (NUL-terminated, at most 32 bytes);
     * NULL or "" for the other algorithms. Copied at creation. */
    const char *key_name;
    /** A window (docs/semantics.md, "Windows"): 0 for none (the tensor is
     * the whole one); else the global tensor's rank (the tensor's), with
     * global_dims its dims and origin its block's first element. */
    int window_ndims;
    int64_t global_dims[RNDNN_MAX_NDIMS];
    int64_t origin[RNDNN_MAX_NDIMS];
    /** Caps the ISA tier of the primitive's kernels (below
     * rndnn_get_max_cpu_isa()); rndnn_cpu_isa_all caps nothing. Results
     * are identical at every tier. */
    rndnn_cpu_isa_t max_isa;
} rndnn_draw_desc_t;
/** Fills @p draw with @p alg, no key, no window, no ISA cap.
 * @returns rndnn_invalid_arguments if @p draw is NULL. */
RNDNN_C_API rndnn_status_t rndnn_draw_desc_init(
        rndnn_draw_desc_t *draw, rndnn_rng_alg_t alg);

/** A distribution the RNG draws, by name, as the C++ API's
 * post_ops::append_distribution() takes it: the row of the table that
 * rndnn_get_distribution() lists (docs/semantics.md defines each). A
 * plain value; no pointer is kept past the call. */
typedef struct {
    /** "bits", "bernoulli", "uniform", "normal", "integers", ... */
    const char *name;
    /** The real parameters, in the row's order (bernoulli: p; uniform:
     * a, b; normal: mean, stddev; ...); NULL if nvalues is 0. An f64
     * dst uses them as given; an f32, bf16 or f16 dst rounds each to
     * f32 first (post_ops in rndnn/attr.hpp). */
    const double *values;
    int nvalues;
    /** The integer parameters (integers: low, high; permutation: n),
     * exact; NULL if nintegers is 0. */
    const int64_t *integers;
    int nintegers;
    /** bernoulli only: the method and, for bitsliced, bits in [1, 32]. */
    rndnn_bernoulli_method_t method;
    int bits;
} rndnn_distribution_t;

/** Writes the number of distributions to @p count.
 * @returns rndnn_invalid_arguments if @p count is NULL. */
RNDNN_C_API rndnn_status_t rndnn_get_distribution_count(int *count);
/** Describes distribution @p index in [0, count): its @p name, the
 * number of its parameters @p nparams and its default dst type
 * @p default_dt. Any output pointer may be NULL (not written).
 * @returns rndnn_invalid_arguments naming @p index if it is outside. */
RNDNN_C_API rndnn_status_t rndnn_get_distribution(int index,
        const char **name, int *nparams, rndnn_data_type_t *default_dt);
/** Describes parameter @p param of distribution @p index: its @p name
 * (the CLI's option), its default value and whether it is an integer
 * (then passed in rndnn_distribution_t::integers, else in values). Any
 * output pointer may be NULL.
 * @returns rndnn_invalid_arguments naming an index that is outside. */
RNDNN_C_API rndnn_status_t rndnn_get_distribution_param(int index, int param,
        const char **name, double *default_value, int *is_integer);

/** The RNG primitive (rndnn::rng): an opaque, immutable handle. */
typedef struct rndnn_rng *rndnn_rng_t;
typedef const struct rndnn_rng *const_rndnn_rng_t;

/** Creates an RNG that writes @p dst (with a window: the block at the
 * origin) with the values of @p dist, or raw u32 words if @p dist is
 * NULL. Its execute takes seed, offset and stream.
 * @param draw the algorithm, key, window and ISA cap; NULL: philox4x32_10
 *     with the defaults of rndnn_draw_desc_init().
 * @returns rndnn_invalid_arguments naming the value (a dst type the
 *     distribution cannot write, a parameter out of range, an unknown
 *     distribution, a wrong count of values, a bad enum, NULL @p rng or
 *     @p dst...); rndnn_unimplemented if no implementation applies. */
RNDNN_C_API rndnn_status_t rndnn_rng_create(rndnn_rng_t *rng,
        const rndnn_draw_desc_t *draw, const rndnn_memory_desc_t *dst,
        const rndnn_distribution_t *dist);
/** Generates into @p dst, a buffer of the dst descriptor.
 * @param seed any s64; @param offset the global element index of the
 *     first element, >= 0 (docs/semantics.md); @param stream the stream
 *     (subsequence) id.
 * @param nthreads OpenMP threads, >= 0; 0: OpenMP's default. Results
 *     never depend on it.
 * @param next_offset if not NULL, receives offset + the elements drawn
 *     (the global tensor's count with a window): the next call's offset.
 * @returns rndnn_invalid_arguments naming the value if @p rng is NULL,
 *     @p dst is NULL with elements to write, offset < 0, offset + count
 *     passes 2^63 - 1 or nthreads < 0; nothing is written then. */
RNDNN_C_API rndnn_status_t rndnn_rng_execute(const_rndnn_rng_t rng,
        void *dst, int64_t seed, int64_t offset, uint64_t stream,
        int nthreads, int64_t *next_offset);
/** Writes the chosen implementation's name ("jit:avx512", "ref:any", ...;
 * the handle's own string) to @p name.
 * @returns rndnn_invalid_arguments if a pointer is NULL. */
RNDNN_C_API rndnn_status_t rndnn_rng_get_impl_name(
        const_rndnn_rng_t rng, const char **name);
/** Destroys @p rng (NULL: nothing); no execute of it may be running. */
RNDNN_C_API rndnn_status_t rndnn_rng_destroy(rndnn_rng_t rng);

/** A dropout problem (rndnn::dropout::desc less the draw): a plain value;
 * rndnn_dropout_desc_init() sets the defaults. */
typedef struct {
    rndnn_prop_kind_t prop;
    /** Forward: src and dst; backward: diff_dst (src) and diff_src (dst).
     * f32, bf16 or f16; the same dims and type; any layouts. With a
     * window: the block at the origin of the global data tensor. */
    rndnn_memory_desc_t src, dst;
    /** The keep mask's dims (TensorFlow's noise_shape): each the data's
     * dim (the global one with a window) or 1. noise_ndims 0: the data's
     * dims. */
    int noise_ndims;
    int64_t noise_shape[RNDNN_MAX_NDIMS];
    /** The mask's descriptor: dims the noise shape's (the block's with a
     * window, 1 where the noise shape has 1), type rndnn_bit or rndnn_u8.
     * forward_training writes it, backward reads it. The empty descriptor
     * (zeroed): no mask; backward then recomputes it from seed, offset
     * and stream. */
    rndnn_memory_desc_t mask;
    double rate; /**< the probability of a drop, in [0, 1] */
    rndnn_bernoulli_method_t method; /**< the mask's method */
    int bits; /**< bitsliced: in [1, 32] */
    /** nonzero: oneDNN's dropout rule (needs rndnn_philox4x32_10_onednn
     * and threshold32 or auto; docs/dropout.md). */
    int onednn_compat;
    rndnn_dropout_plan_t plan;
} rndnn_dropout_desc_t;
/** Fills @p desc: @p prop, src = dst = @p data, no noise shape, no mask,
 * @p rate, method auto, bits 1, no onednn_compat, plan any. Checks
 * nothing but the pointers.
 * @returns rndnn_invalid_arguments if @p desc or @p data is NULL. */
RNDNN_C_API rndnn_status_t rndnn_dropout_desc_init(rndnn_dropout_desc_t *desc,
        rndnn_prop_kind_t prop, const rndnn_memory_desc_t *data, double rate);

/** The dropout primitive (rndnn::dropout): an opaque, immutable handle. */
typedef struct rndnn_dropout *rndnn_dropout_t;
typedef const struct rndnn_dropout *const_rndnn_dropout_t;

/** Creates a dropout of @p desc whose mask is drawn as @p draw says
 * (NULL: philox4x32_10 with rndnn_draw_desc_init()'s defaults).
 * @returns rndnn_invalid_arguments naming the bad value (a rate outside
 *     [0, 1], a noise shape that does not fit the data, a mask of other
 *     dims or type, src and dst that differ, a bad enum, a NULL
 *     pointer...); rndnn_unimplemented if plan fused does not apply. */
RNDNN_C_API rndnn_status_t rndnn_dropout_create(rndnn_dropout_t *dropout,
        const rndnn_draw_desc_t *draw, const rndnn_dropout_desc_t *desc);
/** Executes: forward reads @p src (x) and writes @p dst (y); backward
 * reads @p src (dy) and writes @p dst (dx). @p src == @p dst (in place)
 * is allowed. @p mask: a buffer of the mask descriptor, written forward,
 * read backward; NULL without a mask. seed, offset, stream, nthreads and
 * next_offset as rndnn_rng_execute() (offset + the mask's elements).
 * Backward with a stored mask reads no seed or stream.
 * @returns rndnn_invalid_arguments naming the value if @p dropout is
 *     NULL, a buffer is NULL where the descriptor needs one, offset < 0,
 *     or nthreads < 0; nothing is written then. */
RNDNN_C_API rndnn_status_t rndnn_dropout_execute(
        const_rndnn_dropout_t dropout, const void *src, void *dst, void *mask,
        int64_t seed, int64_t offset, uint64_t stream, int nthreads,
        int64_t *next_offset);
/** Writes the plan and kernels ("fused:jit:avx512", ...) to @p name.
 * @returns rndnn_invalid_arguments if a pointer is NULL. */
RNDNN_C_API rndnn_status_t rndnn_dropout_get_impl_name(
        const_rndnn_dropout_t dropout, const char **name);
/** Writes the bytes of the mask buffer (0 without a mask) to @p bytes.
 * @returns rndnn_invalid_arguments if a pointer is NULL. */
RNDNN_C_API rndnn_status_t rndnn_dropout_get_mask_size(
        const_rndnn_dropout_t dropout, size_t *bytes);
/** Destroys @p dropout (NULL: nothing); no execute of it may be running. */
RNDNN_C_API rndnn_status_t rndnn_dropout_destroy(rndnn_dropout_t dropout);

/** A generator (rndnn::generator): one seed and an offset that only
 * grows, handing out disjoint ranges of the stream. Not synchronized. */
typedef struct rndnn_generator *rndnn_generator_t;
typedef const struct rndnn_generator *const_rndnn_generator_t;

/** Bytes of a generator's saved state: the seed, then the offset, each an
 * s64 in little-endian byte order. */
#define RNDNN_GENERATOR_STATE_SIZE 16

/** Creates a generator at @p seed (any s64) and @p offset (>= 0).
 * @returns rndnn_invalid_arguments if @p gen is NULL or @p offset < 0. */
RNDNN_C_API rndnn_status_t rndnn_generator_create(
        rndnn_generator_t *gen, int64_t seed, int64_t offset);
/** Writes the seed and the offset (the first element the next reservation
 * gets); either pointer may be NULL.
 * @returns rndnn_invalid_arguments if @p gen is NULL. */
RNDNN_C_API rndnn_status_t rndnn_generator_get(
        const_rndnn_generator_t gen, int64_t *seed, int64_t *offset);
/** Reserves @p count (>= 0) elements; writes the first to @p first (may
 * be NULL) and moves the offset past them.
 * @returns rndnn_invalid_arguments if @p gen is NULL, @p count < 0 or the
 *     offset would pass 2^63 - 1; the generator is unchanged then. */
RNDNN_C_API rndnn_status_t rndnn_generator_reserve(
        rndnn_generator_t gen, int64_t count, int64_t *first);
/** Creates in @p out the sub-stream of @p gen named @p key (JAX's
 * fold_in; docs/semantics.md, "Derived generators").
 * @returns rndnn_invalid_arguments if a handle pointer is NULL. */
RNDNN_C_API rndnn_status_t rndnn_generator_fold_in(
        const_rndnn_generator_t gen, uint64_t key, rndnn_generator_t *out);
/** The same for a key of @p size bytes at @p key (UTF-8 for a text; NULL
 * allowed when @p size is 0).
 * @returns rndnn_invalid_arguments if a pointer is NULL. */
RNDNN_C_API rndnn_status_t rndnn_generator_fold_in_bytes(
        const_rndnn_generator_t gen, const void *key, size_t size,
        rndnn_generator_t *out);
/** Creates @p n (>= 0) children in @p children[0..n) (NumPy's
 * SeedSequence.spawn), each to be destroyed by the caller; the offset of
 * @p gen moves on by @p n.
 * @returns rndnn_invalid_arguments as rndnn_generator_reserve(), or if
 *     @p children is NULL with n > 0; nothing is created then. */
RNDNN_C_API rndnn_status_t rndnn_generator_spawn(
        rndnn_generator_t gen, int64_t n, rndnn_generator_t *children);
/** Writes the state (RNDNN_GENERATOR_STATE_SIZE bytes) to @p state.
 * @returns rndnn_invalid_arguments if a pointer is NULL. */
RNDNN_C_API rndnn_status_t rndnn_generator_save(
        const_rndnn_generator_t gen, uint8_t *state);
/** Creates in @p gen the generator that a saved state of @p size bytes at
 * @p state describes.
 * @returns rndnn_invalid_arguments if a pointer is NULL, @p size is not
 *     16 or the saved offset is negative. */
RNDNN_C_API rndnn_status_t rndnn_generator_load(
        rndnn_generator_t *gen, const void *state, size_t size);
/** Destroys @p gen (NULL: nothing). */
RNDNN_C_API rndnn_status_t rndnn_generator_destroy(rndnn_generator_t gen);

#ifdef __cplusplus
}
#endif

#endif
