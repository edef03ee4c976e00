// `rndnn gen`: one random tensor into a file or stdout, generated and
// written in bounded pieces; under mpirun each rank writes its share of one
// file (docs/distributed.md).
#include <map>

#include "cli_common.hpp"
#include "problem_rng.hpp"
#include "sharded_file.hpp"

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

// Generates pieces of the tensor: each a range of its row-major elements.
class piece_generator {
public:
    explicit piece_generator(const rng_problem_t &p)
        : p_(p), strm_(p.so.threads) {}

    // Elements [first, first + count) of the written tensor into @p dst
    // (a bit tensor's bits from bit 0).
    void operator()(std::int64_t first, std::int64_t count, void *dst) {
        const rndnn::rng::desc &d = p_.desc;
        if (d.global_dims.empty()) return run(flat(count), first, dst);
        // A window: the range's boxes of the block, each a window of the
        // global tensor, one after another in dst (bits at their phase).
        const rndnn::data_type dt = d.dst.get_data_type();
        const bool bit = dt == rndnn::data_type::bit;
        const auto esize = static_cast<std::int64_t>(
                bit ? 0 : rndnn::memory::desc({1}, dt).get_size());
        for_each_range_box(d.dst.get_dims(), first, count,
                [&](const box_t &b, std::int64_t f) {
                    const std::int64_t at = f - first;
                    rndnn::rng::desc w = d;
                    w.dst = bit ? rndnn::memory::desc(b.dims, dt,
                                    dense_strides(b.dims), at % 8)
                                : rndnn::memory::desc(b.dims, dt);
                    w.origin = b.origin;
                    for (size_t i = 0; i < d.origin.size(); ++i)
                        w.origin[i] += d.origin[i];
                    char *p = static_cast<char *>(dst)
                            + (bit ? at / 8 : at * esize);
                    run(rndnn::rng(rndnn::rng::primitive_desc(w, p_.attr)), 0, p);
                });
    }

private:
    static rndnn::dims dense_strides(const rndnn::dims &dims) {
        rndnn::dims s(dims.size(), 1);
        for (size_t i = dims.size(); i-- > 1;)
            s[i - 1] = s[i] * dims[i];
        return s;
    }

    // The primitive for @p count elements at a runtime offset: pieces
    // come in few sizes, so a few are kept.
    const rndnn::rng &flat(std::int64_t count) {
        auto it = prims_.find(count);
        if (it != prims_.end()) return it->second;
        if (prims_.size() == 8) prims_.clear();
        rndnn::rng::desc d = p_.desc;
        d.dst = rndnn::memory::desc({count}, d.dst.get_data_type());
        return prims_.emplace(count,
                            rndnn::rng(rndnn::rng::primitive_desc(d, p_.attr)))
                .first->second;
    }

    void run(const rndnn::rng &prim, std::int64_t first, void *dst) {
        rndnn::memory mem(prim.get_primitive_desc().dst_desc(), dst);
        prim.execute(strm_,
                {{RNDNN_ARG_DST, mem},
                        {RNDNN_ARG_SEED, rndnn::memory::scalar(p_.so.seed)},
                        {RNDNN_ARG_OFFSET,
                                rndnn::memory::scalar(p_.so.offset + first)},
                        {RNDNN_ARG_STREAM,
                                rndnn::memory::scalar(p_.so.stream_id)}});
    }

    const rng_problem_t &p_;
    rndnn::stream strm_;
    std::map<std::int64_t, rndnn::rng> prims_;
};

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
    piece_generator gen(a.problem);
    const piece_options_t &o = a.pieces;
    progress_t progress("rndnn gen",
            share_bytes(md.get_dims(), md.get_data_type(), o.split), o.quiet);
    write_share(out, md.get_dims(), md.get_data_type(), o.split,
            o.chunk_bytes, progress, std::ref(gen));
    out.commit();
    return exit_ok;
}

} // namespace rndnn_cli
