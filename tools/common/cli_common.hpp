// Shared pieces of the rndnn command-line tools: strict value parsing,
// option handling and the exit-status policy (output files: cli_output.hpp;
// the problems each primitive's commands share: problem_rng.hpp,
// problem_dropout.hpp).
//
// Nothing here computes randomness: the tools only parse and call the
// public API (include/rndnn/).
#ifndef RNDNN_TOOLS_CLI_COMMON_HPP
#define RNDNN_TOOLS_CLI_COMMON_HPP

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "rndnn/rndnn.hpp"
#include "shard.hpp"

namespace rndnn_cli {

namespace po = boost::program_options;

// Exit statuses (docs/cli.md).
constexpr int exit_ok = 0;
constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

// A bad command line: exit status 2. The message names the bad value.
class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An I/O failure: exit status 1.
class io_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs one subcommand and turns its exceptions into a message on stderr
// ("rndnn: ...", its input bytes escaped by rndnn::escape()) and an exit
// status: 2 for usage errors and every rndnn::error with status
// invalid_arguments, 0 and no message for a closed stdout (closed_pipe),
// 1 for anything else. @p program ("rndnn gen") is named in the "--help"
// hint.
int run_guarded(const std::string &program, const std::function<int()> &fn);
// What run_guarded()'s messages start with: "rndnn: ", and under mpirun
// "rndnn: rank R of K: " (job_scope).
void set_message_prefix(const std::string &prefix);

// Parses the options of a subcommand (GNU long options only, no
// positional arguments). Prints the help to stdout and returns false if
// --help was given; throws on a bad command line.
bool parse_options(int argc, char **argv, const po::options_description &desc,
        const std::string &usage, po::variables_map &vm);
// The same for a list of words (options and their values, no program
// name), e.g. one line of a batch file. More words than @p desc has
// options with values are refused before Boost parses them (its parser
// takes time quadratic in the word count). @p parsed, if not null, receives
// the options as parsed, each with its original tokens.
bool parse_options(const std::vector<std::string> &words,
        const po::options_description &desc, const std::string &usage,
        po::variables_map &vm, std::vector<po::option> *parsed = nullptr);

// A command's option list, holding --help ("print this help and exit") so
// far; @p caption heads it in the help.
po::options_description options_with_help(
        const std::string &caption = "Options");

// A string-valued option, with or without a default. Values are taken as
// text and parsed by the strict parsers below: Boost's own conversion
// would wrap "-1" into a huge unsigned value, and its messages do not
// follow ours.
po::typed_value<std::string> *text();
po::typed_value<std::string> *text(const std::string &default_value);

// @returns true if @p flag was written on the command line (not just
// defaulted).
bool given(const po::variables_map &vm, const char *flag);

// Strict parsers: the whole text must be the value, with no spaces, no
// '+', no trailing junk and no out-of-range value. @p flag is the option
// name used in the message, e.g. "--seed".
std::int64_t parse_s64(const std::string &flag, const std::string &text);
std::uint64_t parse_u64(const std::string &flag, const std::string &text);
int parse_int(const std::string &flag, const std::string &text);
double parse_double(const std::string &flag, const std::string &text);
// A probability (--p, --rate): a number in [0, 1], refused with the text
// as given ("--p '5.' is outside [0, 1]"), not as the library would print
// the double.
double parse_probability(const std::string &flag, const std::string &text);
// "64x128x1024": one or more non-negative integers joined by 'x'. Limits on
// the count of dims and the element count are the library's to check.
rndnn::dims parse_shape(const std::string &flag, const std::string &text);

// A window of a global tensor: --global-shape and --origin (docs/cli.md).
// @p what names the block in the help ("--shape", "--in").
void add_window_options(po::options_description &desc, const char *what);
// Sets global and origin from them (left empty when not given).
// @throws usage_error for --origin without --global-shape or a bad shape.
void parse_window(
        const po::variables_map &vm, rndnn::dims &global, rndnn::dims &origin);

// How a command works in pieces: how the ranks under mpirun cut a tensor
// (--split, shard.hpp), the bytes of output a process holds at once
// (--chunk-bytes), and whether it draws a progress line (--quiet).
struct piece_options_t {
    split_t split = split_t::rows;
    std::int64_t chunk_bytes = 0;
    bool quiet = false;
};
void add_piece_options(po::options_description &desc);
// @throws usage_error naming a bad --split or --chunk-bytes.
piece_options_t parse_piece_options(const po::variables_map &vm);

// The options that pick a word stream, shared by gen and stream: --alg,
// --seed, --offset, --stream, --name, --threads. @p what names the unit
// of --offset in the help ("element", "word").
void add_stream_options(po::options_description &desc, const char *what);

// Their values, parsed strictly.
struct stream_options_t {
    rndnn::rng_alg alg;
    std::int64_t seed;
    std::int64_t offset; // checked (>= 0) by the library
    std::int64_t stream_id; // the u64 id's bits, as the library takes it
    std::string name; // multfly key name; empty if not given
    int threads;
};
stream_options_t parse_stream_options(const po::variables_map &vm);

// Checks the offset range of @p n elements from so.offset that the library
// would only check at execution (0 <= offset, offset + n <= 2^63 - 1), so
// that every value is known good before anything is generated.
// @throws usage_error naming --offset.
void check_offset_range(const stream_options_t &so, std::int64_t n);

// --method auto | threshold32 | bytewise | onednn | bitsliced:B. The range
// of B is the library's to check, so that its message is the one users
// see. @p dropout: dropout's --method, which is never onednn (oneDNN's
// rule is --onednn-compat): refused naming that flag, and left out of the
// list of methods that an unknown name gets.
// @throws usage_error naming the text if it is none of them.
void parse_method(const std::string &text, rndnn::bernoulli_method &method,
        int &bits, bool dropout = false);

// --plan any | fused | chain: a dropout plan.
// @throws usage_error naming the text if it names none.
rndnn::dropout_plan parse_plan(const std::string &text);

// Subcommands: each takes the arguments after the subcommand name
// (argv[0] is the subcommand) and returns the exit status, or throws.
int gen_main(int argc, char **argv);
int stream_main(int argc, char **argv);
int verify_main(int argc, char **argv);
int bench_main(int argc, char **argv);
int dropout_main(int argc, char **argv);

} // namespace rndnn_cli

#endif
