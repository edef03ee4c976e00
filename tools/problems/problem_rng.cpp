// The RNG problem's options and parser (problem_rng.hpp).
#include "problem_rng.hpp"

#include <initializer_list>

namespace rndnn_cli {

namespace {

enum class dist_t { bits, bernoulli, uniform, normal };

dist_t parse_dist(const std::string &text) {
    if (text == "bits") return dist_t::bits;
    if (text == "bernoulli") return dist_t::bernoulli;
    if (text == "uniform") return dist_t::uniform;
    if (text == "normal") return dist_t::normal;
    throw usage_error("unknown --dist '" + text
            + "' (expected bits, bernoulli, uniform or normal)");
}

// The dst type a distribution writes when --dtype is not given.
const char *default_dtype(dist_t dist) {
    switch (dist) {
        case dist_t::bits: return "u32";
        case dist_t::bernoulli: return "bit";
        case dist_t::uniform:
        case dist_t::normal: return "f32";
    }
    return "u32";
}

// A parameter of another distribution is almost certainly a mistake (a
// typo in --dist, or a script that lost track), so it is refused rather
// than ignored.
void refuse_unless(const po::variables_map &vm,
        std::initializer_list<const char *> flags, bool used,
        const char *dist) {
    if (used) return;
    for (const char *f : flags)
        if (given(vm, f))
            throw usage_error(std::string("--") + f
                    + " is only used with --dist " + dist);
}

} // namespace

void add_rng_problem_options(po::options_description &desc) {
    auto opt = desc.add_options();
    opt("dist", text("bits"),
            "distribution: bits, bernoulli, uniform, normal");
    opt("p", text("0.5"), "bernoulli: probability of a 1, in [0, 1]");
    opt("method", text("auto"),
            "bernoulli: auto (bitsliced:32 where the algorithm allows, else "
            "threshold32: exact to 2^-32 either way), threshold32, "
            "bytewise (threshold32's p from a byte an element), onednn "
            "(oneDNN's dropout mask; a dropout problem takes "
            "--onednn-compat instead), or bitsliced:B with 1 <= B <= 32");
    opt("a", text("0"), "uniform: lower end (included)");
    opt("b", text("1"), "uniform: upper end (reached only by rounding)");
    opt("mean", text("0"), "normal: mean");
    opt("stddev", text("1"), "normal: standard deviation, >= 0");
    opt("shape", text(), "dims joined by 'x', e.g. 64x128x1024 (required)");
    opt("dtype", text(),
            "dst type: u32 for bits; bit (default), u8, s32, f32 for "
            "bernoulli; f32 (default), bf16, f16 for uniform and normal");
    add_stream_options(desc, "element");
    add_window_options(desc, "--shape");
}

rng_problem_t parse_rng_problem(const po::variables_map &vm) {
    using std::string;
    if (!vm.count("shape")) throw usage_error("--shape is required");

    const dist_t dist = parse_dist(vm["dist"].as<string>());
    refuse_unless(vm, {"p", "method"}, dist == dist_t::bernoulli, "bernoulli");
    refuse_unless(vm, {"a", "b"}, dist == dist_t::uniform, "uniform");
    refuse_unless(vm, {"mean", "stddev"}, dist == dist_t::normal, "normal");

    rndnn::post_ops ops;
    switch (dist) {
        case dist_t::bits: break;
        case dist_t::bernoulli: {
            auto method = rndnn::bernoulli_method::automatic;
            int bits = 1;
            parse_method(vm["method"].as<string>(), method, bits);
            ops.append_bernoulli(
                    parse_probability("--p", vm["p"].as<string>()), method, bits);
            break;
        }
        case dist_t::uniform:
            ops.append_uniform(parse_float("--a", vm["a"].as<string>()),
                    parse_float("--b", vm["b"].as<string>()));
            break;
        case dist_t::normal:
            ops.append_normal(parse_float("--mean", vm["mean"].as<string>()),
                    parse_float("--stddev", vm["stddev"].as<string>()));
            break;
    }

    rng_problem_t p;
    p.attr.set_post_ops(ops);
    const rndnn::dims shape = parse_shape("--shape", vm["shape"].as<string>());
    const rndnn::data_type dtype = rndnn::str2dt(
            vm.count("dtype") ? vm["dtype"].as<string>() : default_dtype(dist));
    p.so = parse_stream_options(vm);
    p.desc = rndnn::rng::desc(p.so.alg, rndnn::memory::desc(shape, dtype));
    p.desc.with_offset = true;
    p.desc.name = p.so.name;
    parse_window(vm, p.desc.global_dims, p.desc.origin);
    rndnn::dim_t n = p.desc.dst.nelems();
    if (!p.desc.global_dims.empty()) {
        // The window's own checks (rank, fit) come first: they name it.
        rndnn::rng::primitive_desc(p.desc, p.attr);
        // The global tensor's bytes must fit too (a file of it is cut
        // into shards): its message names the flag, not --shape.
        try {
            n = rndnn::memory::desc(p.desc.global_dims, dtype).nelems();
        } catch (const rndnn::error &e) {
            throw rndnn::error(e.status(), "--global-shape '"
                    + vm["global-shape"].as<string>() + "': " + e.what());
        }
    }
    check_offset_range(p.so, n);
    return p;
}

} // namespace rndnn_cli
