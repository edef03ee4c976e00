#include "cli_common.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <new>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace rndnn_cli {

int run_guarded(const std::string &program, const std::function<int()> &fn) {
    // A usage error also tells where the full list of options is.
    const std::string hint = "Try '" + program + " --help'.";
    try {
        return fn();
    } catch (const usage_error &e) {
        std::cerr << "rndnn: " << e.what() << "\n" << hint << "\n";
        return exit_usage;
    } catch (const po::error &e) {
        std::cerr << "rndnn: " << e.what() << "\n" << hint << "\n";
        return exit_usage;
    } catch (const rndnn::error &e) {
        std::cerr << "rndnn: " << e.what() << "\n";
        return e.status() == rndnn::status::invalid_arguments ? exit_usage
                                                              : exit_failure;
    } catch (const io_error &e) {
        std::cerr << "rndnn: " << e.what() << "\n";
        return exit_failure;
    } catch (const std::bad_alloc &) {
        std::cerr << "rndnn: out of memory\n";
        return exit_failure;
    } catch (const std::exception &e) {
        std::cerr << "rndnn: " << e.what() << "\n";
        return exit_failure;
    }
}

bool parse_options(int argc, char **argv, const po::options_description &desc,
        const std::string &usage, po::variables_map &vm) {
    // Long options only: with short options on, Boost would read the "-5"
    // of "--seed -5" as an option instead of the value, unlike getopt_long.
    const int style = po::command_line_style::unix_style
            & ~po::command_line_style::allow_short;
    // argv[0] is the subcommand name; the parser skips it.
    const po::parsed_options parsed = po::command_line_parser(argc, argv)
                                              .options(desc)
                                              .style(style)
                                              .run();
    // Without a positional description Boost keeps stray words quietly;
    // every subcommand takes options only, so name the first stray word.
    for (const po::option &o : parsed.options)
        if (o.position_key != -1 && !o.value.empty())
            throw usage_error("unexpected argument '" + o.value[0] + "'");
    po::store(parsed, vm);
    if (vm.count("help")) {
        std::cout << "Usage: " << usage << "\n\n" << desc;
        return false;
    }
    po::notify(vm);
    return true;
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

float parse_float(const std::string &flag, const std::string &text) {
    return parse_number<float>(flag, text, "a number", "of f32");
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

atomic_file::atomic_file(const std::string &path) : path_(path) {
    // rename() would fail on a directory too, but only after the work is
    // done; this check is cheap and its message clearer.
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        throw io_error("cannot write '" + path + "': it is a directory");

    std::vector<char> tmpl(path.begin(), path.end());
    const std::string suffix = ".tmp.XXXXXX";
    tmpl.insert(tmpl.end(), suffix.begin(), suffix.end());
    tmpl.push_back('\0');
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        throw io_error("cannot create '" + path + "': " + std::strerror(errno));
    tmp_ = tmpl.data();
    // mkstemp creates the file 0600; give the final file the permissions
    // an ordinary create would, 0666 less the umask.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    const int chmod_rc = ::fchmod(fd, 0666 & ~mask);
    const int chmod_errno = errno;
    ::close(fd);
    if (chmod_rc != 0) {
        std::remove(tmp_.c_str());
        throw io_error("cannot set the permissions of '" + tmp_
                + "': " + std::strerror(chmod_errno));
    }
    os_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!os_) {
        const int err = errno;
        std::remove(tmp_.c_str());
        throw io_error("cannot open '" + tmp_ + "': " + std::strerror(err));
    }
}

atomic_file::~atomic_file() {
    if (committed_) return;
    os_.close();
    std::remove(tmp_.c_str());
}

void atomic_file::commit() {
    errno = 0;
    os_.flush();
    os_.close();
    if (!os_)
        throw io_error("cannot write '" + path_ + "': "
                + (errno ? std::strerror(errno) : "write failed"));
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
        throw io_error("cannot write '" + path_ + "': " + std::strerror(errno));
    committed_ = true;
}

void add_stream_options(po::options_description &desc, const char *what) {
    auto opt = desc.add_options();
    opt("alg", text("philox4x32_10"),
            "word generator: philox4x32_10, philox4x32_10_onednn, "
            "threefry4x32_20, mcg31m1, mt19937, multfly");
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

} // namespace rndnn_cli
