// The C API (include/rndnn.h): every entry point against the C++ API's
// results, every status reached on purpose with the message the C++ API
// throws, the enums' numbers equal to the C++ enumerators', and the header
// as C99 (c_api_c99.c).
#include "rndnn.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "rndnn/rndnn.hpp"
#include "rndnn/version.hpp"
#include "src/c_api.hpp"
#include "tests/c_api_c99.h"
#include "tests/test_utils.hpp"

namespace {

using namespace rndnn;
using namespace rndnn::test;

// The C enums are the C++ enumerators' numbers: they never drift apart.
#define SAME(c, cpp) static_assert(static_cast<int>(c) == static_cast<int>(cpp))
SAME(rndnn_success, status::success);
SAME(rndnn_invalid_arguments, status::invalid_arguments);
SAME(rndnn_unimplemented, status::unimplemented);
SAME(rndnn_out_of_memory, status::out_of_memory);
SAME(rndnn_runtime_error, status::runtime_error);
SAME(rndnn_data_type_undef, data_type::undef);
SAME(rndnn_f32, data_type::f32);
SAME(rndnn_bf16, data_type::bf16);
SAME(rndnn_f16, data_type::f16);
SAME(rndnn_s8, data_type::s8);
SAME(rndnn_u8, data_type::u8);
SAME(rndnn_s32, data_type::s32);
SAME(rndnn_u32, data_type::u32);
SAME(rndnn_s64, data_type::s64);
SAME(rndnn_bit, data_type::bit);
SAME(rndnn_f64, data_type::f64);
SAME(rndnn_cpu_isa_none, cpu_isa::none);
SAME(rndnn_cpu_isa_sse41, cpu_isa::sse41);
SAME(rndnn_cpu_isa_avx2, cpu_isa::avx2);
SAME(rndnn_cpu_isa_avx512, cpu_isa::avx512);
SAME(rndnn_cpu_isa_all, cpu_isa::all);
SAME(rndnn_philox4x32_10, rng_alg::philox4x32_10);
SAME(rndnn_philox4x32_10_onednn, rng_alg::philox4x32_10_onednn);
SAME(rndnn_threefry4x32_20, rng_alg::threefry4x32_20);
SAME(rndnn_mcg31m1, rng_alg::mcg31m1);
SAME(rndnn_mt19937, rng_alg::mt19937);
SAME(rndnn_multfly, rng_alg::multfly);
SAME(rndnn_bernoulli_threshold32, bernoulli_method::threshold32);
SAME(rndnn_bernoulli_bitsliced, bernoulli_method::bitsliced);
SAME(rndnn_bernoulli_auto, bernoulli_method::automatic);
SAME(rndnn_bernoulli_onednn, bernoulli_method::onednn);
SAME(rndnn_bernoulli_bytewise, bernoulli_method::bytewise);
SAME(rndnn_forward_training, prop_kind::forward_training);
SAME(rndnn_forward_inference, prop_kind::forward_inference);
SAME(rndnn_backward, prop_kind::backward);
SAME(rndnn_dropout_plan_any, dropout_plan::any);
SAME(rndnn_dropout_plan_fused, dropout_plan::fused);
SAME(rndnn_dropout_plan_chain, dropout_plan::chain);
#undef SAME
static_assert(RNDNN_MAX_NDIMS == max_ndims);
static_assert(RNDNN_GENERATOR_STATE_SIZE == generator::state_size);

// Expects @p got == @p want and, on failure, a last error message that
// contains @p needle.
#define EXPECT_STATUS(got, want, needle) \
    do { \
        const rndnn_status_t s_ = (got); \
        EXPECT_EQ(s_, want) << rndnn_last_error_message(); \
        if (s_ != rndnn_success) { \
            EXPECT_NE(std::string(rndnn_last_error_message()).find(needle), \
                    std::string::npos) \
                    << rndnn_last_error_message(); \
        } \
    } while (0)
#define EXPECT_OK(got) EXPECT_STATUS(got, rndnn_success, "")
#define EXPECT_INVALID(got, needle) \
    EXPECT_STATUS(got, rndnn_invalid_arguments, needle)

rndnn_memory_desc_t dense(std::vector<int64_t> d, rndnn_data_type_t dt) {
    rndnn_memory_desc_t md;
    EXPECT_OK(rndnn_memory_desc_init(
            &md, static_cast<int>(d.size()), d.data(), dt));
    return md;
}

// The bytes the C++ RNG writes for (d, po) at (seed, offset, stream).
std::vector<uint8_t> cpp_draw(const rng::desc &d, const post_ops &po,
        int64_t seed, int64_t offset = 0, int64_t strm = 0) {
    std::vector<uint8_t> out(d.dst.get_size());
    primitive_attr attr;
    attr.set_post_ops(po);
    generate(d, attr, out.data(), {seed, offset, strm, 2});
    return out;
}

TEST(CApi, NamesAreTheCppApisAndUnknownOutside) {
    for (const status s : {status::success, status::invalid_arguments,
                 status::unimplemented, status::out_of_memory,
                 status::runtime_error})
        EXPECT_STREQ(rndnn_status2str(static_cast<rndnn_status_t>(s)),
                status2str(s));
    EXPECT_STREQ(rndnn_dt2str(rndnn_bit), "bit");
    EXPECT_STREQ(rndnn_cpu_isa2str(rndnn_cpu_isa_avx2), "avx2");
    EXPECT_STREQ(rndnn_rng_alg2str(rndnn_multfly), "multfly");
    EXPECT_STREQ(rndnn_bernoulli_method2str(rndnn_bernoulli_auto), "auto");
    EXPECT_STREQ(rndnn_prop_kind2str(rndnn_backward), "backward");
    EXPECT_STREQ(rndnn_dropout_plan2str(rndnn_dropout_plan_fused), "fused");
    EXPECT_STREQ(rndnn_status2str(static_cast<rndnn_status_t>(99)), "unknown");
    EXPECT_STREQ(rndnn_dt2str(rndnn_data_type_max), "unknown");
}

// The values of the C enum @p type in include/rndnn.h, in order: each
// line "rndnn_NAME = VALUE," of its typedef (the *_max entry left out).
std::vector<std::pair<std::string, int>> header_enum(const std::string &type) {
    std::ifstream in(std::string(RNDNN_TEST_DATA_DIR) + "/../../include/rndnn.h");
    std::string text((std::istreambuf_iterator<char>(in)),
            std::istreambuf_iterator<char>());
    const auto end = text.find("} " + type + ";");
    const auto begin = text.rfind("typedef enum {", end);
    EXPECT_NE(end, std::string::npos) << type;
    std::vector<std::pair<std::string, int>> values;
    if (end == std::string::npos) return values;
    std::istringstream block(text.substr(begin, end - begin));
    const std::regex line(R"(^\s*(rndnn_\w+) = (\d+),)");
    std::smatch m;
    for (std::string l; std::getline(block, l);) {
        if (!std::regex_search(l, m, line)) continue;
        const std::string n = m[1].str();
        if (n.size() > 4 && n.compare(n.size() - 4, 4, "_max") == 0) continue;
        values.emplace_back(n, std::stoi(m[2].str()));
    }
    return values;
}

// Every enumerator of the C++ API (0, 1, ... up to the first the C++
// name table calls "unknown") is in the C header as rndnn_PREFIX + its
// C++ name = its value, and the header has no other: a value added to the
// C++ enum without its C value fails here (the static_asserts above check
// only the values they list).
TEST(CApi, HeaderListsEveryCppEnumerator) {
    const auto check = [](const std::string &type, const std::string &prefix,
                               const char *(*name)(int)) {
        std::vector<std::pair<std::string, int>> want;
        for (int v = 0; std::strcmp(name(v), "unknown") != 0; ++v)
            want.emplace_back("rndnn_" + prefix + name(v), v);
        EXPECT_EQ(header_enum(type), want) << type;
        EXPECT_STREQ(name(static_cast<int>(want.size())), "unknown") << type;
    };
    check("rndnn_status_t", "", [](int v) {
        return rndnn_status2str(static_cast<rndnn_status_t>(v));
    });
    check("rndnn_data_type_t", "", [](int v) {
        // undef is rndnn_data_type_undef in C.
        return v == 0 ? "data_type_undef"
                      : rndnn_dt2str(static_cast<rndnn_data_type_t>(v));
    });
    check("rndnn_cpu_isa_t", "cpu_isa_", [](int v) {
        return rndnn_cpu_isa2str(static_cast<rndnn_cpu_isa_t>(v));
    });
    check("rndnn_rng_alg_t", "", [](int v) {
        return rndnn_rng_alg2str(static_cast<rndnn_rng_alg_t>(v));
    });
    check("rndnn_bernoulli_method_t", "bernoulli_", [](int v) {
        return rndnn_bernoulli_method2str(
                static_cast<rndnn_bernoulli_method_t>(v));
    });
    check("rndnn_prop_kind_t", "", [](int v) {
        return rndnn_prop_kind2str(static_cast<rndnn_prop_kind_t>(v));
    });
    check("rndnn_dropout_plan_t", "dropout_plan_", [](int v) {
        return rndnn_dropout_plan2str(static_cast<rndnn_dropout_plan_t>(v));
    });
}

TEST(CApi, VersionAndIsaAreTheCppApis) {
    const rndnn_version_t *v = rndnn_version();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->major, RNDNN_VERSION_MAJOR);
    EXPECT_EQ(v->minor, RNDNN_VERSION_MINOR);
    EXPECT_EQ(v->patch, RNDNN_VERSION_PATCH);
    EXPECT_STREQ(v->str, RNDNN_VERSION_STRING);
    EXPECT_STREQ(v->hash, version().hash);
    rndnn_cpu_isa_t isa = rndnn_cpu_isa_all;
    EXPECT_OK(rndnn_get_max_cpu_isa(&isa));
    EXPECT_EQ(static_cast<int>(isa), static_cast<int>(get_max_cpu_isa()));
    EXPECT_INVALID(rndnn_get_max_cpu_isa(nullptr), "isa is NULL");
}

// Every status, on purpose: invalid_arguments above and below;
// unimplemented from a fused plan that cannot apply; out_of_memory from a
// spawn too large to hold; runtime_error and out_of_memory from foreign
// exceptions at the boundary, which names the call.
TEST(CApi, EveryStatusAndTheLastErrorMessage) {
    rndnn_memory_desc_t md = dense({64}, rndnn_f32);
    EXPECT_STREQ(rndnn_last_error_message(), "");
    rndnn_dropout_desc_t dd;
    EXPECT_OK(rndnn_dropout_desc_init(&dd, rndnn_forward_training, &md, 0.5));
    dd.plan = rndnn_dropout_plan_fused;
    rndnn_draw_desc_t draw;
    EXPECT_OK(rndnn_draw_desc_init(&draw, rndnn_philox4x32_10));
    draw.max_isa = rndnn_cpu_isa_none;
    rndnn_dropout_t dp = nullptr;
    EXPECT_STATUS(rndnn_dropout_create(&dp, &draw, &dd), rndnn_unimplemented,
            "fused");
    EXPECT_EQ(dp, nullptr);

    rndnn_generator_t g = nullptr;
    EXPECT_OK(rndnn_generator_create(&g, 1, 0));
    rndnn_generator_t child = nullptr;
    EXPECT_STATUS(rndnn_generator_spawn(g, int64_t(1) << 62, &child),
            rndnn_out_of_memory, "4611686018427387904");
    int64_t offset = -1;
    EXPECT_OK(rndnn_generator_get(g, nullptr, &offset));
    EXPECT_EQ(offset, 0); // unchanged
    EXPECT_OK(rndnn_generator_destroy(g));

    EXPECT_EQ(impl::c_call("rndnn_test",
                      [] { throw std::runtime_error("dependency failed"); }),
            rndnn_runtime_error);
    EXPECT_NE(std::string(rndnn_last_error_message()).find("rndnn_test"),
            std::string::npos)
            << rndnn_last_error_message();
    EXPECT_NE(std::string(rndnn_last_error_message()).find("dependency failed"),
            std::string::npos);
    EXPECT_EQ(impl::c_call("rndnn_test", [] { throw std::bad_alloc(); }),
            rndnn_out_of_memory);
    EXPECT_EQ(impl::c_call("rndnn_test", [] { throw 42; }),
            rndnn_runtime_error);
    // Success clears the message.
    EXPECT_OK(rndnn_memory_desc_init(&md, 0, nullptr, rndnn_f32));
    EXPECT_STREQ(rndnn_last_error_message(), "");
}

TEST(CApi, TheLastErrorMessageIsThreadLocal) {
    EXPECT_INVALID(rndnn_get_max_cpu_isa(nullptr), "isa is NULL");
    std::string other;
    std::thread t([&] {
        other = rndnn_last_error_message();
        rndnn_cpu_isa_t isa;
        rndnn_get_max_cpu_isa(&isa);
    });
    t.join();
    EXPECT_EQ(other, "");
    EXPECT_NE(std::string(rndnn_last_error_message()).find("isa is NULL"),
            std::string::npos);
}

TEST(CApi, MemoryDescs) {
    rndnn_memory_desc_t md = dense({2, 3}, rndnn_f32);
    EXPECT_EQ(md.ndims, 2);
    EXPECT_EQ(md.dims[0], 2);
    EXPECT_EQ(md.dims[1], 3);
    EXPECT_EQ(md.strides[0], 3);
    EXPECT_EQ(md.strides[1], 1);
    EXPECT_EQ(md.offset0, 0);
    EXPECT_EQ(md.data_type, rndnn_f32);
    size_t size = 0;
    EXPECT_OK(rndnn_memory_desc_get_size(&md, &size));
    EXPECT_EQ(size, 24u);
    md = dense({64, 1024}, rndnn_bit);
    EXPECT_OK(rndnn_memory_desc_get_size(&md, &size));
    EXPECT_EQ(size, 8192u);
    const int64_t dims[2] = {2, 3}, strides[2] = {8, 2};
    EXPECT_OK(rndnn_memory_desc_init_strided(
            &md, 2, dims, rndnn_u8, strides, 1));
    EXPECT_OK(rndnn_memory_desc_get_size(&md, &size));
    EXPECT_EQ(size, memory::desc({2, 3}, dt::u8, {8, 2}, 1).get_size());
    EXPECT_EQ(md.offset0, 1);
    // The empty descriptor: a zeroed struct.
    const rndnn_memory_desc_t empty = {};
    EXPECT_OK(rndnn_memory_desc_get_size(&empty, &size));
    EXPECT_EQ(size, 0u);

    EXPECT_INVALID(rndnn_memory_desc_init(nullptr, 2, dims, rndnn_f32),
            "md is NULL");
    EXPECT_INVALID(rndnn_memory_desc_init(&md, 2, nullptr, rndnn_f32),
            "dims is NULL");
    const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_INVALID(rndnn_memory_desc_init(&md, 9, nine, rndnn_f32),
            "dims=9 is outside [0, 8]");
    EXPECT_INVALID(rndnn_memory_desc_init(&md, -1, nine, rndnn_f32),
            "dims=-1");
    const int64_t negative[2] = {2, -3};
    EXPECT_INVALID(rndnn_memory_desc_init(&md, 2, negative, rndnn_f32), "-3");
    EXPECT_INVALID(rndnn_memory_desc_init(
                           &md, 2, dims, static_cast<rndnn_data_type_t>(99)),
            "data type value 99 is not a data_type");
    EXPECT_INVALID(rndnn_memory_desc_init(&md, 2, dims, rndnn_data_type_undef),
            "needs a data type");
    const int64_t overlap[2] = {1, 1};
    EXPECT_INVALID(rndnn_memory_desc_init_strided(
                           &md, 2, dims, rndnn_f32, overlap, 0),
            "overlap");
    EXPECT_INVALID(rndnn_memory_desc_init_strided(
                           &md, 2, dims, rndnn_f32, nullptr, 0),
            "strides is NULL");
    const int64_t neg_stride[2] = {-1, 1};
    EXPECT_INVALID(rndnn_memory_desc_init_strided(
                           &md, 2, dims, rndnn_f32, neg_stride, 0),
            "-1");
    md = dense({2}, rndnn_f32);
    md.ndims = 12; // filled by hand
    EXPECT_INVALID(rndnn_memory_desc_get_size(&md, &size), "ndims=12");
    EXPECT_INVALID(rndnn_memory_desc_get_size(nullptr, &size), "md is NULL");
    EXPECT_INVALID(rndnn_memory_desc_get_size(&empty, nullptr),
            "size is NULL");
}

TEST(CApi, Distributions) {
    int count = 0;
    EXPECT_OK(rndnn_get_distribution_count(&count));
    ASSERT_EQ(static_cast<size_t>(count), distributions().size());
    for (int i = 0; i < count; ++i) {
        const distribution_info &d = distributions()[static_cast<size_t>(i)];
        const char *name = nullptr;
        int nparams = -1;
        rndnn_data_type_t dt = rndnn_data_type_undef;
        EXPECT_OK(rndnn_get_distribution(i, &name, &nparams, &dt));
        EXPECT_STREQ(name, d.name);
        EXPECT_EQ(static_cast<size_t>(nparams), d.params.size());
        EXPECT_EQ(static_cast<int>(dt), static_cast<int>(d.dst_types[0]));
        for (int k = 0; k < nparams; ++k) {
            const char *pname = nullptr;
            double def = -1;
            int integer = -1;
            EXPECT_OK(rndnn_get_distribution_param(i, k, &pname, &def, &integer));
            EXPECT_STREQ(pname, d.params[static_cast<size_t>(k)].name);
            EXPECT_EQ(def, d.params[static_cast<size_t>(k)].default_value);
            EXPECT_EQ(integer != 0, d.params[static_cast<size_t>(k)].integer);
        }
        EXPECT_INVALID(rndnn_get_distribution_param(
                               i, nparams, nullptr, nullptr, nullptr),
                "outside");
    }
    EXPECT_OK(rndnn_get_distribution(0, nullptr, nullptr, nullptr));
    EXPECT_INVALID(rndnn_get_distribution(count, nullptr, nullptr, nullptr),
            std::to_string(count));
    EXPECT_INVALID(rndnn_get_distribution(-1, nullptr, nullptr, nullptr),
            "-1 is outside");
    EXPECT_INVALID(rndnn_get_distribution_count(nullptr), "count is NULL");
}

// The RNG: the C++ API's bits for a mask, uniform values, integers, raw
// words, a window and multfly's key, and its errors.
TEST(CApi, RngDrawsTheCppApisBits) {
    unsigned char c99[8192];
    ASSERT_EQ(c99_draw_mask(c99, sizeof(c99)), 0);
    rng::desc d(rng_alg::philox4x32_10, memory::desc({64, 1024}, dt::bit));
    post_ops po;
    po.append_bernoulli(0.9);
    const std::vector<uint8_t> want = cpp_draw(d, po, 42);
    EXPECT_EQ(std::memcmp(c99, want.data(), want.size()), 0);
    EXPECT_EQ(c99_null_is_refused(), 1);

    // uniform(-1, 2) as f32, seed 7, offset 5, stream 3, one and two
    // threads, next offset returned.
    rndnn_memory_desc_t md = dense({1000}, rndnn_f32);
    const double ab[2] = {-1, 2};
    rndnn_distribution_t dist = {"uniform", ab, 2, nullptr, 0,
            rndnn_bernoulli_auto, 1};
    rndnn_rng_t r = nullptr;
    EXPECT_OK(rndnn_rng_create(&r, nullptr, &md, &dist));
    const char *impl_name = nullptr;
    EXPECT_OK(rndnn_rng_get_impl_name(r, &impl_name));
    EXPECT_NE(impl_name, nullptr);
    std::vector<uint8_t> got(4000);
    int64_t next = 0;
    for (int nthr : {1, 2}) {
        EXPECT_OK(rndnn_rng_execute(r, got.data(), 7, 5, 3, nthr, &next));
        EXPECT_EQ(next, 1005);
        post_ops u;
        u.append_uniform(-1, 2);
        EXPECT_EQ(got, cpp_draw(rng::desc(rng_alg::philox4x32_10,
                                        memory::desc({1000}, dt::f32)),
                               u, 7, 5, 3));
    }
    // Errors at execution: nothing written.
    EXPECT_INVALID(rndnn_rng_execute(r, got.data(), 7, -1, 0, 0, nullptr),
            "offset=-1 is negative");
    EXPECT_INVALID(rndnn_rng_execute(r, got.data(), 7,
                           std::numeric_limits<int64_t>::max() - 10, 0, 0,
                           nullptr),
            "2^63 - 1");
    EXPECT_INVALID(rndnn_rng_execute(r, nullptr, 7, 0, 0, 0, nullptr),
            "has no data");
    EXPECT_INVALID(rndnn_rng_execute(r, got.data(), 7, 0, 0, -1, nullptr),
            "-1");
    EXPECT_INVALID(rndnn_rng_execute(nullptr, got.data(), 7, 0, 0, 0, nullptr),
            "rng is NULL");
    EXPECT_INVALID(rndnn_rng_get_impl_name(r, nullptr), "name is NULL");
    EXPECT_INVALID(rndnn_rng_get_impl_name(nullptr, &impl_name),
            "rng is NULL");
    EXPECT_OK(rndnn_rng_destroy(r));
    EXPECT_OK(rndnn_rng_destroy(nullptr));

    // integers [-3, 9) as s32, by integer parameters; under the reference
    // kernels (ISA cap none): the same bits.
    md = dense({333}, rndnn_s32);
    const int64_t lh[2] = {-3, 9};
    rndnn_distribution_t ints = {"integers", nullptr, 0, lh, 2,
            rndnn_bernoulli_auto, 1};
    rndnn_draw_desc_t draw;
    EXPECT_OK(rndnn_draw_desc_init(&draw, rndnn_threefry4x32_20));
    draw.max_isa = rndnn_cpu_isa_none;
    EXPECT_OK(rndnn_rng_create(&r, &draw, &md, &ints));
    EXPECT_OK(rndnn_rng_get_impl_name(r, &impl_name));
    EXPECT_EQ(std::string(impl_name).rfind("ref", 0), 0u) << impl_name;
    got.assign(333 * 4, 0);
    EXPECT_OK(rndnn_rng_execute(r, got.data(), 11, 0, 0, 0, nullptr));
    post_ops pi;
    pi.append_integers(-3, 9);
    EXPECT_EQ(got, cpp_draw(rng::desc(rng_alg::threefry4x32_20,
                                    memory::desc({333}, dt::s32)),
                           pi, 11));
    EXPECT_OK(rndnn_rng_destroy(r));

    // Raw words (no distribution) of a window: the block {2, 8} at {1, 4}
    // of a {4, 16} tensor is that block of the whole tensor.
    md = dense({2, 8}, rndnn_u32);
    EXPECT_OK(rndnn_draw_desc_init(&draw, rndnn_philox4x32_10));
    draw.window_ndims = 2;
    draw.global_dims[0] = 4;
    draw.global_dims[1] = 16;
    draw.origin[0] = 1;
    draw.origin[1] = 4;
    EXPECT_OK(rndnn_rng_create(&r, &draw, &md, nullptr));
    std::vector<uint32_t> block(16);
    EXPECT_OK(rndnn_rng_execute(r, block.data(), 3, 0, 0, 0, &next));
    EXPECT_EQ(next, 64); // the global tensor's count
    EXPECT_OK(rndnn_rng_destroy(r));
    const std::vector<uint8_t> whole = cpp_draw(rng::desc(rng_alg::philox4x32_10,
                                                        memory::desc({4, 16}, dt::u32)),
            post_ops(), 3);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 8; ++j) {
            uint32_t w;
            std::memcpy(&w, &whole[static_cast<size_t>(((1 + i) * 16 + 4 + j) * 4)], 4);
            EXPECT_EQ(block[static_cast<size_t>(i * 8 + j)], w) << i << "," << j;
        }

    // multfly with a key name.
    md = dense({100}, rndnn_u32);
    EXPECT_OK(rndnn_draw_desc_init(&draw, rndnn_multfly));
    draw.key_name = "weights";
    EXPECT_OK(rndnn_rng_create(&r, &draw, &md, nullptr));
    got.assign(400, 0);
    EXPECT_OK(rndnn_rng_execute(r, got.data(), 5, 0, 0, 0, nullptr));
    EXPECT_OK(rndnn_rng_destroy(r));
    rng::desc mf(rng_alg::multfly, memory::desc({100}, dt::u32));
    mf.name = "weights";
    EXPECT_EQ(got, cpp_draw(mf, post_ops(), 5));
}

TEST(CApi, RngCreationErrorsNameTheValue) {
    rndnn_memory_desc_t md = dense({64}, rndnn_bit);
    const double p = 1.5;
    rndnn_distribution_t dist = {"bernoulli", &p, 1, nullptr, 0,
            rndnn_bernoulli_auto, 1};
    rndnn_rng_t r = reinterpret_cast<rndnn_rng_t>(&md); // overwritten
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, &md, &dist), "1.5");
    EXPECT_EQ(r, nullptr);
    dist.name = "poisson";
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, &md, &dist), "'poisson'");
    dist.name = "bernoulli";
    dist.nvalues = 2;
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, &md, &dist), "2");
    dist.nvalues = -1;
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, &md, &dist), "nvalues=-1");
    dist.nvalues = 1;
    dist.values = nullptr;
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, &md, &dist), "values is NULL");
    dist.values = &p;
    dist.nintegers = 1;
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, &md, &dist),
            "integers is NULL");
    dist.nintegers = 0;
    dist.name = nullptr;
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, &md, &dist),
            "distribution name is NULL");
    dist.name = "bernoulli";
    const double half = 0.5;
    dist.values = &half;
    dist.method = static_cast<rndnn_bernoulli_method_t>(17);
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, &md, &dist),
            "bernoulli method value 17");
    dist.method = rndnn_bernoulli_auto;
    rndnn_draw_desc_t draw;
    EXPECT_OK(rndnn_draw_desc_init(&draw, static_cast<rndnn_rng_alg_t>(6)));
    EXPECT_INVALID(rndnn_rng_create(&r, &draw, &md, &dist),
            "algorithm value 6 is not a rng_alg");
    EXPECT_OK(rndnn_draw_desc_init(&draw, rndnn_philox4x32_10));
    draw.max_isa = static_cast<rndnn_cpu_isa_t>(12);
    EXPECT_INVALID(rndnn_rng_create(&r, &draw, &md, &dist),
            "ISA cap value 12");
    EXPECT_OK(rndnn_draw_desc_init(&draw, rndnn_philox4x32_10));
    draw.window_ndims = 9;
    EXPECT_INVALID(rndnn_rng_create(&r, &draw, &md, &dist),
            "window_ndims=9");
    draw.window_ndims = 0;
    draw.key_name = "key";
    EXPECT_INVALID(rndnn_rng_create(&r, &draw, &md, &dist), "name");
    EXPECT_INVALID(rndnn_draw_desc_init(nullptr, rndnn_mt19937),
            "draw is NULL");
    // A type the distribution cannot write.
    md = dense({64}, rndnn_bf16);
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, &md, &dist), "bf16");
    EXPECT_INVALID(rndnn_rng_create(&r, nullptr, nullptr, &dist),
            "dst is NULL");
    EXPECT_INVALID(rndnn_rng_create(nullptr, nullptr, &md, &dist),
            "rng is NULL");
}

// Dropout forward (bit mask, u8 mask, no mask, in place, a noise shape)
// and backward (from the mask, recomputed): the C++ API's bits.
TEST(CApi, DropoutIsTheCppApis) {
    const int64_t n = 4096;
    rndnn_memory_desc_t md = dense({4, 1024}, rndnn_f32);
    std::vector<float> x(n), y(n), dy(n, 1.f), dx(n), dx2(n);
    for (int64_t i = 0; i < n; ++i)
        x[static_cast<size_t>(i)] = static_cast<float>(i % 100) * 0.01f;
    for (const rndnn_data_type_t mask_dt :
            {rndnn_bit, rndnn_u8, rndnn_data_type_undef}) {
        rndnn_dropout_desc_t dd;
        EXPECT_OK(rndnn_dropout_desc_init(&dd, rndnn_forward_training, &md, 0.25));
        if (mask_dt != rndnn_data_type_undef) dd.mask = dense({4, 1024}, mask_dt);
        rndnn_dropout_t fwd = nullptr;
        EXPECT_OK(rndnn_dropout_create(&fwd, nullptr, &dd));
        size_t mask_bytes = 0;
        EXPECT_OK(rndnn_dropout_get_mask_size(fwd, &mask_bytes));
        EXPECT_EQ(mask_bytes, mask_dt == rndnn_bit ? 512u
                        : mask_dt == rndnn_u8     ? 4096u
                                                  : 0u);
        const char *impl_name = nullptr;
        EXPECT_OK(rndnn_dropout_get_impl_name(fwd, &impl_name));
        EXPECT_NE(impl_name, nullptr);
        std::vector<uint8_t> mask(mask_bytes);
        int64_t next = 0;
        EXPECT_OK(rndnn_dropout_execute(fwd, x.data(), y.data(),
                mask.empty() ? nullptr : mask.data(), 42, 8, 1, 0, &next));
        EXPECT_EQ(next, 8 + n);
        // In place: the same result.
        std::vector<float> inplace = x;
        EXPECT_OK(rndnn_dropout_execute(fwd, inplace.data(), inplace.data(),
                mask.empty() ? nullptr : mask.data(), 42, 8, 1, 0, nullptr));
        EXPECT_EQ(inplace, y);

        // The C++ API's forward.
        dropout::desc cd;
        cd.src = cd.dst = memory::desc({4, 1024}, dt::f32);
        cd.rate = 0.25;
        cd.with_offset = true;
        if (mask_dt != rndnn_data_type_undef)
            cd.mask = memory::desc(
                    {4, 1024}, static_cast<data_type>(mask_dt));
        std::vector<float> want(n);
        std::vector<uint8_t> want_mask(mask_bytes);
        std::unordered_map<int, memory> args {
                {RNDNN_ARG_SRC, memory(cd.src, x.data())},
                {RNDNN_ARG_DST, memory(cd.dst, want.data())},
                {RNDNN_ARG_SEED, memory::scalar(int64_t(42))},
                {RNDNN_ARG_OFFSET, memory::scalar(int64_t(8))},
                {RNDNN_ARG_STREAM, memory::scalar(int64_t(1))}};
        if (mask_bytes)
            args[RNDNN_ARG_MASK] = memory(cd.mask, want_mask.data());
        dropout(dropout::primitive_desc(cd)).execute(stream(), args);
        EXPECT_EQ(y, want);
        EXPECT_EQ(mask, want_mask);

        // Backward from the stored mask, or recomputed: the same gradient.
        dd.prop = rndnn_backward;
        rndnn_dropout_t bwd = nullptr;
        EXPECT_OK(rndnn_dropout_create(&bwd, nullptr, &dd));
        EXPECT_OK(rndnn_dropout_execute(bwd, dy.data(), dx.data(),
                mask.empty() ? nullptr : mask.data(), 42, 8, 1, 0, nullptr));
        for (int64_t i = 0; i < n; ++i) {
            const size_t k = static_cast<size_t>(i);
            EXPECT_EQ(dx[k], want[k] == 0.f && x[k] != 0.f ? 0.f
                                    : want[k] == 0.f     ? dx[k]
                                                         : 1.f / 0.75f)
                    << i;
        }
        if (mask_dt == rndnn_data_type_undef) {
            EXPECT_EQ(dx, dx2); // dx2: from the bit mask, the first round
        } else if (mask_dt == rndnn_bit) {
            dx2 = dx;
        }
        // A missing mask buffer is refused.
        if (mask_bytes) {
            EXPECT_INVALID(rndnn_dropout_execute(bwd, dy.data(), dx.data(),
                                   nullptr, 42, 8, 1, 0, nullptr),
                    "mask memory has no data");
        }
        EXPECT_OK(rndnn_dropout_destroy(bwd));
        EXPECT_OK(rndnn_dropout_destroy(fwd));
    }

    // Inference copies; a noise shape {4, 1} shares each row's decision.
    rndnn_dropout_desc_t dd;
    EXPECT_OK(rndnn_dropout_desc_init(&dd, rndnn_forward_inference, &md, 0.5));
    rndnn_dropout_t dp = nullptr;
    EXPECT_OK(rndnn_dropout_create(&dp, nullptr, &dd));
    int64_t next = 0;
    EXPECT_OK(rndnn_dropout_execute(dp, x.data(), y.data(), nullptr, 1, 3, 0,
            0, &next));
    EXPECT_EQ(y, x);
    EXPECT_EQ(next, 3); // nothing drawn
    EXPECT_OK(rndnn_dropout_destroy(dp));
    EXPECT_OK(rndnn_dropout_desc_init(&dd, rndnn_forward_training, &md, 0.5));
    dd.noise_ndims = 2;
    dd.noise_shape[0] = 4;
    dd.noise_shape[1] = 1;
    EXPECT_OK(rndnn_dropout_create(&dp, nullptr, &dd));
    EXPECT_OK(rndnn_dropout_execute(dp, x.data(), y.data(), nullptr, 1, 0, 0,
            0, &next));
    EXPECT_EQ(next, 4);
    for (int64_t r = 0; r < 4; ++r) {
        // x is 0 where its index is a multiple of 100: left out.
        const size_t row = static_cast<size_t>(r * 1024);
        const bool kept = y[row + 1 + (row % 100 == 99)] != 0.f;
        for (size_t k = row; k < row + 1024; ++k) {
            if (k % 100) {
                EXPECT_EQ(y[k] != 0.f, kept) << k;
            }
        }
    }
    EXPECT_OK(rndnn_dropout_destroy(dp));
}

TEST(CApi, DropoutErrorsNameTheValue) {
    rndnn_memory_desc_t md = dense({4, 8}, rndnn_f32);
    rndnn_dropout_desc_t dd;
    EXPECT_OK(rndnn_dropout_desc_init(&dd, rndnn_forward_training, &md, 1.5));
    rndnn_dropout_t dp = nullptr;
    EXPECT_INVALID(rndnn_dropout_create(&dp, nullptr, &dd), "1.5");
    EXPECT_EQ(dp, nullptr);
    dd.rate = 0.5;
    dd.noise_ndims = 2;
    dd.noise_shape[0] = 3;
    dd.noise_shape[1] = 8;
    EXPECT_INVALID(rndnn_dropout_create(&dp, nullptr, &dd), "3x8");
    dd.noise_ndims = 9;
    EXPECT_INVALID(rndnn_dropout_create(&dp, nullptr, &dd), "noise_ndims=9");
    dd.noise_ndims = 0;
    dd.mask = dense({4, 8}, rndnn_s32);
    EXPECT_INVALID(rndnn_dropout_create(&dp, nullptr, &dd), "s32");
    dd.mask = rndnn_memory_desc_t();
    dd.dst = dense({4, 9}, rndnn_f32);
    EXPECT_INVALID(rndnn_dropout_create(&dp, nullptr, &dd), "4x9");
    dd.dst = md;
    dd.prop = static_cast<rndnn_prop_kind_t>(7);
    EXPECT_INVALID(rndnn_dropout_create(&dp, nullptr, &dd),
            "propagation kind value 7");
    dd.prop = rndnn_forward_training;
    dd.plan = static_cast<rndnn_dropout_plan_t>(3);
    EXPECT_INVALID(rndnn_dropout_create(&dp, nullptr, &dd), "plan value 3");
    dd.plan = rndnn_dropout_plan_any;
    dd.onednn_compat = 1; // needs philox4x32_10_onednn
    EXPECT_INVALID(rndnn_dropout_create(&dp, nullptr, &dd),
            "philox4x32_10_onednn");
    dd.onednn_compat = 0;
    EXPECT_INVALID(rndnn_dropout_create(&dp, nullptr, nullptr), "desc is NULL");
    EXPECT_INVALID(rndnn_dropout_create(nullptr, nullptr, &dd),
            "dropout is NULL");
    EXPECT_INVALID(rndnn_dropout_desc_init(nullptr, rndnn_backward, &md, 0.5),
            "desc is NULL");
    EXPECT_INVALID(rndnn_dropout_desc_init(&dd, rndnn_backward, nullptr, 0.5),
            "data is NULL");

    EXPECT_OK(rndnn_dropout_create(&dp, nullptr, &dd));
    std::vector<float> x(32);
    EXPECT_INVALID(rndnn_dropout_execute(dp, x.data(), nullptr, nullptr, 1,
                           0, 0, 0, nullptr),
            "dst memory has no data");
    EXPECT_INVALID(rndnn_dropout_execute(dp, x.data(), x.data(), nullptr, 1,
                           -5, 0, 0, nullptr),
            "offset=-5");
    EXPECT_INVALID(rndnn_dropout_execute(nullptr, x.data(), x.data(), nullptr,
                           1, 0, 0, 0, nullptr),
            "dropout is NULL");
    const char *name = nullptr;
    size_t bytes = 0;
    EXPECT_INVALID(rndnn_dropout_get_impl_name(nullptr, &name),
            "dropout is NULL");
    EXPECT_INVALID(rndnn_dropout_get_impl_name(dp, nullptr), "name is NULL");
    EXPECT_INVALID(rndnn_dropout_get_mask_size(nullptr, &bytes),
            "dropout is NULL");
    EXPECT_INVALID(rndnn_dropout_get_mask_size(dp, nullptr), "bytes is NULL");
    EXPECT_OK(rndnn_dropout_destroy(dp));
    EXPECT_OK(rndnn_dropout_destroy(nullptr));
}

TEST(CApi, GeneratorIsTheCppApis) {
    rndnn_generator_t g = nullptr;
    EXPECT_OK(rndnn_generator_create(&g, -7, 10));
    int64_t seed = 0, offset = 0, first = 0;
    EXPECT_OK(rndnn_generator_get(g, &seed, &offset));
    EXPECT_EQ(seed, -7);
    EXPECT_EQ(offset, 10);
    EXPECT_OK(rndnn_generator_reserve(g, 5, &first));
    EXPECT_EQ(first, 10);
    EXPECT_OK(rndnn_generator_reserve(g, 0, nullptr));
    generator cg(-7, 15);

    uint8_t state[RNDNN_GENERATOR_STATE_SIZE];
    EXPECT_OK(rndnn_generator_save(g, state));
    const generator::state want = cg.save();
    EXPECT_EQ(std::memcmp(state, want.data(), sizeof(state)), 0);
    rndnn_generator_t loaded = nullptr;
    EXPECT_OK(rndnn_generator_load(&loaded, state, sizeof(state)));
    EXPECT_OK(rndnn_generator_get(loaded, &seed, &offset));
    EXPECT_EQ(seed, -7);
    EXPECT_EQ(offset, 15);

    rndnn_generator_t f = nullptr;
    EXPECT_OK(rndnn_generator_fold_in(g, 99, &f));
    EXPECT_OK(rndnn_generator_get(f, &seed, &offset));
    EXPECT_EQ(seed, cg.fold_in(uint64_t(99)).get_seed());
    EXPECT_EQ(offset, 0);
    EXPECT_OK(rndnn_generator_destroy(f));
    EXPECT_OK(rndnn_generator_fold_in_bytes(g, "layer1", 6, &f));
    EXPECT_OK(rndnn_generator_get(f, &seed, nullptr));
    EXPECT_EQ(seed, cg.fold_in(std::string_view("layer1")).get_seed());
    EXPECT_OK(rndnn_generator_destroy(f));
    EXPECT_OK(rndnn_generator_fold_in_bytes(g, nullptr, 0, &f));
    EXPECT_OK(rndnn_generator_get(f, &seed, nullptr));
    EXPECT_EQ(seed, cg.fold_in(std::string_view()).get_seed());
    EXPECT_OK(rndnn_generator_destroy(f));

    rndnn_generator_t kids[3] = {};
    EXPECT_OK(rndnn_generator_spawn(g, 3, kids));
    const std::vector<generator> ckids = cg.spawn(3);
    for (int i = 0; i < 3; ++i) {
        EXPECT_OK(rndnn_generator_get(kids[i], &seed, &offset));
        EXPECT_EQ(seed, ckids[static_cast<size_t>(i)].get_seed());
        EXPECT_EQ(offset, 0);
        EXPECT_OK(rndnn_generator_destroy(kids[i]));
    }
    EXPECT_OK(rndnn_generator_spawn(g, 0, nullptr));
    EXPECT_OK(rndnn_generator_get(g, nullptr, &offset));
    EXPECT_EQ(offset, cg.get_offset());

    // Errors: the state unchanged.
    EXPECT_INVALID(rndnn_generator_reserve(g, -1, &first), "negative");
    EXPECT_INVALID(rndnn_generator_spawn(g, -2, kids), "negative");
    EXPECT_INVALID(rndnn_generator_spawn(g, 2, nullptr), "children is NULL");
    EXPECT_OK(rndnn_generator_get(g, nullptr, &offset));
    EXPECT_EQ(offset, cg.get_offset());
    rndnn_generator_t bad = g;
    EXPECT_INVALID(rndnn_generator_create(&bad, 1, -1), "-1");
    EXPECT_EQ(bad, nullptr);
    EXPECT_INVALID(rndnn_generator_create(nullptr, 1, 0), "gen is NULL");
    EXPECT_INVALID(rndnn_generator_load(&bad, state, 15), "15");
    EXPECT_INVALID(rndnn_generator_load(&bad, nullptr, 16), "null");
    EXPECT_INVALID(rndnn_generator_load(nullptr, state, 16), "gen is NULL");
    EXPECT_INVALID(rndnn_generator_get(nullptr, &seed, &offset), "gen is NULL");
    EXPECT_INVALID(rndnn_generator_reserve(nullptr, 1, &first), "gen is NULL");
    EXPECT_INVALID(rndnn_generator_save(g, nullptr), "state is NULL");
    EXPECT_INVALID(rndnn_generator_save(nullptr, state), "gen is NULL");
    EXPECT_INVALID(rndnn_generator_fold_in(nullptr, 1, &f), "gen is NULL");
    EXPECT_INVALID(rndnn_generator_fold_in(g, 1, nullptr), "out is NULL");
    EXPECT_INVALID(rndnn_generator_fold_in_bytes(g, "ab", 2, nullptr),
            "out is NULL");
    EXPECT_INVALID(rndnn_generator_fold_in_bytes(g, nullptr, 3, &f),
            "key is NULL");
    EXPECT_INVALID(rndnn_generator_spawn(nullptr, 1, kids), "gen is NULL");
    EXPECT_OK(rndnn_generator_destroy(loaded));
    EXPECT_OK(rndnn_generator_destroy(g));
    EXPECT_OK(rndnn_generator_destroy(nullptr));
}

} // namespace
