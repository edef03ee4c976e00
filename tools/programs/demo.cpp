// rndnn-demo: the library's main job in a few lines. It writes a dropout
// keep mask (Bernoulli, one bit per element) and a normal tensor as .npy
// files, runs dropout forward and backward on that tensor, and prints what
// they hold.
//
//     rndnn-demo [--out-dir DIR] [--size N]
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "common/cli_common.hpp"
#include "common/cli_output.hpp"

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
    rndnn_cli::output_file file(path);
    file.write(mem, true);
    file.commit();
    // The demo goes on: a signal that its commit held ends it now.
    rndnn_cli::release_signals();
    std::cout << "  wrote " << path << "\n";
}

void mask_demo(const std::string &dir, rndnn::dim_t n) {
    const double p = 0.9; // keep probability, i.e. dropout rate 0.1
    std::cout << "mask.npy: Bernoulli(" << p << ") keep mask, 1 bit each\n";
    rndnn::post_ops ops;
    // The default method keeps with probability round(p * 2^32) / 2^32, as
    // close to 0.9 as 32 bits get (bitsliced:32, about a quarter of a word
    // an element); bitsliced:B would round p to a multiple of 2^-B.
    ops.append_bernoulli(p);
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

rndnn::memory normal_demo(const std::string &dir, rndnn::dim_t n) {
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
    return x;
}

// Dropout on x: forward training writes dst and a bit mask; backward
// recomputes the mask from (seed, stream, offset) instead of reading it,
// and gives the same gradient as the stored mask.
void dropout_demo(const std::string &dir, const rndnn::memory &x) {
    const double rate = 0.1;
    const rndnn::memory::desc &md = x.get_desc();
    const rndnn::dim_t n = md.nelems();
    std::cout << "dropout.npy: dropout(normal, rate " << rate
              << "), mask in dropout_mask.npy\n";
    rndnn::dropout::desc d;
    d.src = d.dst = md;
    d.mask = rndnn::memory::desc(md.get_dims(), rndnn::data_type::bit);
    d.rate = rate;
    const rndnn::dropout::primitive_desc fwd_pd(d);
    std::cout << "  " << fwd_pd.info() << " on " << fwd_pd.impl_name() << "\n";
    rndnn::memory y(md), mask(d.mask);
    const auto seed_arg = rndnn::memory::scalar(seed);
    const auto stream_arg = rndnn::memory::scalar(std::int64_t(2));
    rndnn::dropout(fwd_pd).execute(rndnn::stream(),
            {{RNDNN_ARG_SRC, x}, {RNDNN_ARG_DST, y}, {RNDNN_ARG_MASK, mask},
                    {RNDNN_ARG_SEED, seed_arg}, {RNDNN_ARG_STREAM, stream_arg}});
    save(y, dir + "/dropout.npy");
    save(mask, dir + "/dropout_mask.npy");

    // Backward of sum(dropout(x)): diff_dst = 1 everywhere.
    rndnn::memory ones(md), dx_stored(md), dx_recomputed(md);
    std::fill(ones.data<float>(), ones.data<float>() + n, 1.f);
    d.prop = rndnn::prop_kind::backward;
    rndnn::dropout(rndnn::dropout::primitive_desc(d)).execute(rndnn::stream(),
            {{RNDNN_ARG_DIFF_DST, ones}, {RNDNN_ARG_DIFF_SRC, dx_stored},
                    {RNDNN_ARG_MASK, mask}});
    d.mask = rndnn::memory::desc();
    const rndnn::dropout::primitive_desc bwd_pd(d);
    rndnn::dropout(bwd_pd).execute(rndnn::stream(),
            {{RNDNN_ARG_DIFF_DST, ones}, {RNDNN_ARG_DIFF_SRC, dx_recomputed},
                    {RNDNN_ARG_SEED, seed_arg}, {RNDNN_ARG_STREAM, stream_arg}});
    const float *a = dx_stored.data<const float>();
    const float *b = dx_recomputed.data<const float>();
    const float *v = y.data<const float>();
    rndnn::dim_t zeros = 0;
    for (rndnn::dim_t i = 0; i < n; ++i)
        zeros += v[i] == 0.f;
    std::cout << "  dropped " << zeros << " of " << n << "; kept values scaled by "
              << 1 / (1 - rate) << "\n"
              << "  backward on " << bwd_pd.impl_name()
              << ": recomputed mask gives the stored mask's gradient: "
              << (std::equal(a, a + n, b) ? "yes" : "NO") << "\n"
              << "  mask memory kept for backward: " << fwd_pd.mask_bytes()
              << " bytes as bits, " << n << " as u8, 0 when recomputed\n";
}

} // namespace

int main(int argc, char **argv) {
    return rndnn_cli::run_guarded("rndnn-demo", [&] {
        auto desc = rndnn_cli::options_with_help();
        auto opt = desc.add_options();
        opt("out-dir", rndnn_cli::text("."), "directory for the .npy files");
        opt("size", rndnn_cli::text(std::to_string(1 << 20)),
                "elements per tensor, >= 1");
        rndnn_cli::po::variables_map vm;
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
        dropout_demo(dir, normal_demo(dir, n));
        return rndnn_cli::exit_ok;
    });
}
