// The Random123 baseline compiled with -fno-tree-vectorize as well: on a
// CPU with AVX-512, -march=native lets GCC vectorize the plain loop, and
// this is the scalar loop the comparison is meant to have.
#define RNDNN_BASELINE_SCALAR 1
#include "bench_baseline_random123.cpp"
