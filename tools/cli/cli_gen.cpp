// `rndnn gen`: one random tensor into a file or stdout, generated and
// written in bounded pieces; under mpirun each rank writes its share of one
// file (docs/distributed.md).
#include "common/cli_common.hpp"
#include "problems/problem_rng.hpp"
#include "job/rng_pieces.hpp"
#include "job/sharded_file.hpp"

namespace rndnn_cli {

namespace {

bool ends_with(const std::string &s, const std::string &suffix) {
    return s.size() >= suffix.size()
            && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Everything `rndnn gen` was asked, checked.
struct gen_args_t {
    rng_problem_t problem;
    std::string out;
    bool npy = false;
    std::string header; // the .npy header, if npy
    piece_options_t pieces;
};

} // namespace

int gen_main(int argc, char **argv) {
    using std::string;
    po::options_description desc = options_with_help();
    auto opt = desc.add_options();
    add_rng_problem_options(desc);
    opt("out", text(), "output file, or - for stdout (required)");
    opt("format", text(),
            "raw or npy; default npy if the file name ends in .npy, else raw");
    opt("p-file", text(),
            "bernoulli: each element's probability from this .npy (f32 "
            "<f4, or bf16 as <u2 bits), of --shape's dims or 1 where it "
            "broadcasts (the block's with --global-shape)");
    add_piece_options(desc);

    // Every rank parses and checks everything before a file is created:
    // a bad value on one rank stops them all.
    job_t &job = job_t::get();
    po::variables_map vm;
    bool help = false;
    gen_args_t a;
    job.agree([&] {
        help = !parse_options(argc, argv, desc,
                "rndnn gen --shape DIMS --out FILE|- [options]\n"
                "       mpirun -np K rndnn gen --shape DIMS --out FILE "
                "[--split rows|cols|blocks] [options]",
                vm);
        if (help) return;
        a.problem = parse_rng_problem(vm);
        if (vm.count("p-file"))
            read_p_file(vm, "--p-file", vm["p-file"].as<string>(), a.problem);
        if (!vm.count("out")) throw usage_error("--out is required");
        a.out = vm["out"].as<string>();
        if (a.out.empty()) throw usage_error("--out '' names no file");
        a.npy = a.out != "-" && ends_with(a.out, ".npy");
        if (vm.count("format")) {
            const string f = vm["format"].as<string>();
            if (f != "raw" && f != "npy")
                throw usage_error("unknown --format '" + f
                        + "' (expected raw or npy)");
            a.npy = f == "npy";
        }
        a.pieces = parse_piece_options(vm);
        if (job.distributed() && !a.problem.desc.global_dims.empty())
            throw usage_error("--global-shape is not used under mpirun: "
                              "--split cuts the tensor into the ranks' "
                              "blocks");
        // The primitive's own checks of the whole problem, and a shape
        // that NumPy can hold.
        rndnn::rng::primitive_desc(a.problem.desc, a.problem.attr);
        if (a.npy) a.header = rndnn::npy::header(a.problem.desc.dst);
    });
    if (help) return exit_ok;

    const rndnn::memory::desc &md = a.problem.desc.dst;
    // Opened first: a path that cannot be written fails before the work.
    sharded_output out("--out", a.out, a.header,
            static_cast<std::int64_t>(md.get_size()));
    rng_pieces gen(a.problem);
    const piece_options_t &o = a.pieces;
    progress_t progress("rndnn gen",
            share_bytes(md.get_dims(), md.get_data_type(), o.split), o.quiet);
    write_share(out, md.get_dims(), md.get_data_type(), o.split,
            o.chunk_bytes, progress, std::ref(gen));
    out.commit();
    return exit_ok;
}

} // namespace rndnn_cli
