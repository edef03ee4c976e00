/* examples/mask.cpp through the C API (include/rndnn.h, docs/c_api.md): a
 * dropout keep mask of 64 x 1024 elements, 90% ones, one bit each (8 KiB),
 * from Philox4x32-10 at seed 42. It prints the line mask.cpp prints: the
 * same bits. C99. */
#include <stdio.h>
#include <stdlib.h>

#include <rndnn.h>

/* Prints the failed call's message and exits. */
static void check(rndnn_status_t s, const char *call) {
    if (s == rndnn_success) return;
    fprintf(stderr, "%s: %s: %s\n", call, rndnn_status2str(s),
            rndnn_last_error_message());
    exit(1);
}

int main(void) {
    const int64_t dims[2] = {64, 1024};
    const double p = 0.9; /* keep 90%: one bit per element */
    rndnn_memory_desc_t md;
    rndnn_distribution_t bernoulli = {"bernoulli", &p, 1, NULL, 0,
            rndnn_bernoulli_auto, 1};
    rndnn_rng_t rng;
    unsigned char *mask;
    size_t size = 0, i, ones = 0;
    int64_t next = 0;

    check(rndnn_memory_desc_init(&md, 2, dims, rndnn_bit),
            "rndnn_memory_desc_init");
    check(rndnn_memory_desc_get_size(&md, &size), "rndnn_memory_desc_get_size");
    check(rndnn_rng_create(&rng, NULL, &md, &bernoulli), "rndnn_rng_create");
    mask = malloc(size); /* 8 KiB */
    if (!mask) return 1;
    /* seed 42, offset 0, stream 0, OpenMP's default thread count */
    check(rndnn_rng_execute(rng, mask, 42, 0, 0, 0, &next),
            "rndnn_rng_execute");
    rndnn_rng_destroy(rng);

    for (i = 0; i < size; ++i) {
        unsigned b = mask[i];
        for (; b; b &= b - 1)
            ++ones;
    }
    printf("first byte %02x, %lu of %d kept (rndnn %s)\n", mask[0],
            (unsigned long)ones, 64 * 1024, rndnn_version()->str);
    free(mask);
    /* About 90% kept (88% to 92% of 65536), and the next offset past the
     * mask: a wrong mask would not be. */
    return next == 65536 && ones > 57600 && ones < 60400 ? 0 : 1;
}
