// The attributes' implementation: post_ops (primitive_attr is inline).
#include "rndnn/attr.hpp"
#include "src/utils.hpp"

namespace rndnn {

using impl::cat;
using impl::fail;

bool post_ops::entry::operator==(const entry &o) const {
    return k == o.k && p == o.p && method == o.method && bits == o.bits
            && a == o.a && b == o.b && mean == o.mean && stddev == o.stddev
            && alpha == o.alpha && beta == o.beta;
}

void post_ops::append_bernoulli(double p, bernoulli_method method, int bits) {
    entry e {kind::bernoulli};
    e.p = p;
    e.method = method;
    e.bits = bits;
    entries_.push_back(e);
}

void post_ops::append_uniform(float a, float b) {
    entry e {kind::uniform};
    e.a = a;
    e.b = b;
    entries_.push_back(e);
}

void post_ops::append_normal(float mean, float stddev) {
    entry e {kind::normal};
    e.mean = mean;
    e.stddev = stddev;
    entries_.push_back(e);
}

void post_ops::append_linear(float alpha, float beta) {
    entry e {kind::linear};
    e.alpha = alpha;
    e.beta = beta;
    entries_.push_back(e);
}

const post_ops::entry &post_ops::get(int index) const {
    if (index < 0 || index >= len())
        fail(status::invalid_arguments,
                cat("post-op index ", index, " is outside [0, ", len(), ")"));
    return entries_[index];
}

} // namespace rndnn
