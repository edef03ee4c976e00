// RNDNN_VERBOSE: one comma-separated line per event on stderr (never
// stdout, where a program may write data: `rndnn gen --out -`).
//   none | 0       nothing (the default)
//   error          each error a primitive's creation or execution, or a
//                  graph's finalize, compile or execution, throws
//   check          also why an implementation declined a problem
//   dispatch       also one line per primitive creation
//   profile | 1    also one line per execution, with its time
// The variable is read once, at the first use.
#ifndef RNDNN_SRC_VERBOSE_HPP
#define RNDNN_SRC_VERBOSE_HPP

#include <string>

#include "rndnn/common.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

enum class verbose_t { none, error, check, dispatch, profile };

verbose_t verbose_level();
inline bool verbose_on(verbose_t level) { return verbose_level() >= level; }
// Prints "rndnn_verbose,<kind>,<text>" if level is enabled.
void verbose_print(verbose_t level, const char *kind, const std::string &text);
// Runs f() and returns what it returns: the boundary of every public
// primitive and graph call. An rndnn::error it throws is printed at level
// error as "rndnn_verbose,error,<call>,<status>,<message>" and rethrown;
// only the outermost such call on a thread prints (a graph's compile
// creates primitives), so each failed public call prints once. Any other
// exception (std::bad_alloc, oneDNN's, Xbyak's, std::system_error) leaves
// as the rndnn::error foreign_error() makes of it (src/utils.hpp), printed
// the same way: no foreign exception type leaves the library.
class verbose_call_t {
public:
    verbose_call_t() { ++depth(); }
    ~verbose_call_t() { --depth(); }
    verbose_call_t(const verbose_call_t &) = delete;
    verbose_call_t &operator=(const verbose_call_t &) = delete;
    bool outermost() const { return depth() == 1; }

private:
    static int &depth() {
        thread_local int d = 0;
        return d;
    }
};
void verbose_error(const char *call, const error &e);
template <typename F>
auto verbose_errors(const char *call, const F &f) -> decltype(f()) {
    const verbose_call_t scope;
    try {
        return f();
    } catch (const error &e) {
        if (scope.outermost()) verbose_error(call, e);
        throw;
    } catch (...) {
        const error e = foreign_error(call);
        if (scope.outermost()) verbose_error(call, e);
        throw e;
    }
}

// Milliseconds from a steady clock.
double now_ms();

} // namespace impl
} // namespace rndnn

#endif
