// RNDNN_VERBOSE: one comma-separated line per event on stdout.
//   none | 0       nothing
//   error          errors (the default)
//   check          also why an implementation declined a problem
//   dispatch       also one line per primitive creation
//   profile | 1    also one line per execution, with its time
// The variable is read once, at the first use.
#ifndef RNDNN_SRC_VERBOSE_HPP
#define RNDNN_SRC_VERBOSE_HPP

#include <string>

namespace rndnn {
namespace impl {

enum class verbose_t { none, error, check, dispatch, profile };

verbose_t verbose_level();
inline bool verbose_on(verbose_t level) { return verbose_level() >= level; }
// Prints "rndnn_verbose,<kind>,<text>" if level is enabled.
void verbose_print(verbose_t level, const char *kind, const std::string &text);
// Milliseconds from a steady clock.
double now_ms();

} // namespace impl
} // namespace rndnn

#endif
