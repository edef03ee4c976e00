#include "pipeline/apply.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {
namespace impl {

const std::vector<apply_impl_t> &apply_impl_list() {
    static const std::vector<apply_impl_t> list = {
            {"ref:any", init_ref_apply, create_ref_apply},
    };
    return list;
}

const apply_impl_t &pick_apply_impl(
        const apply_conf_t &conf, const std::string &info) {
    for (const apply_impl_t &entry : apply_impl_list()) {
        std::string why;
        if (entry.init(conf, why)) return entry;
        verbose_print(verbose_t::check, "check",
                cat(entry.name, ",", info, ",declined: ", why));
    }
    return apply_impl_list().back(); // the reference takes every problem
}

} // namespace impl
} // namespace rndnn
