// `rndnn gen`: one tensor of random values into a file or stdout.
#include "cli_common.hpp"
#include "problem_rng.hpp"
#include "cli_output.hpp"

namespace rndnn_cli {

namespace {

bool ends_with(const std::string &s, const std::string &suffix) {
    return s.size() >= suffix.size()
            && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

int gen_main(int argc, char **argv) {
    using std::string;
    po::options_description desc("Options");
    auto opt = desc.add_options();
    opt("help", "print this help and exit");
    add_rng_problem_options(desc);
    opt("out", text(), "output file, or - for stdout (required)");
    opt("format", text(),
            "raw or npy; default npy if the file name ends in .npy, else raw");
    po::variables_map vm;
    if (!parse_options(argc, argv, desc, "rndnn gen --shape DIMS --out FILE|-"
                               " [options]",
                vm))
        return exit_ok;

    // Parse everything, then build the primitive and generate: every bad
    // value is reported before a file is created.
    const rng_problem_t problem = parse_rng_problem(vm);
    if (!vm.count("out")) throw usage_error("--out is required");
    const string out = vm["out"].as<string>();
    if (out.empty()) throw usage_error("--out '' names no file");
    const bool to_stdout = out == "-";

    bool npy = !to_stdout && ends_with(out, ".npy");
    if (vm.count("format")) {
        const string f = vm["format"].as<string>();
        if (f != "raw" && f != "npy")
            throw usage_error("unknown --format '" + f
                    + "' (expected raw or npy)");
        npy = f == "npy";
    }

    const stream_options_t &so = problem.so;
    const rndnn::rng::primitive_desc pd(problem.desc, problem.attr);
    const rndnn::stream strm(so.threads);
    const rndnn::rng prim(pd);

    // Opened first: a path that cannot be written fails before the work.
    output_file file(out);
    rndnn::memory dst(pd.dst_desc());
    prim.execute(strm,
            {{RNDNN_ARG_DST, dst},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(so.seed)},
                    {RNDNN_ARG_OFFSET, rndnn::memory::scalar(so.offset)},
                    {RNDNN_ARG_STREAM, rndnn::memory::scalar(so.stream_id)}});

    file.write(dst, npy);
    file.commit();
    return exit_ok;
}

} // namespace rndnn_cli
