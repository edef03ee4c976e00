#include <omp.h>

#include "rndnn/common.hpp"
#include "src/utils.hpp"

namespace rndnn {

namespace {
const struct {
    data_type dt;
    const char *name;
    std::size_t bits;
} dt_table[] = {{data_type::f32, "f32", 32}, {data_type::bf16, "bf16", 16},
        {data_type::f16, "f16", 16}, {data_type::s8, "s8", 8},
        {data_type::u8, "u8", 8}, {data_type::s32, "s32", 32},
        {data_type::u32, "u32", 32}, {data_type::s64, "s64", 64},
        {data_type::bit, "bit", 1}};
} // namespace

const char *dt2str(data_type adt) {
    for (const auto &e : dt_table)
        if (e.dt == adt) return e.name;
    return "undef";
}

data_type str2dt(const std::string &name) {
    for (const auto &e : dt_table)
        if (name == e.name) return e.dt;
    impl::fail(status::invalid_arguments,
            impl::cat("unknown data type '", name,
                    "' (expected f32, bf16, f16, s8, u8, s32, u32, s64 or "
                    "bit)"));
}

std::size_t dt_bits(data_type adt) {
    for (const auto &e : dt_table)
        if (e.dt == adt) return e.bits;
    return 0;
}

const char *status2str(status s) {
    switch (s) {
        case status::success: return "success";
        case status::invalid_arguments: return "invalid_arguments";
        case status::unimplemented: return "unimplemented";
        case status::out_of_memory: return "out_of_memory";
        case status::runtime_error: return "runtime_error";
    }
    return "unknown";
}

stream::stream(int nthreads) : nthreads_(nthreads) {
    if (nthreads < 0)
        impl::fail(status::invalid_arguments,
                impl::cat("thread count ", nthreads, " is negative"));
    if (nthreads_ == 0) nthreads_ = omp_get_max_threads();
}

} // namespace rndnn
