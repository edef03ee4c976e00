/// @file
/// Built-in known-answer checks (what `rndnn verify` runs).
#ifndef RNDNN_VERIFY_HPP
#define RNDNN_VERIFY_HPP

#include <string>
#include <vector>

#include "rndnn/common.hpp"

namespace rndnn {

/// The outcome of one known-answer check.
struct known_answer_t {
    std::string name; ///< e.g. "philox4x32_10 ctr=0 key=0"
    bool passed;
    std::string detail; ///< expected and actual words when it failed
};

/// Runs every built-in known-answer check: each engine's published
/// answers (docs/semantics.md names their sources: Random123, std::mt19937,
/// MKL's MCG31m1, the Multfly reference), and the same answers taken
/// through the RNG primitive where the stream layout can reach them.
/// Never throws for a failed check; the result says which failed.
RNDNN_API std::vector<known_answer_t> run_known_answers();

} // namespace rndnn

#endif
