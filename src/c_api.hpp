// The boundary of the C API (include/rndnn.h): c_call() runs a C
// function's body, turning every exception into a status and the thread's
// last error message, so that no C++ exception reaches a C caller.
#ifndef RNDNN_SRC_C_API_HPP
#define RNDNN_SRC_C_API_HPP

#include <string>

#include "rndnn.h"
#include "rndnn/common.hpp"
#include "src/utils.hpp"

namespace rndnn {
namespace impl {

// The thread's last error message (rndnn_last_error_message()).
std::string &last_error();
// Sets the thread's last error message; a message that cannot be copied
// (no memory) leaves it empty rather than throwing.
inline void set_last_error(const char *message) noexcept {
    try {
        last_error() = message;
    } catch (...) {
        last_error().clear();
    }
}

// Runs f(): rndnn_success, or the status and message of what it threw,
// a foreign exception as foreign_error(call) names it. Nothing leaves.
template <typename F>
rndnn_status_t c_call(const char *call, const F &f) noexcept {
    try {
        try {
            f();
            last_error().clear();
            return rndnn_success;
        } catch (const error &) {
            throw;
        } catch (...) {
            throw foreign_error(call);
        }
    } catch (const error &e) {
        set_last_error(e.what());
        return static_cast<rndnn_status_t>(e.status());
    } catch (...) { // foreign_error() itself ran out of memory
        set_last_error("out of memory");
        return rndnn_out_of_memory;
    }
}

} // namespace impl
} // namespace rndnn

#endif
