/* examples/dropout.cpp through the C API (include/rndnn.h,
 * docs/c_api.md): dropout forward and backward, once keeping the mask as
 * bits, once keeping nothing and recomputing it from the seed; both
 * backwards give the same gradient. It prints the line dropout.cpp
 * prints: the same bits. C99. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rndnn.h>

#define N 65536

static void check(rndnn_status_t s, const char *call) {
    if (s == rndnn_success) return;
    fprintf(stderr, "%s: %s: %s\n", call, rndnn_status2str(s),
            rndnn_last_error_message());
    exit(1);
}

/* Creates a dropout of @p desc, executes it on (src, dst, mask) at seed
 * 42 and destroys it. */
static void run(const rndnn_dropout_desc_t *desc, const float *src,
        float *dst, void *mask) {
    rndnn_dropout_t dropout;
    check(rndnn_dropout_create(&dropout, NULL, desc), "rndnn_dropout_create");
    check(rndnn_dropout_execute(dropout, src, dst, mask, 42, 0, 0, 0, NULL),
            "rndnn_dropout_execute");
    rndnn_dropout_destroy(dropout);
}

int main(void) {
    const int64_t dims[2] = {64, 1024};
    static float xs[N], ys[N], dys[N], dx1[N], dx2[N];
    unsigned char mask[N / 8]; /* 8 KiB for 256 KiB of data */
    rndnn_memory_desc_t md;
    rndnn_dropout_desc_t dd;
    size_t i, dropped = 0;
    int same;

    for (i = 0; i < N; ++i) {
        xs[i] = (float)(i % 100) * 0.01f;
        dys[i] = 1.f;
    }
    check(rndnn_memory_desc_init(&md, 2, dims, rndnn_f32),
            "rndnn_memory_desc_init");
    check(rndnn_dropout_desc_init(&dd, rndnn_forward_training, &md, 0.1),
            "rndnn_dropout_desc_init");
    /* Forward, the keep mask stored as bits. */
    check(rndnn_memory_desc_init(&dd.mask, 2, dims, rndnn_bit),
            "rndnn_memory_desc_init");
    run(&dd, xs, ys, mask);

    /* Backward from the stored mask: no seed needed. */
    dd.prop = rndnn_backward;
    run(&dd, dys, dx1, mask);

    /* Backward recomputing the mask from the seed: nothing was stored. */
    memset(&dd.mask, 0, sizeof(dd.mask));
    run(&dd, dys, dx2, NULL);

    for (i = 0; i < N; ++i)
        dropped += dx1[i] == 0.f;
    same = memcmp(dx1, dx2, sizeof(dx1)) == 0;
    printf("dropped %lu of 65536; backward from bits %s recomputed\n",
            (unsigned long)dropped, same ? "==" : "!=");
    return same && dropped > 5000 && dropped < 8000 ? 0 : 1;
}
