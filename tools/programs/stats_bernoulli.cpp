// rndnn-stats-bernoulli: statistical checks of Bernoulli masks at scale
// (scripts/stats.sh runs it; docs/semantics.md quotes its figures). Not a
// test: one run takes seconds to minutes, so CI does not run it.
//
//   rndnn-stats-bernoulli --p P [--method M] [--alg A] [--log2-bits N]
//                         [--seed S]
//
// Draws 2^N mask bits of Bernoulli(P) (default 2^31) in pieces of 2^27
// through the RNG primitive, as one stream from offset 0, and prints, each
// as a z-score (a standard normal under the binomial model, |z| < 2 about
// 95% of the time):
//   mean    the count of ones against n p, sd sqrt(n p (1 - p));
//   serial  the chi-square of the 65536 values of the mask's consecutive
//           16-bit words (bit k of a word: element 16 i + k) against the
//           probabilities p^ones (1 - p)^(16 - ones), the values expected
//           fewer than 5 times pooled in one cell; Wilson-Hilferty z;
//   runs    the count of runs (maximal blocks of equal bits) against
//           1 + 2 (n - 1) p (1 - p), and the chi-square of the run lengths
//           of ones and of zeros against the geometric law (lengths up to
//           the last with an expected count of at least 5 each, the rest in
//           one bin).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "rndnn/rndnn.hpp"
#include "common/cli_common.hpp"

namespace {

// Run lengths counted exactly up to this; longer ones share the last bin.
constexpr int max_len = 256;

struct counts_t {
    uint64_t ones = 0;
    std::vector<uint64_t> serial = std::vector<uint64_t>(65536);
    // Runs of value v by length (index min(length, max_len)).
    std::vector<uint64_t> runs[2] = {std::vector<uint64_t>(max_len + 1),
            std::vector<uint64_t>(max_len + 1)};
    int cur = -1; // the value of the open run, -1 before the first bit
    uint64_t cur_len = 0;

    void close_run() {
        if (cur >= 0)
            ++runs[cur][std::min<uint64_t>(cur_len, max_len)];
    }
    // Bits of w, bit 0 first; `bits` of them (64 except at the end).
    void add_word(uint64_t w, int bits) {
        int pos = 0;
        while (pos < bits) {
            const uint64_t rest = w >> pos;
            const int v = static_cast<int>(rest & 1u);
            // Length of the block of v starting at pos, within the word.
            const uint64_t same = v ? ~rest : rest;
            int len = same == 0 ? 64 - pos : __builtin_ctzll(same);
            len = std::min(len, bits - pos);
            if (v == cur) {
                cur_len += static_cast<uint64_t>(len);
            } else {
                close_run();
                cur = v;
                cur_len = static_cast<uint64_t>(len);
            }
            pos += len;
        }
    }
};

// z of a chi-square with k degrees of freedom (Wilson-Hilferty).
double chi2_z(double chi2, double k) {
    const double h = 2.0 / (9.0 * k);
    return (std::cbrt(chi2 / k) - (1 - h)) / std::sqrt(h);
}

// Chi-square and degrees of freedom of run lengths of one value against
// the geometric law of stay probability q: P(length l) = (1 - q) q^(l-1).
void runs_chi2(const std::vector<uint64_t> &c, double q, double &chi2,
        double &dof) {
    double total = 0;
    for (uint64_t x : c)
        total += static_cast<double>(x);
    chi2 = 0;
    dof = -1;
    double tail_obs = total, tail_p = 1;
    for (int l = 1; l < max_len; ++l) {
        const double pl = (1 - q) * std::pow(q, l - 1);
        // Stop where this bin or the rest would expect fewer than 5.
        if (total * pl < 5 || total * (tail_p - pl) < 5) break;
        const double e = total * pl, o = static_cast<double>(c[l]);
        chi2 += (o - e) * (o - e) / e;
        dof += 1;
        tail_obs -= o;
        tail_p -= pl;
    }
    const double e = total * tail_p;
    chi2 += (tail_obs - e) * (tail_obs - e) / e;
    dof += 1;
}

} // namespace

int main(int argc, char **argv) {
    return rndnn_cli::run_guarded("rndnn-stats-bernoulli", [&] {
        auto desc = rndnn_cli::options_with_help();
        auto opt = desc.add_options();
        opt("p", rndnn_cli::text(), "probability of a 1, in (0, 1) (required)");
        opt("method", rndnn_cli::text("auto"),
                "auto, threshold32 or bitsliced:B");
        opt("alg", rndnn_cli::text("philox4x32_10"), "the algorithm");
        opt("log2-bits", rndnn_cli::text("31"),
                "mask bits to draw, as a power of two, in [27, 36]");
        opt("seed", rndnn_cli::text("1"), "seed");
        rndnn_cli::po::variables_map vm;
        if (!rndnn_cli::parse_options(argc, argv, desc,
                    "rndnn-stats-bernoulli --p P [options]", vm))
            return rndnn_cli::exit_ok;
        if (!vm.count("p")) throw rndnn_cli::usage_error("--p is required");
        const double p = rndnn_cli::parse_double("--p", vm["p"].as<std::string>());
        if (!(p > 0 && p < 1))
            throw rndnn_cli::usage_error("--p " + vm["p"].as<std::string>()
                    + " is not in (0, 1)");
        const int log2n = rndnn_cli::parse_int(
                "--log2-bits", vm["log2-bits"].as<std::string>());
        if (log2n < 27 || log2n > 36)
            throw rndnn_cli::usage_error("--log2-bits "
                    + std::to_string(log2n) + " is not in [27, 36]");
        rndnn::bernoulli_method method;
        int bits;
        rndnn_cli::parse_method(vm["method"].as<std::string>(), method, bits);
        const rndnn::rng_alg alg = rndnn::str2alg(vm["alg"].as<std::string>());
        const std::int64_t seed = rndnn_cli::parse_s64(
                "--seed", vm["seed"].as<std::string>());

        const rndnn::dim_t piece = rndnn::dim_t(1) << 27;
        rndnn::rng::desc d(alg, rndnn::memory::desc({piece}, rndnn::dt::bit));
        d.with_offset = true;
        rndnn::post_ops ops;
        ops.append_bernoulli(p, method, bits);
        rndnn::primitive_attr attr;
        attr.set_post_ops(ops);
        const rndnn::rng prim {rndnn::rng::primitive_desc(d, attr)};
        rndnn::memory mask(d.dst);
        counts_t c;
        const std::int64_t pieces = std::int64_t(1) << (log2n - 27);
        for (std::int64_t k = 0; k < pieces; ++k) {
            prim.execute(rndnn::stream(),
                    {{RNDNN_ARG_DST, mask},
                            {RNDNN_ARG_SEED, rndnn::memory::scalar(seed)},
                            {RNDNN_ARG_OFFSET,
                                    rndnn::memory::scalar(k * piece)}});
            const auto *bytes = mask.data<const unsigned char>();
            for (rndnn::dim_t i = 0; i < piece / 8; i += 8) {
                uint64_t w;
                std::memcpy(&w, bytes + i, 8);
                c.ones += static_cast<uint64_t>(__builtin_popcountll(w));
                for (int s = 0; s < 64; s += 16)
                    ++c.serial[(w >> s) & 0xffffu];
                c.add_word(w, 64);
            }
        }
        c.close_run();

        const double n = std::ldexp(1.0, log2n);
        const double z_mean = (static_cast<double>(c.ones) - n * p)
                / std::sqrt(n * p * (1 - p));
        // Values expected fewer than 5 times share one cell.
        double chi2 = 0, cells = 0, pool_o = 0, pool_e = 0;
        const double words = n / 16;
        for (uint32_t v = 0; v < 65536; ++v) {
            const int k = __builtin_popcount(v);
            const double e = words * std::pow(p, k) * std::pow(1 - p, 16 - k);
            const double o = static_cast<double>(c.serial[v]);
            if (e < 5) {
                pool_o += o;
                pool_e += e;
                continue;
            }
            chi2 += (o - e) * (o - e) / e;
            cells += 1;
        }
        if (pool_e > 0) {
            chi2 += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
            cells += 1;
        }
        const double z_serial = chi2_z(chi2, cells - 1);
        double nruns = 0;
        for (int v = 0; v < 2; ++v)
            for (uint64_t x : c.runs[v])
                nruns += static_cast<double>(x);
        const double pq = p * (1 - p);
        const double runs_mean = 1 + 2 * (n - 1) * pq;
        // Var of the number of runs of a Bernoulli(p) sequence: the n - 1
        // changes have probability 2pq each, and neighbours covary by
        // pq - 4 p^2 q^2: 4 n pq (1 - 3 pq) + O(1).
        const double z_runs
                = (nruns - runs_mean) / std::sqrt(4 * n * pq * (1 - 3 * pq));
        double chi1, dof1, chi0, dof0;
        runs_chi2(c.runs[1], p, chi1, dof1);
        runs_chi2(c.runs[0], 1 - p, chi0, dof0);
        std::printf("p=%.17g method=%s alg=%s bits=2^%d seed=%lld\n", p,
                vm["method"].as<std::string>().c_str(),
                vm["alg"].as<std::string>().c_str(), log2n,
                static_cast<long long>(seed));
        std::printf("  mean     ones/n=%.9f             z=%+.2f\n",
                static_cast<double>(c.ones) / n, z_mean);
        std::printf("  serial   chi2=%.0f dof=%.0f   z=%+.2f\n", chi2,
                cells - 1, z_serial);
        std::printf("  runs     count/n=%.9f          z=%+.2f\n", nruns / n,
                z_runs);
        std::printf("  lengths  ones chi2=%.1f dof=%.0f    z=%+.2f\n", chi1,
                dof1, chi2_z(chi1, dof1));
        std::printf("  lengths  zeros chi2=%.1f dof=%.0f   z=%+.2f\n", chi0,
                dof0, chi2_z(chi0, dof0));
        return rndnn_cli::exit_ok;
    });
}
