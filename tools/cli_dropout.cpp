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

// "1,2" or "-1": integers joined by ','. Their range is the library's to
// check (dropout::noise_shape_for_axes), which knows the data's dims.
std::vector<int> parse_axes(const std::string &text) {
    std::vector<int> axes;
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        axes.push_back(parse_int("--axes '" + text + "': axis",
                text.substr(start,
                        comma == std::string::npos ? std::string::npos
                                                   : comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return axes;
}

data_type parse_mask_dtype(const std::string &text) {
    if (text == "bit") return data_type::bit;
    if (text == "u8") return data_type::u8;
    throw usage_error("unknown --mask-dtype '" + text + "' (expected bit or u8)");
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
    opt("backward",
            "backward: --in is diff_dst, --out diff_src; the mask is read "
            "(--mask-in) or recomputed from the RNG options");
    opt("in", text(),
            "input .npy: f32 (<f4), f16 (<f2) or bf16 (<u2, raw bits); src, "
            "or diff_dst with --backward (required)");
    opt("out", text(),
            "output .npy of the type and shape of --in: dst, or diff_src "
            "with --backward (required)");
    opt("rate", text(),
            "probability of dropping an element, in [0, 1] (required)");
    opt("noise-shape", text(),
            "dims of the mask joined by 'x', each the data's dim or 1 (the "
            "mask is shared along the 1s); default: the data's shape");
    opt("axes", text(),
            "axes along which the mask is shared (MXNet), joined by ',', "
            "negative counting from the end, e.g. 1,2; not with "
            "--noise-shape");
    opt("mask-out", text(), "forward: also write the keep mask to this .npy");
    opt("mask-in", text(),
            "backward: read the keep mask from this .npy instead of "
            "recomputing it");
    opt("mask-dtype", text("bit"),
            "mask file format: bit (packed, LSB first: u8 of shape "
            "ceil(n/8)) or u8 (0/1 bytes of the noise shape)");
    opt("method", text("threshold32"),
            "keep mask: threshold32, or bitsliced:B with 1 <= B <= 32 (1 - "
            "rate rounded to a multiple of 2^-B)");
    opt("onednn-compat",
            "oneDNN's dropout: keep iff W > (2^32 - 1) * rate, f32 scale; "
            "needs --alg philox4x32_10_onednn (then the default) and "
            "threshold32");
    opt("plan", text("any"),
            "any, fused (one pass; an error where it does not apply) or "
            "chain (RNG, multiply, scale); never changes the output");
    add_stream_options(desc, "mask element");
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
    if (vm.count("noise-shape") && vm.count("axes"))
        throw usage_error("--noise-shape and --axes exclude each other");
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

    rndnn::dropout::desc d;
    d.prop = backward ? rndnn::prop_kind::backward
                      : rndnn::prop_kind::forward_training;
    d.rate = parse_double("--rate", vm["rate"].as<string>());
    parse_method(vm["method"].as<string>(), d.method, d.bits);
    const stream_options_t so = parse_stream_options(vm);
    d.onednn_compat = vm.count("onednn-compat") > 0;
    d.alg = d.onednn_compat && !given(vm, "alg")
            ? rndnn::rng_alg::philox4x32_10_onednn
            : so.alg;
    d.name = so.name;
    d.with_offset = !mask_in;
    d.plan = parse_plan(vm["plan"].as<string>());
    const data_type mask_dt = parse_mask_dtype(vm["mask-dtype"].as<string>());
    std::optional<rndnn::dims> noise_shape;
    if (vm.count("noise-shape"))
        noise_shape = parse_shape("--noise-shape",
                vm["noise-shape"].as<string>());
    std::optional<std::vector<int>> axes;
    if (vm.count("axes")) axes = parse_axes(vm["axes"].as<string>());
    const rndnn::stream strm(so.threads);

    // The input, then the primitive: the library checks the rate, the
    // noise shape against the data and the RNG before any mask is read.
    rndnn::memory data = load_data(in);
    const rndnn::dims &shape = data.get_desc().get_dims();
    d.src = d.dst = data.get_desc();
    if (noise_shape) d.noise_shape = *noise_shape;
    if (axes) d.noise_shape = rndnn::dropout::noise_shape_for_axes(shape, *axes);
    const rndnn::memory::desc mask_md(
            d.noise_shape.empty() ? shape : d.noise_shape, mask_dt);
    if (mask_in || mask_out) d.mask = mask_md;
    const rndnn::dropout::primitive_desc pd(d);
    if (!mask_in) check_offset_range(so, mask_md.nelems());

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
