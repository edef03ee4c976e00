// `rndnn dropout`: dropout forward (training) or backward on .npy files,
// with the keep mask written, read back, or recomputed from the RNG.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <unordered_map>

#include <sys/stat.h>

#include "cli_common.hpp"
#include "cli_output.hpp"
#include "problem_dropout.hpp"

namespace rndnn_cli {

namespace {

using rndnn::data_type;

// "2x1x8", as --shape is written; "()" for a 0-d array.
std::string shape_str(const rndnn::dims &shape) {
    if (shape.empty()) return "()";
    std::string s;
    for (const rndnn::dim_t d : shape)
        s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
}

// A .npy file given as an option, opened and its header read: the caller
// checks the type and shape, then read()s the data into memory of its own.
// A file that cannot be read is an I/O failure; one that is not a valid
// .npy file is the library's invalid_arguments, its message prefixed with
// the flag and the file.
class npy_input {
public:
    npy_input(const std::string &flag, const std::string &path)
        : flag_(flag), path_(path) {
        struct stat st;
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            throw io_error("cannot read " + flag + " '" + path
                    + "': it is a directory");
        is_.open(path, std::ios::binary);
        if (!is_)
            throw io_error("cannot open " + flag + " '" + path
                    + "': " + std::strerror(errno));
        guarded([&] { header_ = rndnn::npy::read_header(is_); });
    }
    const rndnn::npy::header_t &header() const { return header_; }
    // Reads the data into a new memory of descriptor @p md, which has
    // the header's size.
    rndnn::memory read(const rndnn::memory::desc &md) {
        rndnn::memory mem(md);
        guarded([&] {
            rndnn::npy::read_data(is_, header_, mem.get_data_handle());
        });
        return mem;
    }

private:
    template <typename F>
    void guarded(F f) {
        try {
            f();
        } catch (const rndnn::error &e) {
            throw rndnn::error(
                    e.status(), flag_ + " '" + path_ + "': " + e.what());
        }
    }

    std::string flag_, path_;
    std::ifstream is_;
    rndnn::npy::header_t header_;
};

// The data tensor of --in, in a 64-byte aligned buffer that the primitive
// then overwrites in place.
rndnn::memory load_data(const std::string &path) {
    npy_input in("--in", path);
    const data_type dt = in.header().dt;
    if (dt != data_type::f32 && dt != data_type::f16 && dt != data_type::bf16)
        throw usage_error("--in '" + path + "' holds " + rndnn::dt2str(dt)
                + " data; dropout takes f32 (<f4), f16 (<f2) or bf16 (<u2)");
    return in.read(in.header().md());
}

// The keep mask of --mask-in, for the mask descriptor @p md (the noise
// shape, bit or u8): a bit mask is stored as its packed bytes (u8 of shape
// ceil(n/8)), a u8 mask as bytes of the noise shape (the library keeps an
// element where the byte is not 0). The shape is checked before any data
// is read.
rndnn::memory load_mask(const std::string &path, const rndnn::memory::desc &md) {
    npy_input in("--mask-in", path);
    const rndnn::npy::header_t &a = in.header();
    const bool packed = md.get_data_type() == data_type::bit;
    const rndnn::dims want = packed
            ? rndnn::dims {static_cast<rndnn::dim_t>(md.get_size())}
            : md.get_dims();
    if (a.dt != data_type::u8 || a.shape != want)
        throw usage_error("--mask-in '" + path + "' holds "
                + rndnn::dt2str(a.dt) + " of shape " + shape_str(a.shape)
                + ", but a " + (packed ? "bit" : "u8") + " mask of noise shape "
                + shape_str(md.get_dims()) + " is u8 of shape "
                + shape_str(want)
                + (packed ? " (8 elements a byte; --mask-dtype u8 reads a byte "
                            "an element)"
                          : " (--mask-dtype bit reads packed bits)"));
    return in.read(md);
}

const char *const usage
        = "rndnn dropout --in X.npy --out Y.npy --rate R [options]\n"
          "       rndnn dropout --backward --in DY.npy --out DX.npy --rate R"
          " [--mask-in M.npy | RNG options]";

// The options that only pick the random stream: not used with --mask-in.
const char *const rng_flags[]
        = {"alg", "method", "seed", "offset", "stream", "name"};

} // namespace

int dropout_main(int argc, char **argv) {
    using std::string;
    po::options_description desc("Options");
    auto opt = desc.add_options();
    opt("help", "print this help and exit");
    opt("in", text(),
            "input .npy: f32 (<f4), f16 (<f2) or bf16 (<u2, raw bits); src, "
            "or diff_dst with --backward (required)");
    opt("out", text(),
            "output .npy of the type and shape of --in: dst, or diff_src "
            "with --backward (required)");
    opt("mask-out", text(), "forward: also write the keep mask to this .npy");
    opt("mask-in", text(),
            "backward: read the keep mask from this .npy instead of "
            "recomputing it");
    // The problem: the same options as `rndnn bench --prim dropout`.
    add_dropout_problem_options(desc, dropout_cli_t::subcommand);
    po::variables_map vm;
    if (!parse_options(argc, argv, desc, usage, vm)) return exit_ok;

    // Every flag is parsed, and checked as far as it can be without the
    // data, before a file is read.
    const bool backward = vm.count("backward") > 0;
    for (const char *f : {"in", "out", "rate"})
        if (!vm.count(f)) throw usage_error(string("--") + f + " is required");
    const string in = vm["in"].as<string>();
    const string out = vm["out"].as<string>();
    for (const char *f : {"in", "out", "mask-in", "mask-out"})
        if (vm.count(f) && vm[f].as<string>().empty())
            throw usage_error(string("--") + f + " '' names no file");
    const bool mask_in = vm.count("mask-in") > 0;
    const bool mask_out = vm.count("mask-out") > 0;
    if (mask_in && !backward)
        throw usage_error("--mask-in is only used with --backward");
    if (mask_out && backward)
        throw usage_error("--mask-out is only used without --backward");
    if (given(vm, "mask-dtype") && !mask_in && !mask_out)
        throw usage_error(
                "--mask-dtype is only used with --mask-out or --mask-in");
    if (mask_in)
        for (const char *f : rng_flags)
            if (given(vm, f))
                throw usage_error(string("--") + f
                        + " is not used with --mask-in: the mask is read, "
                          "not recomputed");
    // --out may name --in (the data is read whole, then replaced); no
    // other two files may be one.
    if (mask_out) {
        const string m = vm["mask-out"].as<string>();
        check_distinct({{"--out", out}, {"--mask-out", m}});
        check_distinct({{"--in", in}, {"--mask-out", m}});
    }
    if (mask_in) check_distinct({{"--mask-in", vm["mask-in"].as<string>()},
            {"--out", out}});

    const dropout_problem_t problem = parse_dropout_problem(vm, {});
    if (problem.mask_dtype_given && problem.mask_dt == data_type::undef)
        throw usage_error(string("--mask-dtype none stores no mask, but ")
                + (mask_in ? "--mask-in" : "--mask-out") + " names one");
    const data_type mask_dt = problem.mask_dtype_given ? problem.mask_dt
                                                       : data_type::bit;
    const stream_options_t &so = problem.so;
    const rndnn::stream strm(so.threads);

    // The input, then the primitive: the library checks the rate, the
    // noise shape against the data and the RNG before any mask is read.
    rndnn::memory data = load_data(in);
    const rndnn::dropout::desc d = problem.desc_for(data.get_desc(),
            mask_in || mask_out ? mask_dt : data_type::undef);
    // The mask file's tensor: the block's mask (desc_for sets it whenever
    // a mask file is named).
    const rndnn::memory::desc &mask_md = d.mask;
    const rndnn::dropout::primitive_desc pd(d);
    problem.check_offset(d);

    rndnn::memory mask;
    if (mask_in) mask = load_mask(vm["mask-in"].as<string>(), mask_md);
    if (mask_out) mask = rndnn::memory(mask_md);
    // In place: the one buffer of --in becomes the result.
    std::unordered_map<int, rndnn::memory> args
            = {{backward ? RNDNN_ARG_DIFF_DST : RNDNN_ARG_SRC, data},
                    {backward ? RNDNN_ARG_DIFF_SRC : RNDNN_ARG_DST, data}};
    if (mask) args[RNDNN_ARG_MASK] = mask;
    if (!mask_in) {
        args[RNDNN_ARG_SEED] = rndnn::memory::scalar(so.seed);
        args[RNDNN_ARG_OFFSET] = rndnn::memory::scalar(so.offset);
        args[RNDNN_ARG_STREAM] = rndnn::memory::scalar(so.stream_id);
    }
    rndnn::dropout(pd).execute(strm, args);

    // Both files are complete before either replaces its name.
    output_file out_file(out);
    std::optional<output_file> mask_file;
    if (mask_out) mask_file.emplace(vm["mask-out"].as<string>());
    out_file.write(data, true);
    std::vector<output_file *> files = {&out_file};
    if (mask_file) {
        mask_file->write(mask, true);
        files.push_back(&*mask_file);
    }
    commit_all(files);
    return exit_ok;
}

} // namespace rndnn_cli
