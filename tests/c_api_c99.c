/* The C API from C (include/rndnn.h): this file is compiled as C99 with
 * -Wall -Wextra -Wpedantic -Werror, so the header is valid C99; test_c_api
 * calls these functions and compares their results with the C++ API's. */
#include "rndnn.h"

#include <string.h>

#include "tests/c_api_c99.h"

int c99_draw_mask(unsigned char *out, size_t size) {
    const int64_t dims[2] = {64, 1024};
    const double p = 0.9;
    rndnn_memory_desc_t md;
    rndnn_distribution_t dist;
    rndnn_rng_t rng = NULL;
    size_t need = 0;
    int64_t next = 0;
    rndnn_status_t s = rndnn_memory_desc_init(&md, 2, dims, rndnn_bit);
    if (s != rndnn_success) return (int)s;
    s = rndnn_memory_desc_get_size(&md, &need);
    if (s != rndnn_success) return (int)s;
    if (need != size) return -1;
    memset(&dist, 0, sizeof(dist));
    dist.name = "bernoulli";
    dist.values = &p;
    dist.nvalues = 1;
    dist.method = rndnn_bernoulli_auto;
    dist.bits = 1;
    s = rndnn_rng_create(&rng, NULL, &md, &dist);
    if (s != rndnn_success) return (int)s;
    s = rndnn_rng_execute(rng, out, 42, 0, 0, 0, &next);
    rndnn_rng_destroy(rng);
    if (s != rndnn_success) return (int)s;
    return next == 65536 ? 0 : -2;
}

int c99_null_is_refused(void) {
    const rndnn_status_t s = rndnn_rng_create(NULL, NULL, NULL, NULL);
    return s == rndnn_invalid_arguments
            && strstr(rndnn_last_error_message(), "rng is NULL") != NULL;
}
