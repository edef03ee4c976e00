// `rndnn gen`: one tensor of random values into a file or stdout.
#include <initializer_list>
#include <iostream>

#include "cli_common.hpp"

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

// --method threshold32 | bitsliced:B. The range of B is the library's to
// check, so that its message is the one users see.
void parse_method(
        const std::string &text, rndnn::bernoulli_method &method, int &bits) {
    const std::string sliced = "bitsliced:";
    if (text == "threshold32") {
        method = rndnn::bernoulli_method::threshold32;
        bits = 1;
    } else if (text.compare(0, sliced.size(), sliced) == 0) {
        method = rndnn::bernoulli_method::bitsliced;
        bits = parse_int(
                "--method '" + text + "': B", text.substr(sliced.size()));
    } else {
        throw usage_error("unknown --method '" + text
                + "' (expected threshold32 or bitsliced:B, 1 <= B <= 32)");
    }
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

bool ends_with(const std::string &s, const std::string &suffix) {
    return s.size() >= suffix.size()
            && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void write_tensor(std::ostream &os, const rndnn::memory &mem, bool npy) {
    if (npy)
        rndnn::npy::save(os, mem);
    else
        rndnn::npy::save_raw(os, mem);
}

} // namespace

int gen_main(int argc, char **argv) {
    using std::string;
    po::options_description desc("Options");
    auto opt = desc.add_options();
    opt("help", "print this help and exit");
    opt("dist", text("bits"),
            "distribution: bits, bernoulli, uniform, normal");
    opt("p", text("0.5"), "bernoulli: probability of a 1, in [0, 1]");
    opt("method", text("threshold32"),
            "bernoulli: threshold32, or bitsliced:B with 1 <= B <= 32");
    opt("a", text("0"), "uniform: lower end (included)");
    opt("b", text("1"), "uniform: upper end (excluded)");
    opt("mean", text("0"), "normal: mean");
    opt("stddev", text("1"), "normal: standard deviation, >= 0");
    opt("shape", text(), "dims joined by 'x', e.g. 64x128x1024 (required)");
    opt("dtype", text(),
            "dst type: u32 for bits; bit (default), u8, s32, f32 for "
            "bernoulli; f32 (default), bf16, f16 for uniform and normal");
    opt("out", text(), "output file, or - for stdout (required)");
    opt("format", text(),
            "raw or npy; default npy if the file name ends in .npy, else raw");
    add_stream_options(desc, "element");
    po::variables_map vm;
    if (!parse_options(argc, argv, desc, "rndnn gen --shape DIMS --out FILE|-"
                               " [options]",
                vm))
        return exit_ok;

    // Parse everything, then build the primitive and generate: every bad
    // value is reported before a file is created.
    if (!vm.count("shape")) throw usage_error("--shape is required");
    if (!vm.count("out")) throw usage_error("--out is required");
    const string out = vm["out"].as<string>();
    if (out.empty()) throw usage_error("--out '' names no file");
    const bool to_stdout = out == "-";

    const dist_t dist = parse_dist(vm["dist"].as<string>());
    refuse_unless(vm, {"p", "method"}, dist == dist_t::bernoulli, "bernoulli");
    refuse_unless(vm, {"a", "b"}, dist == dist_t::uniform, "uniform");
    refuse_unless(vm, {"mean", "stddev"}, dist == dist_t::normal, "normal");

    rndnn::post_ops ops;
    switch (dist) {
        case dist_t::bits: break;
        case dist_t::bernoulli: {
            auto method = rndnn::bernoulli_method::threshold32;
            int bits = 1;
            parse_method(vm["method"].as<string>(), method, bits);
            ops.append_bernoulli(
                    parse_double("--p", vm["p"].as<string>()), method, bits);
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
    rndnn::primitive_attr attr;
    attr.set_post_ops(ops);

    const rndnn::dims shape = parse_shape("--shape", vm["shape"].as<string>());
    const rndnn::data_type dtype = rndnn::str2dt(
            vm.count("dtype") ? vm["dtype"].as<string>() : default_dtype(dist));
    const stream_options_t so = parse_stream_options(vm);

    bool npy = !to_stdout && ends_with(out, ".npy");
    if (vm.count("format")) {
        const string f = vm["format"].as<string>();
        if (f != "raw" && f != "npy")
            throw usage_error("unknown --format '" + f
                    + "' (expected raw or npy)");
        npy = f == "npy";
    }

    const rndnn::memory::desc md(shape, dtype);
    rndnn::rng::desc rd(so.alg, md);
    rd.with_offset = true;
    rd.name = so.name;
    const rndnn::rng::primitive_desc pd(rd, attr);
    const rndnn::stream strm(so.threads);
    const rndnn::rng prim(pd);

    rndnn::memory dst(md);
    // The offset is checked here (>= 0, offset + elements <= 2^63 - 1),
    // still before any file exists.
    prim.execute(strm,
            {{RNDNN_ARG_DST, dst},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(so.seed)},
                    {RNDNN_ARG_OFFSET, rndnn::memory::scalar(so.offset)},
                    {RNDNN_ARG_STREAM, rndnn::memory::scalar(so.stream_id)}});

    if (to_stdout) {
        write_tensor(std::cout, dst, npy);
        std::cout.flush();
        if (!std::cout) throw io_error("cannot write to stdout");
        return exit_ok;
    }
    atomic_file file(out);
    write_tensor(file.stream(), dst, npy);
    file.commit();
    return exit_ok;
}

} // namespace rndnn_cli
