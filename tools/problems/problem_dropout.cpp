// The dropout problem's options and parser (problem_dropout.hpp).
#include "problem_dropout.hpp"

namespace rndnn_cli {

namespace {

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

// bit, u8, or none (undef).
rndnn::data_type parse_mask_dtype(const std::string &text) {
    if (text == "bit") return rndnn::data_type::bit;
    if (text == "u8") return rndnn::data_type::u8;
    if (text == "none") return rndnn::data_type::undef;
    throw usage_error("unknown --mask-dtype '" + text
            + "' (expected bit, u8 or none)");
}

} // namespace

const std::vector<const char *> &dropout_own_flags() {
    static const std::vector<const char *> flags = {"backward", "rate",
            "noise-shape", "axes", "mask-dtype", "onednn-compat", "plan"};
    return flags;
}

void add_dropout_problem_options(po::options_description &desc,
        dropout_cli_t cli) {
    const bool bench = cli == dropout_cli_t::bench;
    // In bench's help, next to the rng problem's options, each says that
    // it is dropout's.
    const std::string own = bench ? "dropout: " : "";
    auto opt = desc.add_options();
    opt("backward",
            bench ? "dropout: backward (diff_dst to diff_src); the mask is "
                    "read (--mask-dtype bit or u8) or recomputed from the "
                    "RNG options (none)"
                  : "backward: --in is diff_dst, --out diff_src; the mask is "
                    "read (--mask-in) or recomputed from the RNG options");
    opt("rate", text(),
            bench ? "dropout: probability of dropping an element, in [0, 1]; "
                    "default 0.5"
                  : "probability of dropping an element, in [0, 1] "
                    "(required)");
    opt("noise-shape", text(),
            (own + "dims of the mask joined by 'x', each the data's dim or 1 (the "
            "mask is shared along the 1s); default: the data's shape")
                    .c_str());
    opt("axes", text(),
            (own + "axes along which the mask is shared (MXNet), joined by ',', "
            "negative counting from the end, e.g. 1,2; not with "
            "--noise-shape")
                    .c_str());
    opt("mask-dtype", text(),
            bench ? "dropout: the stored mask: bit (packed), u8 (0/1 bytes) "
                    "or none (the default: forward writes no mask, backward "
                    "recomputes it); as rndnn dropout's --mask-dtype with "
                    "--mask-out or --mask-in"
                  : "mask file format: bit (packed, LSB first: u8 of shape "
                    "ceil(n/8), the default) or u8 (0/1 bytes of the noise "
                    "shape); only with --mask-out or --mask-in");
    opt("onednn-compat",
            (own + "oneDNN's dropout: keep iff W > (2^32 - 1) * rate, f32 scale; "
            "needs --alg philox4x32_10_onednn (then the default) and "
            "--method auto or threshold32")
                    .c_str());
    opt("plan", text("any"),
            (own + "any, fused (one pass; an error where it does not apply) or "
            "chain (RNG, multiply, scale); never changes the output")
                    .c_str());
    if (!bench) {
        opt("method", text("auto"),
                "keep mask: auto (bitsliced:32 where the algorithm allows, "
                "else threshold32: 1 - rate exact to 2^-32 either way), "
                "threshold32, bytewise (1 - rate exact to 2^-32, a byte an "
                "element), or bitsliced:B with 1 <= B <= 32 (1 - rate "
                "rounded to a multiple of 2^-B)");
        add_stream_options(desc, "mask element");
        // bench takes them from the rng problem's options. With them,
        // --noise-shape and --axes refer to the global tensor.
        add_window_options(desc, "--in");
    }
}

dropout_problem_t parse_dropout_problem(const po::variables_map &vm,
        const std::optional<std::string> &default_rate) {
    using std::string;
    if (vm.count("noise-shape") && vm.count("axes"))
        throw usage_error("--noise-shape and --axes exclude each other");
    dropout_problem_t p;
    rndnn::dropout::desc &d = p.desc;
    d.prop = vm.count("backward") ? rndnn::prop_kind::backward
                                  : rndnn::prop_kind::forward_training;
    d.rate = parse_probability("--rate",
            vm.count("rate") ? vm["rate"].as<string>()
                             : default_rate.value());
    parse_method(
            vm["method"].as<string>(), d.method, d.bits, /*dropout=*/true);
    p.so = parse_stream_options(vm);
    d.onednn_compat = vm.count("onednn-compat") > 0;
    d.alg = d.onednn_compat && !given(vm, "alg")
            ? rndnn::rng_alg::philox4x32_10_onednn
            : p.so.alg;
    d.name = p.so.name;
    d.plan = parse_plan(vm["plan"].as<string>());
    p.mask_dtype_given = vm.count("mask-dtype") > 0;
    if (p.mask_dtype_given)
        p.mask_dt = parse_mask_dtype(vm["mask-dtype"].as<string>());
    if (vm.count("noise-shape"))
        p.noise_shape = parse_shape(
                "--noise-shape", vm["noise-shape"].as<string>());
    if (vm.count("axes")) p.axes = parse_axes(vm["axes"].as<string>());
    parse_window(vm, d.global_dims, d.origin);
    return p;
}

rndnn::dropout::desc dropout_problem_t::desc_for(
        const rndnn::memory::desc &data, rndnn::data_type mask_type) const {
    rndnn::dropout::desc d = desc;
    d.src = d.dst = data;
    const rndnn::dims &shape = data.get_dims();
    // The noise shape is the global tensor's (the data's without a window).
    const rndnn::dims &global = d.global_dims.empty() ? shape : d.global_dims;
    if (noise_shape) d.noise_shape = *noise_shape;
    if (axes)
        d.noise_shape = rndnn::dropout::noise_shape_for_axes(global, *axes);
    // The block's mask: 1 where the noise shape has 1, else the block's.
    rndnn::dims mask_dims = shape;
    for (size_t j = 0; j < mask_dims.size() && j < d.noise_shape.size(); ++j)
        if (d.noise_shape[j] == 1) mask_dims[j] = 1;
    if (mask_type != rndnn::data_type::undef)
        d.mask = rndnn::memory::desc(mask_dims, mask_type);
    // Backward with a stored mask runs no RNG.
    d.with_offset = d.prop == rndnn::prop_kind::forward_training
            || d.mask.is_zero();
    return d;
}

void dropout_problem_t::check_offset(const rndnn::dropout::desc &d) const {
    if (!d.with_offset) return;
    const rndnn::dims &global
            = d.global_dims.empty() ? d.src.get_dims() : d.global_dims;
    const rndnn::dims &mask_dims
            = d.noise_shape.empty() ? global : d.noise_shape;
    check_offset_range(
            so, rndnn::memory::desc(mask_dims, rndnn::data_type::bit).nelems());
}

} // namespace rndnn_cli
