// libFuzzer target: the `rndnn bench --batch` file parser
// (for_each_batch_problem in tools/bench/cli_bench_batch.cpp) on arbitrary bytes
// as the file's content.
//
// Expected: usage_error (a bad line, as NAME:LINE: message, or no problem
// at all) and rndnn::error (the library refused a problem, prefixed the
// same way). Anything else is a finding, as is a problem returned without
// its kind, implementation name or text.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "bench/cli_bench_batch.hpp"
#include "fuzz/fuzz_util.hpp"

namespace {

const char *const batch_name = "fuzz.batch";

// A message of the parser names the file.
void expect_named(const char *message) {
    if (std::string(message).compare(0, 11, "fuzz.batch:") != 0
            && std::string(message).find("'fuzz.batch'") == std::string::npos)
        rndnn_fuzz::finding(std::string("a --batch error does not name the"
                                        " file: ")
                + message);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(
        const std::uint8_t *data, std::size_t size) {
    using namespace rndnn_cli;
    static const po::options_description desc = problem_options();
    std::istringstream is(
            std::string(reinterpret_cast<const char *>(data), size));
    try {
        for_each_batch_problem(is, batch_name, desc, [](const problem_t &p) {
            if (p.kind == nullptr || p.impl.empty() || p.text.empty())
                rndnn_fuzz::finding("the batch parser gave a problem without"
                                    " kind, impl or text: '" + p.text + "'");
        });
    } catch (const usage_error &e) {
        expect_named(e.what());
    } catch (const rndnn::error &e) {
        expect_named(e.what());
    }
    return 0;
}
