// Shared pieces of the rndnn CLI: parsing, options, the exit-status policy.
#include "cli_common.hpp"
#include "cli_output.hpp"

#include <charconv>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <new>
#include <vector>

namespace rndnn_cli {

namespace {

std::string message_prefix = "rndnn: ";

} // namespace

void set_message_prefix(const std::string &prefix) { message_prefix = prefix; }

int run_guarded(const std::string &program, const std::function<int()> &fn) {
    // Each message is one write, so that the lines of ranks under mpirun,
    // which share stderr, do not interleave. A usage error also tells
    // where the full list of options is.
    const auto say = [](const std::string &text, bool hint_help,
                             const std::string &prog) {
        std::string line = message_prefix + text + "\n";
        if (hint_help) line += "Try '" + rndnn::escape(prog) + " --help'.\n";
        std::cerr.write(line.data(), static_cast<std::streamsize>(line.size()));
    };
    try {
        const int status = fn();
        flush_stdout();
        return status;
    } catch (const closed_pipe &) {
        return exit_ok;
    } catch (const usage_error &e) {
        say(rndnn::escape(e.what()), true, program);
        return exit_usage;
    } catch (const po::error &e) {
        say(rndnn::escape(e.what()), true, program);
        return exit_usage;
    } catch (const rndnn::error &e) {
        say(rndnn::escape(e.what()), false, program);
        return e.status() == rndnn::status::invalid_arguments ? exit_usage
                                                              : exit_failure;
    } catch (const std::bad_alloc &) {
        say("out of memory", false, program);
        return exit_failure;
    } catch (const std::exception &e) { // io_error and the rest
        say(rndnn::escape(e.what()), false, program);
        return exit_failure;
    } catch (...) { // nothing the library throws: it throws rndnn::error
        say("an exception that is no std::exception", false, program);
        return exit_failure;
    }
}

bool parse_options(int argc, char **argv, const po::options_description &desc,
        const std::string &usage, po::variables_map &vm) {
    // argv[0] is the subcommand name.
    return parse_options(std::vector<std::string>(argv + 1, argv + argc), desc,
            usage, vm);
}

bool parse_options(const std::vector<std::string> &words,
        const po::options_description &desc, const std::string &usage,
        po::variables_map &vm, std::vector<po::option> *parsed) {
    // Long options only: with short options on, Boost would read the "-5"
    // of "--seed -5" as an option instead of the value, unlike getopt_long.
    // Boost's messages substitute these placeholders with the words
    // themselves, again and again: a word holding one would never finish
    // (Boost 1.74, error_with_option_name::replace_token).
    for (const std::string &w : words)
        for (const char *key : {"%option%", "%original_token%",
                     "%canonical_option%", "%prefix%", "%value%",
                     "%invalid_line%"})
            if (w.find(key) != std::string::npos)
                throw usage_error("'" + w + "' holds '" + key
                        + "', which option messages cannot quote");
    const size_t most = 2 * desc.options().size();
    if (words.size() > most)
        throw usage_error(std::to_string(words.size())
                + " words of options, more than the " + std::to_string(most)
                + " that every option with a value would take");
    const int style = po::command_line_style::unix_style
            & ~po::command_line_style::allow_short;
    const po::parsed_options options
            = po::command_line_parser(words).options(desc).style(style).run();
    // Without a positional description Boost keeps stray words quietly;
    // every subcommand takes options only, so name the first stray word.
    for (const po::option &o : options.options)
        if (o.position_key != -1 && !o.value.empty())
            throw usage_error("unexpected argument '" + o.value[0] + "'");
    po::store(options, vm);
    if (parsed) *parsed = options.options;
    if (vm.count("help")) {
        std::cout << "Usage: " << usage << "\n\n" << desc;
        return false;
    }
    po::notify(vm);
    return true;
}

po::options_description options_with_help(const std::string &caption) {
    po::options_description desc(caption);
    desc.add_options()("help", "print this help and exit");
    return desc;
}

po::typed_value<std::string> *text() {
    return po::value<std::string>();
}

po::typed_value<std::string> *text(const std::string &default_value) {
    return po::value<std::string>()->default_value(default_value);
}

bool given(const po::variables_map &vm, const char *flag) {
    const auto it = vm.find(flag);
    return it != vm.end() && !it->second.defaulted();
}

namespace {

// Parses all of text with std::from_chars, which already refuses leading
// spaces and '+'; what is left is trailing junk.
template <typename T>
T parse_number(const std::string &flag, const std::string &text,
        const char *what, const std::string &range) {
    T value {};
    const char *end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, value);
    if (r.ec == std::errc::result_out_of_range)
        throw usage_error(flag + " '" + text + "' is out of range " + range);
    if (r.ec != std::errc() || r.ptr != end || text.empty())
        throw usage_error(flag + " '" + text + "' is not " + what);
    return value;
}

template <typename T>
std::string int_range() {
    return "[" + std::to_string(std::numeric_limits<T>::min()) + ", "
            + std::to_string(std::numeric_limits<T>::max()) + "]";
}

} // namespace

std::int64_t parse_s64(const std::string &flag, const std::string &text) {
    return parse_number<std::int64_t>(
            flag, text, "an integer", int_range<std::int64_t>());
}

std::uint64_t parse_u64(const std::string &flag, const std::string &text) {
    return parse_number<std::uint64_t>(
            flag, text, "a non-negative integer", int_range<std::uint64_t>());
}

int parse_int(const std::string &flag, const std::string &text) {
    return parse_number<int>(flag, text, "an integer", int_range<int>());
}

double parse_double(const std::string &flag, const std::string &text) {
    return parse_number<double>(flag, text, "a number", "of double");
}

double parse_probability(const std::string &flag, const std::string &text) {
    const double v = parse_double(flag, text);
    if (!(v >= 0 && v <= 1))
        throw usage_error(flag + " '" + text + "' is outside [0, 1]");
    return v;
}

rndnn::dims parse_shape(const std::string &flag, const std::string &text) {
    rndnn::dims shape;
    size_t start = 0;
    while (true) {
        const size_t x = text.find('x', start);
        const std::string dim = text.substr(
                start, x == std::string::npos ? std::string::npos : x - start);
        // Digits only: "-3", "+3" and " 3" are not dims.
        const bool digits = !dim.empty()
                && dim.find_first_not_of("0123456789") == std::string::npos;
        if (!digits)
            throw usage_error(flag + " '" + text + "': '" + dim
                    + "' is not a dim (expected non-negative integers joined"
                      " by 'x', e.g. 64x128x1024)");
        shape.push_back(parse_s64(flag + " '" + text + "': dim", dim));
        if (x == std::string::npos) break;
        start = x + 1;
    }
    return shape;
}

void add_stream_options(po::options_description &desc, const char *what) {
    auto opt = desc.add_options();
    std::string algs;
    for (rndnn::rng_alg a : rndnn::rng_algs())
        algs += (algs.empty() ? "" : ", ") + std::string(rndnn::alg2str(a));
    opt("alg", text("philox4x32_10"), ("word generator: " + algs).c_str());
    opt("seed", text("0"), "seed, a signed 64-bit integer");
    opt("offset", text("0"),
            (std::string("stream index of the first ") + what + ", >= 0")
                    .c_str());
    opt("stream", text("0"),
            "stream (subsequence) id, an unsigned 64-bit integer");
    opt("name", text(), "multfly only: key name, at most 32 bytes");
    opt("threads", text("0"),
            "threads; 0 = OpenMP's default (never changes the output)");
}

stream_options_t parse_stream_options(const po::variables_map &vm) {
    using std::string;
    stream_options_t o;
    o.alg = rndnn::str2alg(vm["alg"].as<string>());
    o.seed = parse_s64("--seed", vm["seed"].as<string>());
    o.offset = parse_s64("--offset", vm["offset"].as<string>());
    o.stream_id = static_cast<std::int64_t>(
            parse_u64("--stream", vm["stream"].as<string>()));
    if (vm.count("name")) o.name = vm["name"].as<string>();
    o.threads = parse_int("--threads", vm["threads"].as<string>());
    return o;
}

void add_window_options(po::options_description &desc, const char *what) {
    auto opt = desc.add_options();
    opt("global-shape", text(),
            (std::string("the global tensor that ") + what
                    + " is a block of (docs/semantics.md, Windows): the block "
                      "gets the global tensor's values there")
                    .c_str());
    opt("origin", text(),
            "with --global-shape: where the block starts, e.g. 32x0x512 "
            "(default: all zeros)");
}

void parse_window(
        const po::variables_map &vm, rndnn::dims &global, rndnn::dims &origin) {
    if (given(vm, "origin") && !given(vm, "global-shape"))
        throw usage_error("--origin needs --global-shape");
    if (!given(vm, "global-shape")) return;
    global = parse_shape(
            "--global-shape", vm["global-shape"].as<std::string>());
    if (given(vm, "origin"))
        origin = parse_shape("--origin", vm["origin"].as<std::string>());
}

void add_piece_options(po::options_description &desc) {
    auto opt = desc.add_options();
    opt("split", text("rows"),
            "under mpirun: how the ranks cut the tensor into their shares: "
            "rows (dim 0), cols (the last dim) or blocks (both; "
            "docs/distributed.md)");
    opt("chunk-bytes", text("16777216"),
            "bytes of output a process generates and writes at once, in "
            "[8, 2^30]: its memory stays this size for any tensor");
    opt("quiet", "no progress line (drawn on stderr only when it is a "
                 "terminal)");
}

piece_options_t parse_piece_options(const po::variables_map &vm) {
    piece_options_t o;
    o.split = parse_split(vm["split"].as<std::string>());
    const std::string text = vm["chunk-bytes"].as<std::string>();
    o.chunk_bytes = parse_s64("--chunk-bytes", text);
    if (o.chunk_bytes < 8 || o.chunk_bytes > (std::int64_t(1) << 30))
        throw usage_error("--chunk-bytes " + text + " is not in [8, 2^30]");
    o.quiet = vm.count("quiet") > 0;
    return o;
}

void check_offset_range(const stream_options_t &so, std::int64_t n) {
    const std::int64_t last = std::numeric_limits<std::int64_t>::max();
    if (so.offset < 0)
        throw usage_error("--offset " + std::to_string(so.offset)
                + " is negative");
    if (so.offset > last - n)
        throw usage_error("--offset " + std::to_string(so.offset) + " plus "
                + std::to_string(n) + " elements passes 2^63 - 1");
}

namespace {

// The list of names in the library's message for a name it does not know,
// " (expected a, b or c)", less @p except (nullptr: none); empty if the
// message has no list.
std::string expected_names(
        const std::string &message, const char *except = nullptr) {
    const std::string open = " (expected ";
    const size_t start = message.find(open);
    const size_t end = message.find(')', start);
    if (start == std::string::npos || end == std::string::npos) return "";
    std::string list = message.substr(
            start + open.size(), end - start - open.size());
    std::vector<std::string> names;
    for (size_t at = 0; at <= list.size();) {
        size_t next = list.find(", ", at), skip = 2;
        const size_t last = list.find(" or ", at);
        if (last < next) next = last, skip = 4;
        const std::string name = list.substr(at, next - at);
        if (!except || name != except) names.push_back(name);
        if (next == std::string::npos) break;
        at = next + skip;
    }
    std::string text;
    for (size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ")
                + names[i];
    return " (expected " + text + ")";
}

} // namespace

void parse_method(const std::string &text, rndnn::bernoulli_method &method,
        int &bits, bool dropout) {
    // The method's name (the library's, which names them all when it knows
    // none), then ":B" for bitsliced only. Dropout draws oneDNN's rule
    // under --onednn-compat alone: its list leaves the name out.
    const char *const onednn
            = rndnn::bernoulli_method2str(rndnn::bernoulli_method::onednn);
    const size_t colon = text.find(':');
    try {
        method = rndnn::str2bernoulli_method(text.substr(0, colon));
    } catch (const rndnn::error &e) {
        throw usage_error("unknown --method '" + text + "'"
                + expected_names(e.what(), dropout ? onednn : nullptr)
                + "; bitsliced takes :B with 1 <= B <= 32");
    }
    if (dropout && method == rndnn::bernoulli_method::onednn)
        throw usage_error("--method '" + text
                + "' is not a dropout method: oneDNN's dropout is "
                  "--onednn-compat, with --method threshold32 or auto");
    const bool sliced = method == rndnn::bernoulli_method::bitsliced;
    if (sliced != (colon != std::string::npos))
        throw usage_error("--method '" + text + "': "
                + (sliced ? "bitsliced needs :B with 1 <= B <= 32"
                          : "only bitsliced takes :B"));
    bits = sliced ? parse_int("--method '" + text + "': B",
                            text.substr(colon + 1))
                  : 1;
}

rndnn::dropout_plan parse_plan(const std::string &text) {
    try {
        return rndnn::str2dropout_plan(text);
    } catch (const rndnn::error &e) {
        // The library's list of names, after the flag as given.
        throw usage_error(
                "unknown --plan '" + text + "'" + expected_names(e.what()));
    }
}

} // namespace rndnn_cli
