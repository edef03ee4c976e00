// libFuzzer target: rndnn::npy::load on arbitrary bytes.
//
// Expected: rndnn::error. Anything else is a finding: a crash, a sanitizer
// report, another exception, or an allocation past -malloc_limit_mb (the
// loader must not allocate what a header claims before the bytes are
// there; scripts/fuzz.sh allows 64 MiB for inputs of at most 4 KiB).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "rndnn/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(
        const std::uint8_t *data, std::size_t size) {
    std::istringstream is(
            std::string(reinterpret_cast<const char *>(data), size));
    try {
        (void)rndnn::npy::load(is);
    } catch (const rndnn::error &) {
    }
    return 0;
}
