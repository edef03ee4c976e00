/* The C99 translation unit of test_c_api (tests/c_api_c99.c). */
#ifndef RNDNN_TESTS_C_API_C99_H
#define RNDNN_TESTS_C_API_C99_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Draws the mask of examples/mask.cpp (64 x 1024 bits, bernoulli(0.9),
 * philox4x32_10, seed 42, offset 0) into @p out of @p size bytes through
 * the C API. @returns 0, or the failing status (negative: a wrong size or
 * next offset). */
int c99_draw_mask(unsigned char *out, size_t size);
/* @returns 1 if rndnn_rng_create with NULLs fails with
 * rndnn_invalid_arguments and a message naming the NULL argument. */
int c99_null_is_refused(void);

#ifdef __cplusplus
}
#endif

#endif
