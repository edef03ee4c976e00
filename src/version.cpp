// The library's version (include/rndnn/version.hpp, generated).
#include "rndnn/version.hpp"

namespace rndnn {

const version_t &version() {
    static const version_t v = {RNDNN_VERSION_MAJOR, RNDNN_VERSION_MINOR,
            RNDNN_VERSION_PATCH, RNDNN_VERSION_STRING, RNDNN_GIT_HASH};
    return v;
}

} // namespace rndnn
