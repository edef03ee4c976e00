// The public enums' names (rndnn/enums.hpp, src/enums.cpp): every
// enumerator has one, parsing a name gives the enumerator back, an unknown
// name is refused listing the names, and only enumerators pass the range
// check.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/enums.hpp"
#include "tests/test_utils.hpp"

namespace rndnn {
namespace {

// Every enumerator with its name, as the tests expect them.
template <typename E>
using names_t = std::vector<std::pair<E, std::string>>;

template <typename E>
void expect_names(const names_t<E> &want, const char *(*name)(E)) {
    for (const auto &w : want) {
        SCOPED_TRACE(w.second);
        EXPECT_TRUE(impl::is_enumerator(w.first));
        EXPECT_EQ(name(w.first), w.second);
    }
    // Past the last enumerator, and below the first: no enumerators.
    for (const int v : {-1, static_cast<int>(want.size()), 99}) {
        EXPECT_FALSE(impl::is_enumerator(static_cast<E>(v))) << v;
        EXPECT_EQ(std::string(name(static_cast<E>(v))), "unknown") << v;
    }
}

template <typename E>
void expect_parse(const names_t<E> &want, E (*parse)(const std::string &),
        const std::string &refusal) {
    for (const auto &w : want)
        EXPECT_EQ(parse(w.second), w.first) << w.second;
    EXPECT_ERROR_NAMES(parse("bogus\x1b"), refusal);
}

TEST(EnumNames, CoreEnums) {
    const names_t<data_type> dts = {{data_type::undef, "undef"},
            {data_type::f32, "f32"}, {data_type::bf16, "bf16"},
            {data_type::f16, "f16"}, {data_type::s8, "s8"},
            {data_type::u8, "u8"}, {data_type::s32, "s32"},
            {data_type::u32, "u32"}, {data_type::s64, "s64"},
            {data_type::bit, "bit"}, {data_type::f64, "f64"}};
    expect_names(dts, dt2str);
    // undef is no type to ask for: not parsed, not listed.
    expect_parse(names_t<data_type>(dts.begin() + 1, dts.end()), str2dt,
            "unknown data type 'bogus\\x1b' (expected f32, bf16, f16, s8, "
            "u8, s32, u32, s64, bit or f64)");
    EXPECT_ERROR_NAMES(str2dt("undef"), "unknown data type 'undef'");
    expect_names<status>({{status::success, "success"},
                                 {status::invalid_arguments,
                                         "invalid_arguments"},
                                 {status::unimplemented, "unimplemented"},
                                 {status::out_of_memory, "out_of_memory"},
                                 {status::runtime_error, "runtime_error"}},
            status2str);
    const names_t<cpu_isa> isas = {{cpu_isa::none, "none"},
            {cpu_isa::sse41, "sse41"}, {cpu_isa::avx2, "avx2"},
            {cpu_isa::avx512, "avx512"}, {cpu_isa::all, "all"}};
    expect_names(isas, isa2str);
    expect_parse(isas, str2isa,
            "unknown ISA 'bogus\\x1b' (expected none, sse41, avx2, avx512 or "
            "all)");
}

TEST(EnumNames, PrimitiveEnums) {
    const names_t<rng_alg> algs = {{rng_alg::philox4x32_10, "philox4x32_10"},
            {rng_alg::philox4x32_10_onednn, "philox4x32_10_onednn"},
            {rng_alg::threefry4x32_20, "threefry4x32_20"},
            {rng_alg::mcg31m1, "mcg31m1"}, {rng_alg::mt19937, "mt19937"},
            {rng_alg::multfly, "multfly"}};
    expect_names(algs, alg2str);
    // rng_algs() is the table's list, in its order.
    std::vector<rng_alg> listed;
    for (const auto &a : algs)
        listed.push_back(a.first);
    EXPECT_EQ(rng_algs(), listed);
    expect_parse(algs, str2alg,
            "unknown algorithm 'bogus\\x1b' (expected philox4x32_10, "
            "philox4x32_10_onednn, threefry4x32_20, mcg31m1, mt19937 or "
            "multfly)");
    const names_t<bernoulli_method> methods
            = {{bernoulli_method::threshold32, "threshold32"},
                    {bernoulli_method::bitsliced, "bitsliced"},
                    {bernoulli_method::automatic, "auto"},
                    {bernoulli_method::onednn, "onednn"},
                    {bernoulli_method::bytewise, "bytewise"}};
    expect_names(methods, bernoulli_method2str);
    expect_parse(methods, str2bernoulli_method,
            "unknown bernoulli method 'bogus\\x1b' (expected auto, "
            "threshold32, bitsliced, onednn or bytewise)");
    expect_names<scalar_kind>(
            {{scalar_kind::host, "host"}, {scalar_kind::memory, "memory"}},
            scalar_kind2str);
    expect_names<binary_alg>(
            {{binary_alg::mul, "mul"}, {binary_alg::add, "add"}},
            binary_alg2str);
    expect_names<prop_kind>(
            {{prop_kind::forward_training, "forward_training"},
                    {prop_kind::forward_inference, "forward_inference"},
                    {prop_kind::backward, "backward"}},
            prop_kind2str);
    const names_t<dropout_plan> plans = {{dropout_plan::any, "any"},
            {dropout_plan::fused, "fused"}, {dropout_plan::chain, "chain"}};
    expect_names(plans, dropout_plan2str);
    expect_parse(plans, str2dropout_plan,
            "unknown dropout plan 'bogus\\x1b' (expected any, fused or chain)");
    expect_names<eltwise_alg>({{eltwise_alg::relu, "relu"},
                                      {eltwise_alg::gelu_tanh, "gelu_tanh"},
                                      {eltwise_alg::gelu_erf, "gelu_erf"},
                                      {eltwise_alg::linear, "linear"}},
            eltwise_alg2str);
    const names_t<mask_mode> modes = {{mask_mode::bit, "bit"},
            {mask_mode::u8, "u8"}, {mask_mode::recompute, "recompute"}};
    expect_names(modes, mask_mode2str);
    expect_parse(modes, str2mask_mode,
            "unknown mask mode 'bogus\\x1b' (expected bit, u8 or recompute)");
}

} // namespace
} // namespace rndnn
