// No foreign exception leaves a public call: the boundary of the
// primitives' and the graph's calls (impl::verbose_errors()) and of the
// others (impl::no_foreign_errors(): .npy, the known-answer checks) turns
// std::bad_alloc into an out_of_memory error and anything else into a
// runtime_error naming the call; parallel() brings an exception thrown on
// a thread out of its OpenMP region. Where JIT code cannot be generated:
// test_jit_fail.cpp.
#include <atomic>
#include <cstdlib>
#include <ios>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "src/parallel.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"
#include "tests/test_utils.hpp"

namespace {

using namespace rndnn;
using namespace rndnn::test;
using impl::cat;

// The verbose lines the tests read: errors. Set before the library reads
// the variable, at its first use.
const bool verbose_set = [] {
    ::setenv("RNDNN_VERBOSE", "error", 1);
    return true;
}();

// Runs f() and returns the verbose lines it printed (on stdout or stderr,
// wherever they go). f must not throw.
template <typename F>
std::string captured(const F &f) {
    EXPECT_TRUE(verbose_set);
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    f();
    std::string out = ::testing::internal::GetCapturedStdout();
    return out + ::testing::internal::GetCapturedStderr();
}

// What a public call throws in place of a foreign exception
// (impl::verbose_errors(), the boundary of every primitive and graph
// call): an rndnn::error naming the call, printed once at level error.
TEST(ForeignErrors, PublicCallsThrowOnlyRndnnErrors) {
    const auto thrown = [](const auto &throw_it, status st) {
        std::string msg;
        const std::string out = captured([&] {
            msg = error_of(
                    [&] { impl::verbose_errors("test::call", throw_it); }, st);
        });
        EXPECT_NE(out.find(cat("rndnn_verbose,error,test::call,",
                          status2str(st), ",", msg)),
                std::string::npos)
                << out;
        return msg;
    };
    EXPECT_EQ(thrown([] { throw std::bad_alloc(); }, status::out_of_memory),
            "test::call: out of memory");
    EXPECT_EQ(thrown([] { throw std::runtime_error("oneDNN said no"); },
                      status::runtime_error),
            "test::call: oneDNN said no");
    EXPECT_NE(thrown([] {
        throw std::system_error(
                std::make_error_code(std::errc::resource_unavailable_try_again),
                "thread");
    }, status::runtime_error).find("test::call: thread"),
            std::string::npos);
    EXPECT_EQ(thrown([] { throw 42; }, status::runtime_error),
            "test::call: an exception that is no std::exception");
    // rndnn's own errors pass as they are.
    EXPECT_EQ(thrown([] { impl::fail(status::unimplemented, "as it is"); },
                      status::unimplemented),
            "as it is");
    // Nested calls (a graph's compile creates primitives): the inner one
    // translates, the outer passes it on, and one line is printed.
    std::string msg;
    const std::string out = captured([&] {
        msg = error_of([] {
            impl::verbose_errors("outer", [] {
                impl::verbose_errors("inner", [] { throw std::bad_alloc(); });
            });
        }, status::out_of_memory);
    });
    EXPECT_EQ(msg, "inner: out of memory");
    EXPECT_NE(out.find("rndnn_verbose,error,outer,out_of_memory,inner: out "
                       "of memory"),
            std::string::npos)
            << out;
    EXPECT_EQ(out.find("rndnn_verbose,error,inner"), std::string::npos) << out;
}

// An exception that a thread of a parallel region throws (std::bad_alloc
// from a kernel's scratch) cannot cross the OpenMP region: parallel()
// rethrows it once the threads are done, for the public call to make an
// rndnn::error of it.
TEST(ForeignErrors, ParallelRethrowsAThreadsException) {
    std::atomic<int> ran {0};
    try {
        impl::parallel(3, [&](int ithr, int nthr) {
            ++ran;
            if (ithr == nthr - 1) throw std::bad_alloc();
        });
        ADD_FAILURE() << "nothing thrown";
    } catch (const std::bad_alloc &) {}
    EXPECT_GE(ran.load(), 1);
}

// The .npy functions: a stream that throws (its exceptions() set) gives
// an rndnn::error, not std::ios_base::failure.
TEST(ForeignErrors, NpyCallsThrowOnlyRndnnErrors) {
    std::istringstream is(std::string("\x93NUMPY\x01\x00", 8));
    is.exceptions(std::ios::failbit | std::ios::badbit);
    const std::string msg = error_of(
            [&] { npy::load(is); }, status::runtime_error);
    EXPECT_EQ(msg.rfind("npy::load: ", 0), 0u) << msg;
}

} // namespace
