// Walking an implementation list (rng_impl_list(), apply_impl_list()): the
// first entry whose init() takes the problem wins; each one that declines
// says why in a verbose `check` line.
#ifndef RNDNN_SRC_IMPL_LIST_HPP
#define RNDNN_SRC_IMPL_LIST_HPP

#include <string>
#include <vector>

#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {
namespace impl {

// entry_t has `const char *name` and `bool (*init)(const conf_t &,
// std::string &why)`. @throws error (unimplemented) naming `info` if no
// entry takes conf.
template <typename entry_t, typename conf_t>
const entry_t &pick_impl(const std::vector<entry_t> &list, const conf_t &conf,
        const std::string &info) {
    for (const entry_t &entry : list) {
        std::string why;
        if (entry.init(conf, why)) return entry;
        verbose_print(verbose_t::check, "check",
                cat(entry.name, ",", info, ",declined: ", why));
    }
    fail(status::unimplemented, cat("no implementation for ", info));
}

} // namespace impl
} // namespace rndnn

#endif
