// The RNG problem's options and parser (problem_rng.hpp).
#include "problem_rng.hpp"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "rndnn/npy.hpp"

namespace rndnn_cli {

namespace {

// The row of --dist (rndnn::distributions(), the library's one table).
const rndnn::distribution_info &parse_dist(const std::string &text) {
    try {
        return rndnn::find_distribution(text);
    } catch (const rndnn::error &) {
        std::string names;
        const auto &table = rndnn::distributions();
        for (size_t i = 0; i < table.size(); ++i)
            names += std::string(i == 0 ? ""
                                         : i + 1 == table.size() ? " or "
                                                                 : ", ")
                    + table[i].name;
        throw usage_error(
                "unknown --dist '" + text + "' (expected " + names + ")");
    }
}

// "0.5", "1": a default as its option shows it.
std::string number_text(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

// Whether @p d has a parameter named @p name.
bool has_param(const rndnn::distribution_info &d, const std::string &name) {
    for (const auto &p : d.params)
        if (name == p.name) return true;
    return false;
}

// A parameter of another distribution is almost certainly a mistake (a
// typo in --dist, or a script that lost track), so it is refused rather
// than ignored; names that distributions share (normal's and lognormal's
// --mean) belong to each.
void refuse_others(const po::variables_map &vm,
        const rndnn::distribution_info &dist) {
    for (const rndnn::distribution_info &d : rndnn::distributions()) {
        if (d.name == dist.name) continue;
        std::vector<std::string> flags;
        for (const auto &p : d.params)
            flags.push_back(p.name);
        if (std::string(d.name) == "bernoulli") flags.push_back("method");
        for (const std::string &f : flags)
            if (!has_param(dist, f) && given(vm, f.c_str()))
                throw usage_error("--" + f + " is only used with --dist "
                        + d.name);
    }
}

} // namespace

void add_rng_problem_options(po::options_description &desc) {
    auto opt = desc.add_options();
    std::string names, dtypes;
    for (const rndnn::distribution_info &d : rndnn::distributions()) {
        names += std::string(names.empty() ? "" : ", ") + d.name;
        std::string types;
        for (size_t i = 0; i < d.dst_types.size(); ++i)
            types += std::string(i == 0 ? "" : ", ")
                    + rndnn::dt2str(d.dst_types[i])
                    + (i == 0 && d.dst_types.size() > 1 ? " (default)" : "");
        dtypes += std::string(dtypes.empty() ? "" : "; ") + types + " for "
                + d.name;
    }
    opt("dist", text("bits"), ("distribution: " + names).c_str());
    // An option a parameter name, its help each distribution's use of it;
    // without a default (parse_rng_problem() takes the row's), as rows
    // sharing a name may differ in it.
    std::vector<std::pair<std::string, std::string>> params;
    for (const rndnn::distribution_info &d : rndnn::distributions())
        for (const auto &p : d.params) {
            const std::string help = std::string(d.name) + ": " + p.what
                    + ", " + p.range + " (default "
                    + number_text(p.default_value) + ")";
            auto it = std::find_if(params.begin(), params.end(),
                    [&](const auto &q) { return q.first == p.name; });
            if (it == params.end())
                params.emplace_back(p.name, help);
            else
                it->second += "; " + help;
        }
    for (const auto &p : params)
        opt(p.first.c_str(), text(), p.second.c_str());
    for (const rndnn::distribution_info &d : rndnn::distributions()) {
        if (std::string(d.name) == "bernoulli")
            opt("method", text("auto"),
                    "bernoulli: auto (bitsliced:32 where the algorithm "
                    "allows, else threshold32: exact to 2^-32 either way), "
                    "threshold32, bytewise (threshold32's p from a byte an "
                    "element), onednn (oneDNN's dropout mask; a dropout "
                    "problem takes --onednn-compat instead), or "
                    "bitsliced:B with 1 <= B <= 32");
    }
    opt("shape", text(), "dims joined by 'x', e.g. 64x128x1024 (required)");
    opt("dtype", text(), ("dst type: " + dtypes).c_str());
    add_stream_options(desc, "element");
    add_window_options(desc, "--shape");
}

rng_problem_t parse_rng_problem(const po::variables_map &vm) {
    using std::string;
    if (!vm.count("shape")) throw usage_error("--shape is required");

    const rndnn::distribution_info &dist
            = parse_dist(vm["dist"].as<string>());
    refuse_others(vm, dist);

    auto method = rndnn::bernoulli_method::automatic;
    int bits = 1;
    std::vector<double> values;
    std::vector<std::int64_t> integers;
    for (const auto &param : dist.params) {
        const string flag = string("--") + param.name;
        const string value = vm.count(param.name)
                ? vm[param.name].as<string>()
                : number_text(param.default_value);
        // A probability is checked as one, naming the flag; an integer
        // parameter is read exactly, as an s64; a real one as a double
        // (the library rounds it to f32 for an f32, bf16 or f16 dst).
        if (param.integer)
            integers.push_back(parse_s64(flag, value));
        else
            values.push_back(string(dist.name) == "bernoulli"
                            ? parse_probability(flag, value)
                            : parse_double(flag, value));
    }
    if (string(dist.name) == "bernoulli")
        parse_method(vm["method"].as<string>(), method, bits);
    rndnn::post_ops ops;
    ops.append_distribution(dist.name, values, method, bits, integers);

    rng_problem_t p;
    p.attr.set_post_ops(ops);
    const rndnn::dims shape = parse_shape("--shape", vm["shape"].as<string>());
    const rndnn::data_type dtype = rndnn::str2dt(
            vm.count("dtype") ? vm["dtype"].as<string>()
                              : rndnn::dt2str(dist.dst_types.front()));
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

void read_p_file(const po::variables_map &vm, const std::string &flag,
        const std::string &path, rng_problem_t &p) {
    const rndnn::post_ops &ops = p.attr.get_post_ops();
    if (ops.len() != 1 || ops.get(0).k != rndnn::post_ops::kind::bernoulli)
        throw usage_error(flag + " is only used with --dist bernoulli");
    if (given(vm, "p"))
        throw usage_error("--p and " + flag
                + " exclude each other: the file gives each element's p");
    p.p = rndnn::npy::load_file(path);
    const rndnn::dims &dst = p.desc.dst.get_dims();
    if (p.p.shape.size() > dst.size())
        throw usage_error(flag + " '" + path + "' has "
                + std::to_string(p.p.shape.size()) + " dims, --shape "
                + std::to_string(dst.size()) + ": it cannot broadcast");
    p.p.shape.insert(p.p.shape.begin(), dst.size() - p.p.shape.size(), 1);
    p.desc.p_tensor = p.p.md();
}

} // namespace rndnn_cli
