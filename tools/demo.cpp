// rndnn-demo: the library's main job in a few lines. It writes a dropout
// keep mask (Bernoulli, one bit per element) and a normal tensor as .npy
// files, then prints what they hold.
//
//     rndnn-demo [--out-dir DIR] [--size N]
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "cli_common.hpp"

namespace {

// Every tensor of the demo comes from one seed; each takes its own stream
// (subsequence) so that the two are independent.
constexpr std::int64_t seed = 2024;

// Describe, create, execute: generates a tensor of @p md with the
// distribution post-op in @p ops.
rndnn::memory generate(const rndnn::memory::desc &md,
        const rndnn::post_ops &ops, std::int64_t stream_id) {
    rndnn::primitive_attr attr;
    attr.set_post_ops(ops);
    const rndnn::rng::primitive_desc pd(
            rndnn::rng::desc(rndnn::rng_alg::philox4x32_10, md), attr);
    const rndnn::rng prim(pd);
    std::cout << "  " << pd.info() << " on " << pd.impl_name() << "\n";

    rndnn::memory dst(md);
    prim.execute(rndnn::stream(),
            {{RNDNN_ARG_DST, dst},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(seed)},
                    {RNDNN_ARG_STREAM, rndnn::memory::scalar(stream_id)}});
    return dst;
}

void save(const rndnn::memory &mem, const std::string &path) {
    rndnn_cli::atomic_file file(path);
    rndnn::npy::save(file.stream(), mem);
    file.commit();
    std::cout << "  wrote " << path << "\n";
}

void mask_demo(const std::string &dir, rndnn::dim_t n) {
    const double p = 0.9; // keep probability, i.e. dropout rate 0.1
    std::cout << "mask.npy: Bernoulli(" << p << ") keep mask, 1 bit each\n";
    rndnn::post_ops ops;
    // threshold32 keeps with probability ceil(p * 2^32) / 2^32, as close to
    // 0.9 as 32 bits get; bitsliced:B would round p to a multiple of 2^-B.
    ops.append_bernoulli(p, rndnn::bernoulli_method::threshold32);
    const rndnn::memory::desc md({n}, rndnn::data_type::bit);
    const rndnn::memory mask = generate(md, ops, 0);
    save(mask, dir + "/mask.npy");

    // Element k is bit k % 8 of byte k / 8, least significant bit first.
    const auto *bytes = mask.data<const unsigned char>();
    rndnn::dim_t kept = 0;
    for (rndnn::dim_t k = 0; k < n; ++k)
        kept += (bytes[k / 8] >> (k % 8)) & 1;
    const double frac = static_cast<double>(kept) / static_cast<double>(n);
    const double sigma = std::sqrt(p * (1 - p) / static_cast<double>(n));
    std::cout << "  kept " << kept << " of " << n << " = " << frac
              << " (p = " << p << ", " << (frac - p) / sigma
              << " standard deviations off)\n"
              << "  " << md.get_size() << " bytes, vs "
              << 4 * n << " for an f32 mask (1/32)\n";
}

void normal_demo(const std::string &dir, rndnn::dim_t n) {
    std::cout << "normal.npy: Normal(0, 1), f32\n";
    rndnn::post_ops ops;
    ops.append_normal(0.f, 1.f);
    const rndnn::memory::desc md({n}, rndnn::data_type::f32);
    const rndnn::memory x = generate(md, ops, 1);
    save(x, dir + "/normal.npy");

    const float *v = x.data<const float>();
    double sum = 0, sum2 = 0;
    for (rndnn::dim_t i = 0; i < n; ++i) {
        sum += v[i];
        sum2 += double(v[i]) * v[i];
    }
    const double mean = sum / static_cast<double>(n);
    const double var = sum2 / static_cast<double>(n) - mean * mean;
    std::cout << "  mean " << mean << ", stddev " << std::sqrt(var)
              << ", min " << *std::min_element(v, v + n) << ", max "
              << *std::max_element(v, v + n) << "\n";
}

} // namespace

int main(int argc, char **argv) {
    return rndnn_cli::run_guarded("rndnn-demo", [&] {
        namespace po = rndnn_cli::po;
        po::options_description desc("Options");
        auto opt = desc.add_options();
        opt("help", "print this help and exit");
        opt("out-dir", rndnn_cli::text("."), "directory for the .npy files");
        opt("size", rndnn_cli::text(std::to_string(1 << 20)),
                "elements per tensor, >= 1");
        po::variables_map vm;
        if (!rndnn_cli::parse_options(argc, argv, desc,
                    "rndnn-demo [--out-dir DIR] [--size N]", vm))
            return rndnn_cli::exit_ok;
        const std::string size = vm["size"].as<std::string>();
        const rndnn::dim_t n = rndnn_cli::parse_s64("--size", size);
        if (n < 1) throw rndnn_cli::usage_error("--size " + size + " is < 1");
        const std::string dir = vm["out-dir"].as<std::string>();
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec)
            throw rndnn_cli::io_error(
                    "cannot create directory '" + dir + "': " + ec.message());

        mask_demo(dir, n);
        normal_demo(dir, n);
        return rndnn_cli::exit_ok;
    });
}
