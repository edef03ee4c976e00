// The attributes' implementation: post_ops, primitive_attr::set_post_ops
// (the rest of primitive_attr is inline).
#include "rndnn/attr.hpp"
#include "src/utils.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;

bool post_ops::entry::operator==(const entry &o) const {
    return k == o.k && p == o.p && method == o.method && bits == o.bits
            && a == o.a && b == o.b && mean == o.mean && stddev == o.stddev
            && alpha == o.alpha && beta == o.beta && low == o.low
            && high == o.high && loc == o.loc && scale == o.scale && n == o.n;
}

post_ops::entry &post_ops::push(kind k) {
    entries_.push_back(entry {k});
    return entries_.back();
}

void post_ops::append_bernoulli(double p, bernoulli_method method, int bits) {
    entry &e = push(kind::bernoulli);
    e.p = p;
    e.method = method;
    e.bits = bits;
}

void post_ops::append_uniform(double a, double b) {
    entry &e = push(kind::uniform);
    e.a = a;
    e.b = b;
}

void post_ops::append_normal(double mean, double stddev) {
    entry &e = push(kind::normal);
    e.mean = mean;
    e.stddev = stddev;
}

void post_ops::append_integers(int64_t low, int64_t high) {
    entry &e = push(kind::integers);
    e.low = low;
    e.high = high;
}

void post_ops::append_exponential(double scale) {
    entry &e = push(kind::exponential);
    e.scale = scale;
}

void post_ops::append_gumbel(double loc, double scale) {
    entry &e = push(kind::gumbel);
    e.loc = loc;
    e.scale = scale;
}

void post_ops::append_laplace(double loc, double scale) {
    entry &e = push(kind::laplace);
    e.loc = loc;
    e.scale = scale;
}

void post_ops::append_rayleigh(double scale) {
    entry &e = push(kind::rayleigh);
    e.scale = scale;
}

void post_ops::append_lognormal(double mean, double sigma) {
    entry &e = push(kind::lognormal);
    e.mean = mean;
    e.stddev = sigma;
}

void post_ops::append_permutation(int64_t n) {
    entry &e = push(kind::permutation);
    e.n = n;
}

void post_ops::append_truncated_normal(
        double mean, double stddev, double a, double b) {
    entry &e = push(kind::truncated_normal);
    e.mean = mean;
    e.stddev = stddev;
    e.a = a;
    e.b = b;
}

void post_ops::append_linear(float alpha, float beta) {
    entry &e = push(kind::linear);
    e.alpha = alpha;
    e.beta = beta;
}

const std::vector<distribution_info> &distributions() {
    static const std::vector<distribution_info> table = {
            {"bits", {}, {data_type::u32}, "1 an element"},
            {"bernoulli", {{"p", 0.5, "probability of a 1", "in [0, 1]"}},
                    {data_type::bit, data_type::u8, data_type::s32,
                            data_type::f32},
                    "1 an element (threshold32, onednn); b a group of 32 "
                    "elements (bitsliced:b); 1 a group of 4 and the ties' "
                    "(bytewise)"},
            {"uniform",
                    {{"a", 0.0, "lower end (included)", "finite"},
                            {"b", 1.0, "upper end (reached only by rounding)",
                                    "finite, >= a"}},
                    {data_type::f32, data_type::bf16, data_type::f16,
                            data_type::f64},
                    "1 an element (f64: 2, 53 bits)"},
            {"normal",
                    {{"mean", 0.0, "mean", "finite"},
                            {"stddev", 1.0, "standard deviation", ">= 0"}},
                    {data_type::f32, data_type::bf16, data_type::f16,
                            data_type::f64},
                    "1 an element (2 a pair of Box-Muller; f64: 2, 4 a pair)"},
            {"integers",
                    {{"low", 0, "lowest value (included)", "an s64", true},
                            {"high", 2, "end (excluded)",
                                    "an s64, > low", true}},
                    {data_type::s64, data_type::s32, data_type::u8,
                            data_type::f32},
                    "2 an element (high - low <= 2^32), else 4"},
            {"exponential", {{"scale", 1.0, "scale (the mean)", ">= 0"}},
                    {data_type::f32, data_type::bf16, data_type::f16,
                            data_type::f64},
                    "1 an element (f64: 2, 53 bits)"},
            {"gumbel",
                    {{"loc", 0.0, "location (the mode)", "finite"},
                            {"scale", 1.0, "scale", ">= 0"}},
                    {data_type::f32, data_type::bf16, data_type::f16,
                            data_type::f64},
                    "1 an element (f64: 2, 53 bits)"},
            {"lognormal",
                    {{"mean", 0.0, "mean of the underlying normal", "finite"},
                            {"sigma", 1.0,
                                    "standard deviation of the underlying "
                                    "normal",
                                    ">= 0"}},
                    {data_type::f32, data_type::bf16, data_type::f16,
                            data_type::f64},
                    "1 an element (2 a pair of Box-Muller, as normal; f64: 2, 4 "
                    "a pair)"},
            {"permutation",
                    {{"n", 1, "length of the permuted range [0, n)",
                            "an s64, >= 1, above every element's index",
                            true}},
                    {data_type::s64, data_type::s32},
                    "none: Philox4x32-10 of the seed and stream, 8 blocks "
                    "a Feistel pass, a pass or more an element (cycle "
                    "walking); each value depends on (seed, stream, n, g) "
                    "only"},
            {"truncated_normal",
                    {{"mean", 0.0, "mean of the untruncated normal", "finite"},
                            {"stddev", 1.0,
                                    "standard deviation of the untruncated "
                                    "normal",
                                    "> 0"},
                            {"a", -2.0, "lower bound (absolute, included)",
                                    "finite, (a - mean) / stddev < 9"},
                            {"b", 2.0, "upper bound (absolute, included)",
                                    "finite, > a, (b - mean) / stddev > -9"}},
                    {data_type::f32, data_type::bf16, data_type::f16,
                            data_type::f64},
                    "1 an element (f64: 2, 52 bits)"},
            {"laplace",
                    {{"loc", 0.0, "location (the mean and median)", "finite"},
                            {"scale", 1.0, "scale", ">= 0"}},
                    {data_type::f32, data_type::bf16, data_type::f16,
                            data_type::f64},
                    "1 an element: 24 bits and bit 0, the sign (f64: 2, 53 bits "
                    "and bit 0)"},
            {"rayleigh", {{"scale", 1.0, "scale (the mode)", ">= 0"}},
                    {data_type::f32, data_type::bf16, data_type::f16,
                            data_type::f64},
                    "1 an element (f64: 2, 53 bits)"}};
    return table;
}

const distribution_info &find_distribution(const std::string &name) {
    std::string names;
    const auto &table = distributions();
    for (size_t i = 0; i < table.size(); ++i) {
        if (name == table[i].name) return table[i];
        names += cat(i == 0 ? "" : i + 1 == table.size() ? " or " : ", ",
                table[i].name);
    }
    fail(status::invalid_arguments,
            cat("unknown distribution '", escape(name), "' (expected ", names,
                    ")"));
}

void post_ops::append_distribution(const std::string &name,
        const std::vector<double> &values, bernoulli_method method, int bits,
        const std::vector<int64_t> &integers) {
    const distribution_info &d = find_distribution(name);
    size_t n_int = 0;
    for (const auto &p : d.params)
        n_int += p.integer;
    const size_t n_real = d.params.size() - n_int;
    if (values.size() != n_real || integers.size() != n_int)
        fail(status::invalid_arguments,
                cat("distribution ", d.name, " takes ", n_real,
                        " real and ", n_int, " integer parameters, got ",
                        values.size(), " and ", integers.size()));
    const std::string n = d.name;
    if (n == "bernoulli") append_bernoulli(values[0], method, bits);
    else if (n == "uniform") append_uniform(values[0], values[1]);
    else if (n == "normal") append_normal(values[0], values[1]);
    else if (n == "integers") append_integers(integers[0], integers[1]);
    else if (n == "exponential") append_exponential(values[0]);
    else if (n == "gumbel") append_gumbel(values[0], values[1]);
    else if (n == "lognormal") append_lognormal(values[0], values[1]);
    else if (n == "permutation") append_permutation(integers[0]);
    else if (n == "truncated_normal")
        append_truncated_normal(values[0], values[1], values[2], values[3]);
    else if (n == "laplace")
        append_laplace(values[0], values[1]);
    else if (n == "rayleigh") append_rayleigh(values[0]);
}

void primitive_attr::set_post_ops(const post_ops &po) { post_ops_ = po; }

const post_ops::entry &post_ops::get(int index) const {
    if (index < 0 || index >= len())
        fail(status::invalid_arguments,
                cat("post-op index ", index, " is outside [0, ", len(), ")"));
    return entries_[index];
}

} // namespace rndnn
