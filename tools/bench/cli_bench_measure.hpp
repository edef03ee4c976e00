// How `rndnn bench` times a problem: what one execution runs (prepared_t),
// and the medians of the implementation, a memcpy and the reference.
#ifndef RNDNN_TOOLS_CLI_BENCH_MEASURE_HPP
#define RNDNN_TOOLS_CLI_BENCH_MEASURE_HPP

#include <cstddef>
#include <cstdint>
#include <functional>

namespace rndnn_cli {

// A problem ready to time: primitives created, buffers allocated.
struct prepared_t {
    std::int64_t elements = 0;
    // The bytes a memcpy copies as the baseline: the output's (the dst
    // desc's get_size()) for rng, the data's (src) for dropout.
    std::size_t bytes = 0;
    std::function<void()> run_impl; // one execution
    // One execution of the reference; empty when run_impl is the
    // reference already (then it is timed once and the ratio is 1).
    std::function<void()> run_ref;
};

struct medians_t {
    double impl, memcpy, ref; // seconds
};

// Warms up, then times @p runs executions of the implementation, the
// memcpy of t.bytes on @p nthr threads and the reference, interleaved so
// that noise hits all three alike.
medians_t measure(const prepared_t &t, int nthr, int runs);

} // namespace rndnn_cli

#endif
