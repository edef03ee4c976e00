// The `rndnn` command: dispatches to one subcommand (docs/cli.md).
#include <csignal>
#include <iomanip>
#include <iostream>
#include <optional>

#include "common/cli_common.hpp"
#include "common/cli_output.hpp"
#include "job/job.hpp"

namespace {

// The subcommands.
const struct {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *summary;
    // Runs under mpirun with several ranks: they share the work (gen,
    // dropout) or each does its own (verify checks its machine).
    bool ranks;
} commands[] = {
        {"gen", rndnn_cli::gen_main,
                "write one random tensor to a file or stdout (raw or .npy)",
                true},
        {"stream", rndnn_cli::stream_main,
                "write raw u32 words to stdout, without end or --count N",
                false},
        {"dropout", rndnn_cli::dropout_main,
                "dropout forward or backward on .npy tensors, with its mask",
                true},
        {"verify", rndnn_cli::verify_main,
                "run the built-in known-answer checks", true},
        {"bench", rndnn_cli::bench_main,
                "time problems against memcpy and the reference kernel",
                false},
};

void print_usage(std::ostream &os) {
    os << "Usage: rndnn COMMAND [options]\n\nCommands:\n";
    for (const auto &c : commands)
        os << "  " << std::left << std::setw(8) << c.name << c.summary
           << "\n";
    os << "\n'rndnn COMMAND --help' lists the options of COMMAND; "
          "'rndnn --version' prints the version.\n";
}

} // namespace

int main(int argc, char **argv) {
    // Writes to a closed pipe fail with EPIPE instead of killing the
    // process, so that every command ends the same way (run_guarded).
    std::signal(SIGPIPE, SIG_IGN);
    // MPI starts here where mpirun started this process (job.hpp).
    // Then the ranks agree that they run one command line before any of
    // them starts a subcommand, whose collective calls would not match
    // another's.
    std::optional<rndnn_cli::job_scope> job;
    const int status = rndnn_cli::run_guarded("rndnn", [&] {
        job.emplace(argc, argv);
        rndnn_cli::job_t::get().check_same_command(argc, argv);
        return rndnn_cli::exit_ok;
    });
    if (status != rndnn_cli::exit_ok) return status;
    if (argc < 2) {
        print_usage(std::cerr);
        return rndnn_cli::exit_usage;
    }
    const std::string name = argv[1];
    // Like every command's output: a failed write is exit status 1 with
    // its cause (run_guarded, flush_stdout).
    if (name == "--help" || name == "help")
        return rndnn_cli::run_guarded("rndnn", [] {
            print_usage(std::cout);
            rndnn_cli::flush_stdout();
            return rndnn_cli::exit_ok;
        });
    if (name == "--version")
        return rndnn_cli::run_guarded("rndnn", [] {
            const rndnn::version_t &v = rndnn::version();
            std::cout << "rndnn " << v.str << " (" << v.hash << ")\n";
            rndnn_cli::flush_stdout();
            return rndnn_cli::exit_ok;
        });
    for (const auto &c : commands) {
        if (name != c.name) continue;
        // argv[1] plays the part of argv[0] for the subcommand.
        return rndnn_cli::run_guarded("rndnn " + name, [&] {
            if (!c.ranks && rndnn_cli::job_t::get().size() > 1)
                throw rndnn_cli::usage_error("rndnn " + name
                        + " does not run under mpirun with more than one "
                          "rank: each would do the whole work (gen and "
                          "dropout share it)");
            return c.main(argc - 1, argv + 1);
        });
    }
    // Through run_guarded: under mpirun each rank's message says which.
    return rndnn_cli::run_guarded("rndnn", [&]() -> int {
        throw rndnn_cli::usage_error("unknown command '" + name + "'");
    });
}
