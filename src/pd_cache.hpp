// The cache of primitive descriptors: creating one equal to one made before
// shares the first one's implementation (its configuration, the chosen
// entry, its kernels and their JIT code) instead of checking, walking the
// implementation list and generating code again.
#ifndef RNDNN_SRC_PD_CACHE_HPP
#define RNDNN_SRC_PD_CACHE_HPP

#include <cstddef>
#include <cstring>
#include <functional>
#include <list>
#include <memory>
#include <mutex>

#include "rndnn/attr.hpp"
#include "rndnn/memory.hpp"
#include "src/cpu_isa.hpp"
#include "src/jit_tuning.hpp"
#include "src/verbose.hpp"

namespace rndnn {
namespace impl {

// Entries a cache keeps: the least recently used leaves past this.
constexpr std::size_t pd_cache_capacity = 128;

// Whether two doubles are the same bits (== takes -0.0 for +0.0, and the
// two can give different values).
inline bool same_bits(double a, double b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Whether two attributes are equal with every real parameter the same
// bits.
inline bool same_attr(const primitive_attr &a, const primitive_attr &b) {
    if (!(a == b)) return false;
    const post_ops &pa = a.get_post_ops(), &pb = b.get_post_ops();
    for (int i = 0; i < pa.len(); ++i) {
        const post_ops::entry &x = pa.get(i), &y = pb.get(i);
        if (!same_bits(x.p, y.p) || !same_bits(x.a, y.a)
                || !same_bits(x.b, y.b) || !same_bits(x.mean, y.mean)
                || !same_bits(x.stddev, y.stddev) || !same_bits(x.loc, y.loc)
                || !same_bits(x.scale, y.scale)
                || !same_bits(x.alpha, y.alpha) || !same_bits(x.beta, y.beta))
            return false;
    }
    return true;
}

// Whether creation may use the cache: not where RNDNN_VERBOSE asks for the
// walk's lines (check and above), which a creation from the cache would
// not print.
inline bool pd_cache_usable() { return !verbose_on(verbose_t::check); }

// A primitive descriptor's cache: (desc, attribute, the test hook's tier,
// the JIT tuning's epoch: kernels made under values that set_jit_tuning()
// forced are not those of another set) to the shared implementation. `same` decides equal descs (== with their
// real numbers the same bits); `hash` is a cheap digest of a desc that
// equal descs share. Thread safe; creation itself runs outside the lock,
// so that two threads creating the same descriptor may both create it
// (the later one's entry replaces the earlier).
template <typename Desc, typename Impl>
class pd_cache_t {
public:
    using same_fn = bool (*)(const Desc &, const Desc &);
    using hash_fn = std::size_t (*)(const Desc &);
    pd_cache_t(same_fn same, hash_fn hash) : same_(same), hash_(hash) {}

    // The implementation made for an equal key, or null.
    // @throws error naming a bad RNDNN_JIT_FAIL (jit_fail_isa()).
    std::shared_ptr<Impl> find(const Desc &d, const primitive_attr &a) {
        const std::size_t h = hash_(d);
        const cpu_isa fail = jit_fail_isa();
        const uint64_t tuning = jit_tuning_epoch();
        const std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it) {
            if (it->hash != h || it->fail != fail || it->tuning != tuning
                    || !same_(it->d, d) || !same_attr(it->a, a))
                continue;
            entries_.splice(entries_.begin(), entries_, it); // most recent
            return entries_.front().impl;
        }
        return nullptr;
    }

    // Keeps impl as the implementation of (d, a).
    void insert(const Desc &d, const primitive_attr &a,
            std::shared_ptr<Impl> impl) {
        entry_t e {hash_(d), jit_fail_isa(), jit_tuning_epoch(), d, a,
                std::move(impl)};
        const std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->hash == e.hash && it->fail == e.fail
                    && it->tuning == e.tuning && same_(it->d, d)
                    && same_attr(it->a, a)) {
                entries_.erase(it);
                break;
            }
        entries_.push_front(std::move(e));
        if (entries_.size() > pd_cache_capacity) entries_.pop_back();
    }

    std::size_t size() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return entries_.size();
    }
    void clear() {
        const std::lock_guard<std::mutex> lock(mutex_);
        entries_.clear();
    }

private:
    struct entry_t {
        std::size_t hash;
        cpu_isa fail; // jit_fail_isa() when it was made
        uint64_t tuning; // jit_tuning_epoch() when it was made
        Desc d;
        primitive_attr a;
        std::shared_ptr<Impl> impl;
    };
    same_fn same_;
    hash_fn hash_;
    std::mutex mutex_;
    std::list<entry_t> entries_; // most recently used first
};

// A digest of a memory descriptor's dims and data type.
inline std::size_t hash_md(std::size_t h, const memory::desc &md) {
    const auto mix = [&](std::size_t v) {
        h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    };
    for (dim_t d : md.get_dims())
        mix(std::hash<dim_t>()(d));
    mix(static_cast<std::size_t>(md.get_data_type()));
    return h;
}

} // namespace impl
} // namespace rndnn

#endif
