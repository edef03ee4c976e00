// The thread rule (src/parallel.hpp): threads_for() gives a problem one
// thread below its family's measured threshold and more above it, never
// more than the stream's threads; the families' thresholds follow their
// cost per element. (Without tests/test_utils.hpp, which lowers every
// threshold to 1 for the suites that check values across threads.)
#include <cstdlib>
#include <strings.h>

#include <gtest/gtest.h>

#include "src/parallel.hpp"

namespace rndnn {
namespace impl {
namespace {

const work_t all_work[] = {work_t::rng_bits, work_t::rng_bernoulli,
        work_t::rng_uniform, work_t::rng_normal, work_t::rng_integers,
        work_t::rng_exponential, work_t::rng_gumbel, work_t::rng_lognormal,
        work_t::rng_permutation, work_t::rng_truncated_normal,
        work_t::rng_laplace, work_t::rng_rayleigh, work_t::dropout_fused,
        work_t::blocks_copy, work_t::blocks_apply, work_t::blocks_chain,
        work_t::softmax_dropout, work_t::categorical};

TEST(ThreadsFor, OneThreadBelowTheThresholdMoreAbove) {
    for (work_t w : all_work) {
        const dim_t t = min_thread_elems(w);
        const int iw = static_cast<int>(w);
        ASSERT_GE(t, 1) << iw;
        // Each thread gets min_thread_ns() of work at least.
        EXPECT_GE(static_cast<double>(t) * work_ns_per_elem(w),
                min_thread_ns() * 0.999)
                << iw;
        EXPECT_EQ(threads_for(w, 0, 2), 1) << iw;
        EXPECT_EQ(threads_for(w, 1, 2), 1) << iw;
        EXPECT_EQ(threads_for(w, t, 2), 1) << iw;
        EXPECT_EQ(threads_for(w, 2 * t - 1, 2), 1) << iw;
        EXPECT_EQ(threads_for(w, 2 * t, 2), 2) << iw;
        EXPECT_EQ(threads_for(w, 2 * t, 16), 2) << iw;
        EXPECT_EQ(threads_for(w, 3 * t, 16), 3) << iw;
        EXPECT_EQ(threads_for(w, 100 * t, 16), 16) << iw;
        // Never more than the stream's threads, never fewer than one.
        EXPECT_EQ(threads_for(w, 100 * t, 1), 1) << iw;
        EXPECT_EQ(threads_for(w, 100 * t, 0), 1) << iw;
        EXPECT_EQ(threads_for(w, dim_t(1) << 62, 7), 7) << iw;
    }
}

// The thresholds are not one guess for all: they follow the measured cost
// per element, so a costly distribution splits earlier than a cheap one.
TEST(ThreadsFor, CostlierWorkSplitsSooner) {
    EXPECT_GT(min_thread_elems(work_t::rng_bernoulli),
            min_thread_elems(work_t::rng_bits));
    EXPECT_GT(min_thread_elems(work_t::rng_bits),
            min_thread_elems(work_t::rng_normal));
    EXPECT_GT(min_thread_elems(work_t::rng_normal),
            min_thread_elems(work_t::rng_truncated_normal));
    EXPECT_GT(min_thread_elems(work_t::dropout_fused),
            min_thread_elems(work_t::softmax_dropout));
    EXPECT_GT(min_thread_elems(work_t::softmax_dropout),
            min_thread_elems(work_t::categorical));
    // 2^16 f32 dropout elements (0.26 MB) stay on one thread; 2^20 split,
    // 2^22 under the passive policy.
    EXPECT_EQ(threads_for(work_t::dropout_fused, dim_t(1) << 16, 2), 1);
    EXPECT_EQ(threads_for(work_t::dropout_fused,
                      dim_t(1) << (min_thread_ns() > 20000.0 ? 22 : 20), 2),
            2);
}

// The tests' override: every family's threshold, then the measured ones
// again.
TEST(ThreadsFor, OverrideForTests) {
    const dim_t normal = min_thread_elems(work_t::rng_normal);
    set_min_thread_elems(1);
    for (work_t w : all_work) {
        EXPECT_EQ(min_thread_elems(w), 1);
        EXPECT_EQ(threads_for(w, 2, 4), 2);
        EXPECT_EQ(threads_for(w, 64, 4), 4);
    }
    set_min_thread_elems(0);
    EXPECT_EQ(min_thread_elems(work_t::rng_normal), normal);
    EXPECT_GT(normal, 1);
}

} // namespace
} // namespace impl
} // namespace rndnn

// Under OMP_WAIT_POLICY=passive (how ctest runs the tests) a region wakes
// its threads every time, so a thread needs five times the work; without
// it, 20 us. The value is read once, in this process's environment.
TEST(ThreadsFor, PassiveThreadsNeedMoreWork) {
    const char *policy = std::getenv("OMP_WAIT_POLICY");
    const bool passive = policy && strcasecmp(policy, "passive") == 0;
    EXPECT_EQ(rndnn::impl::min_thread_ns(), passive ? 100000.0 : 20000.0)
            << (policy ? policy : "(unset)");
}
