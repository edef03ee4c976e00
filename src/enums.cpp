// The public enums' tables: names, parsing and range checks (src/enums.hpp).
#include "src/enums.hpp"

#include <iterator>

namespace rndnn {

namespace {

template <typename E>
struct row_t {
    E value;
    const char *name;
};

// One table per public enum: every enumerator once, with the name that
// messages, the CLI and Python use. The order is the order messages list
// the names in.
constexpr row_t<data_type> data_types[] = {{data_type::undef, "undef"},
        {data_type::f32, "f32"}, {data_type::bf16, "bf16"},
        {data_type::f16, "f16"}, {data_type::s8, "s8"}, {data_type::u8, "u8"},
        {data_type::s32, "s32"}, {data_type::u32, "u32"},
        {data_type::s64, "s64"}, {data_type::bit, "bit"},
        {data_type::f64, "f64"}};
constexpr row_t<status> statuses[] = {{status::success, "success"},
        {status::invalid_arguments, "invalid_arguments"},
        {status::unimplemented, "unimplemented"},
        {status::out_of_memory, "out_of_memory"},
        {status::runtime_error, "runtime_error"}};
constexpr row_t<cpu_isa> isas[] = {{cpu_isa::none, "none"},
        {cpu_isa::sse41, "sse41"}, {cpu_isa::avx2, "avx2"},
        {cpu_isa::avx512, "avx512"}, {cpu_isa::all, "all"}};
constexpr row_t<rng_alg> algs[] = {{rng_alg::philox4x32_10, "philox4x32_10"},
        {rng_alg::philox4x32_10_onednn, "philox4x32_10_onednn"},
        {rng_alg::threefry4x32_20, "threefry4x32_20"},
        {rng_alg::mcg31m1, "mcg31m1"}, {rng_alg::mt19937, "mt19937"},
        {rng_alg::multfly, "multfly"}};
constexpr row_t<bernoulli_method> methods[]
        = {{bernoulli_method::automatic, "auto"},
                {bernoulli_method::threshold32, "threshold32"},
                {bernoulli_method::bitsliced, "bitsliced"},
                {bernoulli_method::onednn, "onednn"},
                {bernoulli_method::bytewise, "bytewise"}};
constexpr row_t<scalar_kind> scalar_kinds[]
        = {{scalar_kind::host, "host"}, {scalar_kind::memory, "memory"}};
constexpr row_t<binary_alg> binary_algs[]
        = {{binary_alg::mul, "mul"}, {binary_alg::add, "add"}};
constexpr row_t<prop_kind> prop_kinds[]
        = {{prop_kind::forward_training, "forward_training"},
                {prop_kind::forward_inference, "forward_inference"},
                {prop_kind::backward, "backward"}};
constexpr row_t<dropout_plan> plans[] = {{dropout_plan::any, "any"},
        {dropout_plan::fused, "fused"}, {dropout_plan::chain, "chain"}};
constexpr row_t<eltwise_alg> eltwise_algs[] = {{eltwise_alg::relu, "relu"},
        {eltwise_alg::gelu_tanh, "gelu_tanh"},
        {eltwise_alg::gelu_erf, "gelu_erf"}, {eltwise_alg::linear, "linear"}};
constexpr row_t<mask_mode> mask_modes[] = {{mask_mode::bit, "bit"},
        {mask_mode::u8, "u8"}, {mask_mode::recompute, "recompute"}};

template <typename E, size_t n>
const row_t<E> *find(const row_t<E> (&table)[n], E v) {
    for (const row_t<E> &r : table)
        if (r.value == v) return &r;
    return nullptr;
}

template <typename E, size_t n>
const char *name_in(const row_t<E> (&table)[n], E v) {
    const row_t<E> *r = find(table, v);
    return r ? r->name : "unknown";
}

// The value of @p table named @p name, rows whose value is @p except left
// out (data_type::undef is no type to ask for).
// @throws error (invalid_arguments) "unknown <what> 'name' (expected a, b
//     or c)".
template <typename E, size_t n>
E parse_in(const row_t<E> (&table)[n], const std::string &name,
        const char *what, const E *except = nullptr) {
    std::string all;
    size_t listed = 0;
    for (size_t i = 0; i < n; ++i)
        if (!except || table[i].value != *except) ++listed;
    size_t k = 0;
    for (const row_t<E> &r : table) {
        if (except && r.value == *except) continue;
        if (name == r.name) return r.value;
        all += impl::cat(k == 0 ? "" : k + 1 == listed ? " or " : ", ", r.name);
        ++k;
    }
    impl::fail(status::invalid_arguments,
            impl::cat("unknown ", what, " '", escape(name), "' (expected ",
                    all, ")"));
}

template <typename E, size_t n>
std::vector<E> values_in(const row_t<E> (&table)[n]) {
    std::vector<E> v;
    for (const row_t<E> &r : table)
        v.push_back(r.value);
    return v;
}

} // namespace

const char *dt2str(data_type v) { return name_in(data_types, v); }
data_type str2dt(const std::string &name) {
    const data_type undef = data_type::undef;
    return parse_in(data_types, name, "data type", &undef);
}
const char *status2str(status v) { return name_in(statuses, v); }
const char *isa2str(cpu_isa v) { return name_in(isas, v); }
cpu_isa str2isa(const std::string &name) { return parse_in(isas, name, "ISA"); }
const char *alg2str(rng_alg v) { return name_in(algs, v); }
std::vector<rng_alg> rng_algs() { return values_in(algs); }
rng_alg str2alg(const std::string &name) {
    return parse_in(algs, name, "algorithm");
}
const char *bernoulli_method2str(bernoulli_method v) {
    return name_in(methods, v);
}
bernoulli_method str2bernoulli_method(const std::string &name) {
    return parse_in(methods, name, "bernoulli method");
}
const char *scalar_kind2str(scalar_kind v) { return name_in(scalar_kinds, v); }
const char *binary_alg2str(binary_alg v) { return name_in(binary_algs, v); }
const char *prop_kind2str(prop_kind v) { return name_in(prop_kinds, v); }
const char *dropout_plan2str(dropout_plan v) { return name_in(plans, v); }
dropout_plan str2dropout_plan(const std::string &name) {
    return parse_in(plans, name, "dropout plan");
}
const char *eltwise_alg2str(eltwise_alg v) { return name_in(eltwise_algs, v); }
const char *mask_mode2str(mask_mode v) { return name_in(mask_modes, v); }
mask_mode str2mask_mode(const std::string &name) {
    return parse_in(mask_modes, name, "mask mode");
}

namespace impl {

bool is_enumerator(data_type v) { return find(data_types, v); }
bool is_enumerator(status v) { return find(statuses, v); }
bool is_enumerator(cpu_isa v) { return find(isas, v); }
bool is_enumerator(rng_alg v) { return find(algs, v); }
bool is_enumerator(bernoulli_method v) { return find(methods, v); }
bool is_enumerator(scalar_kind v) { return find(scalar_kinds, v); }
bool is_enumerator(binary_alg v) { return find(binary_algs, v); }
bool is_enumerator(prop_kind v) { return find(prop_kinds, v); }
bool is_enumerator(dropout_plan v) { return find(plans, v); }
bool is_enumerator(eltwise_alg v) { return find(eltwise_algs, v); }
bool is_enumerator(mask_mode v) { return find(mask_modes, v); }

} // namespace impl
} // namespace rndnn
