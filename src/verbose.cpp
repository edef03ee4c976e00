// The RNDNN_VERBOSE log: level parsing, line printing, the clock.
#include "src/verbose.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "rndnn/common.hpp"

namespace rndnn {
namespace impl {

namespace {
verbose_t parse_level(const char *s) {
    if (!s) return verbose_t::none;
    const struct {
        const char *name;
        verbose_t level;
    } names[] = {{"none", verbose_t::none}, {"0", verbose_t::none},
            {"error", verbose_t::error}, {"check", verbose_t::check},
            {"dispatch", verbose_t::dispatch}, {"profile", verbose_t::profile},
            {"1", verbose_t::profile}, {"all", verbose_t::profile}};
    for (const auto &n : names)
        if (std::strcmp(s, n.name) == 0) return n.level;
    std::fprintf(stderr,
            "rndnn_verbose,warning,RNDNN_VERBOSE=%s is not one of "
            "none|error|check|dispatch|profile|0|1; using none\n",
            rndnn::escape(s).c_str());
    return verbose_t::none;
}
} // namespace

verbose_t verbose_level() {
    static const verbose_t level = parse_level(std::getenv("RNDNN_VERBOSE"));
    return level;
}

void verbose_print(verbose_t level, const char *kind, const std::string &text) {
    if (!verbose_on(level)) return;
    // On stderr, as one write: stdout may carry data, and the lines of
    // threads and processes that share stderr stay whole.
    const std::string line
            = std::string("rndnn_verbose,") + kind + "," + text + "\n";
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

void verbose_error(const char *call, const error &e) {
    verbose_print(verbose_t::error, "error",
            std::string(call) + "," + status2str(e.status()) + ","
                    + e.what());
}

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(
            steady_clock::now().time_since_epoch())
            .count();
}

} // namespace impl
} // namespace rndnn
