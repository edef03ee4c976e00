// What `rndnn bench` prints (cli_bench_report.hpp): the table, the CSV and
// its quoting.
#include "cli_bench_report.hpp"

#include <cstdio>
#include <iostream>

#include "common/cli_output.hpp"

namespace rndnn_cli {

namespace {

using std::string;

string num(const char *format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// RFC 4180: always quoted, an embedded quote doubled.
string csv_quote(const string &s) {
    string q = "\"";
    for (char c : s)
        q += c == '"' ? string("\"\"") : string(1, c);
    return q + "\"";
}

const char *const csv_header = "problem,impl,threads,elements,median_s,"
                               "gelem_per_s,gb_per_s,ratio_to_memcpy,"
                               "ratio_to_reference";

} // namespace

void print_header(bool csv, int width) {
    if (csv) {
        std::cout << csv_header << "\n";
        return;
    }
    char line[256];
    std::snprintf(line, sizeof line, "%-*s %7s %12s %12s %9s %9s %9s %9s  %s",
            width, "impl", "threads", "elements", "median_s", "Gelem/s", "GB/s",
            "to_memcpy", "to_ref", "problem");
    std::cout << line << "\n";
}

void print_result(bool csv, int width, const problem_t &p,
        const prepared_t &t, const medians_t &m) {
    const double elements = static_cast<double>(t.elements);
    const double bytes = static_cast<double>(t.bytes);
    const double gelem = elements / m.impl / 1e9;
    const double gb = bytes / m.impl / 1e9;
    const double to_memcpy = m.memcpy / m.impl;
    const double to_ref = m.ref / m.impl;
    const int threads = p.strm.get_nthreads();
    if (csv) {
        std::cout << csv_quote(rndnn::escape(p.text)) << "," << p.impl << "," << threads
                  << "," << t.elements << "," << num("%.6g", m.impl) << ","
                  << num("%.6g", gelem) << "," << num("%.6g", gb) << ","
                  << num("%.4g", to_memcpy) << "," << num("%.4g", to_ref)
                  << "\n";
    } else {
        char line[256];
        std::snprintf(line, sizeof line,
                "%-*s %7d %12lld %12.6g %9.4g %9.4g %9.3g %9.3g  ", width,
                p.impl.c_str(), threads, static_cast<long long>(t.elements),
                m.impl, gelem, gb, to_memcpy, to_ref);
        std::cout << line << rndnn::escape(p.text) << "\n";
    }
    flush_stdout(); // stops at a closed pipe
}

} // namespace rndnn_cli
