// `rndnn verify`: the library's built-in known-answer checks.
#include <iostream>

#include "common/cli_common.hpp"

namespace rndnn_cli {

int verify_main(int argc, char **argv) {
    const po::options_description desc = options_with_help();
    po::variables_map vm;
    if (!parse_options(argc, argv, desc, "rndnn verify", vm)) return exit_ok;

    int passed = 0, failed = 0;
    for (const rndnn::known_answer_t &r : rndnn::run_known_answers()) {
        if (r.passed) {
            std::cout << "PASS " << r.name << "\n";
            ++passed;
        } else {
            std::cout << "FAIL " << r.name << ": " << r.detail << "\n";
            ++failed;
        }
    }
    std::cout << passed << " passed, " << failed << " failed\n";
    return failed == 0 ? exit_ok : exit_failure;
}

} // namespace rndnn_cli
