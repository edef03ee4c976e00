// Implementation lists (rng_impl_list(), apply_impl_list()): made from the
// one tier list (jit_tiers), and walked: the first entry whose init() takes
// the problem and whose kernel can be made wins; each one that declines
// says why in a verbose `check` line. A JIT entry whose code cannot be
// generated declines too (codegen_error), and the next entry runs.
#ifndef RNDNN_SRC_IMPL_LIST_HPP
#define RNDNN_SRC_IMPL_LIST_HPP

#include <memory>
#include <string>
#include <vector>

#include "src/cpu_isa.hpp"
#include "src/utils.hpp"
#include "src/verbose.hpp"

namespace rndnn {
namespace impl {

// What a JIT kernel's creation throws when its code cannot be generated:
// Xbyak refused it (a generator's check, executable memory that cannot be
// mapped or made executable, as under a W^X policy, or RNDNN_JIT_FAIL,
// the test hook of src/cpu_isa.hpp) or memory ran out while generating
// (make_jit_kernel(), src/jit/jit_generator.hpp, makes it from
// Xbyak::Error and std::bad_alloc). walk_impl_list() turns it into the
// entry's decline; where no walk catches it, it is the rndnn::error it
// derives from (runtime_error, or out_of_memory).
class codegen_error : public error {
public:
    using error::error;
};

// One entry of an implementation list for problems conf_t and kernels
// kernel_t. init() is the primitive descriptor's run of guards: it returns
// false and says why when the implementation does not apply (a JIT tier
// also declines tiers the CPU lacks and tiers above the caps). create()
// builds the kernel (and its JIT code), for a problem init() accepted; the
// primitive descriptor does, in the walk (pick_impl()), so that a kernel
// whose code cannot be generated declines (codegen_error) and the next
// entry serves.
template <typename conf_t, typename kernel_t>
struct impl_entry_t {
    const char *name; // "jit:avx2", "ref:any"
    cpu_isa isa; // the JIT tier; none for the reference
    bool (*init_fn)(cpu_isa isa, const conf_t &conf, std::string &why);
    std::unique_ptr<kernel_t> (*create_fn)(cpu_isa isa, const conf_t &conf);

    bool init(const conf_t &conf, std::string &why) const {
        return init_fn(isa, conf, why);
    }
    std::unique_ptr<kernel_t> create(const conf_t &conf) const {
        return create_fn(isa, conf);
    }
};

// The reference's init and create, which take no tier, as entry functions.
template <typename conf_t, bool (*f)(const conf_t &, std::string &)>
bool ref_init(cpu_isa, const conf_t &conf, std::string &why) {
    return f(conf, why);
}
template <typename conf_t, typename kernel_t,
        std::unique_ptr<kernel_t> (*f)(const conf_t &)>
std::unique_ptr<kernel_t> ref_create(cpu_isa, const conf_t &conf) {
    return f(conf);
}

// A JIT family's init or create function as make_impl_list() takes it:
// nullptr in a build without JIT, which defines none (jit_tiers() is then
// empty, so no entry holds it).
#if RNDNN_ENABLE_JIT
#define RNDNN_JIT_FN(f) (f)
#else
#define RNDNN_JIT_FN(f) nullptr
#endif

// The list of one kind of kernel: a JIT entry for each tier of jit_tiers,
// best first, then the reference, which takes every valid problem.
template <typename conf_t, typename kernel_t,
        bool (*ref_init_f)(const conf_t &, std::string &),
        std::unique_ptr<kernel_t> (*ref_create_f)(const conf_t &)>
std::vector<impl_entry_t<conf_t, kernel_t>> make_impl_list(
        bool (*jit_init)(cpu_isa, const conf_t &, std::string &),
        std::unique_ptr<kernel_t> (*jit_create)(cpu_isa, const conf_t &)) {
    std::vector<impl_entry_t<conf_t, kernel_t>> list;
    for (cpu_isa isa : jit_tiers())
        list.push_back({jit_impl_name(isa), isa, jit_init, jit_create});
    list.push_back({"ref:any", cpu_isa::none, ref_init<conf_t, ref_init_f>,
            ref_create<conf_t, kernel_t, ref_create_f>});
    return list;
}

// Walks @p list best first: try_entry(entry, why) returns a result that is
// true in a condition when the entry takes the problem (that result is
// returned), else a false one with why set; a codegen_error it throws (its
// JIT code cannot be generated) is a decline whose why is the error's
// message. Each decline is logged as a verbose `check` line
// "name,info,declined: why" and appended to @p declines ("name: why;
// ..."). Returns a false result if none takes it. Every implementation list
// (rng, apply, softmax-dropout rows, dropout plans) is walked here.
template <typename entry_t, typename try_t>
auto walk_impl_list(const std::vector<entry_t> &list, const std::string &info,
        const try_t &try_entry, std::string &declines)
        -> decltype(try_entry(list.front(), declines)) {
    for (const entry_t &entry : list) {
        std::string why;
        try {
            auto taken = try_entry(entry, why);
            if (taken) return taken;
        } catch (const codegen_error &e) {
            why = e.what();
        }
        verbose_print(verbose_t::check, "check",
                cat(entry.name, ",", info, ",declined: ", why));
        declines += cat(declines.empty() ? "" : "; ", entry.name, ": ", why);
    }
    return {};
}

// What pick_impl() returns: the entry that serves and the kernel it made.
// Kernels are immutable (their calls are const), so that the primitives
// of one primitive descriptor share its kernel.
template <typename entry_t, typename kernel_t>
struct picked_t {
    const entry_t *entry = nullptr;
    std::shared_ptr<const kernel_t> kernel;
    explicit operator bool() const { return kernel != nullptr; }
    const char *name() const { return entry->name; }
};

// The first entry of @p list whose init() takes @p init_conf and whose
// kernel, make(entry), can be made (make returns a std::unique_ptr to a
// kernel; its codegen_error declines the entry).
// @throws error (unimplemented) naming `info` and every decline if no
// entry takes the problem; what make throws otherwise.
template <typename entry_t, typename conf_t, typename make_t>
auto pick_impl(const std::vector<entry_t> &list, const conf_t &init_conf,
        const std::string &info, const make_t &make)
        -> picked_t<entry_t,
                typename decltype(make(list.front()))::element_type> {
    using kernel_t = typename decltype(make(list.front()))::element_type;
    std::string declines;
    auto taken = walk_impl_list(list, info,
            [&](const entry_t &entry, std::string &why) {
                picked_t<entry_t, kernel_t> p;
                if (!entry.init(init_conf, why)) return p;
                p.entry = &entry;
                p.kernel = make(entry);
                return p;
            },
            declines);
    if (!taken)
        fail(status::unimplemented,
                cat("no implementation for ", info, ": ", declines));
    return taken;
}

// The same for the kernel of @p conf itself (entry.create(conf)).
template <typename entry_t, typename conf_t>
auto pick_impl(const std::vector<entry_t> &list, const conf_t &conf,
        const std::string &info) {
    return pick_impl(list, conf, info,
            [&](const entry_t &entry) { return entry.create(conf); });
}

} // namespace impl
} // namespace rndnn

#endif
