// rndnn-attention: the attention block of docs/attention.md, trained on
// random inputs. It builds the graph, compiles one plan per mask mode, runs
// forward and backward several times and prints the time of each node, the
// share of softmax and dropout and the memory each plan holds between
// forward and backward; with --unfused, each plan again with softmax and
// dropout as two nodes, and the ratio of the steps.
//
//     rndnn-attention [--batch 4] [--heads 8] [--seq 512] [--head-dim 64]
//         [--rate 0.1] [--method M] [--dtype f32|bf16] [--causal]
//         [--masks bit,u8,recompute] [--unfused]
//         [--recompute-output] [--threads 1] [--steps 5] [--seed 42]
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "common/cli_common.hpp"

namespace {

using rndnn::dim_t;
using rndnn::tensor_id;

enum : tensor_id { q, k, v, scores, probs, dropped, out };

// out = dropout(softmax(q x k^T / sqrt(head_dim))) x v, for q, k and v of
// dims batch x heads x seq x head_dim.
rndnn::graph attention(const rndnn::dims &qkv_dims, double rate,
        rndnn::bernoulli_method method, int bits, rndnn::data_type dt,
        bool causal) {
    const dim_t seq = qkv_dims[2], head_dim = qkv_dims[3];
    const rndnn::memory::desc qkv(qkv_dims, dt);
    const rndnn::memory::desc sc({qkv_dims[0], qkv_dims[1], seq, seq}, dt);
    rndnn::graph g;
    g.add_input(q, qkv);
    g.add_input(k, qkv);
    g.add_input(v, qkv);
    g.add_tensor(scores, sc);
    g.add_tensor(probs, sc);
    g.add_tensor(dropped, sc);
    g.add_output(out, qkv);

    rndnn::matmul_params qk;
    qk.transpose_b = true; // k^T is a strided view: no copy
    qk.scale = 1.f / std::sqrt(static_cast<float>(head_dim));
    g.add_matmul("scores", q, k, scores, qk);
    rndnn::softmax_params sp;
    sp.causal = causal;
    g.add_softmax("softmax", scores, probs, -1, sp);
    rndnn::dropout_params dp;
    dp.rate = rate;
    dp.method = method;
    dp.bits = bits;
    g.add_dropout("dropout", probs, dropped, dp);
    g.add_matmul("context", dropped, v, out);
    g.finalize(); // throws here, naming the node, if anything is wrong
    return g;
}

// A tensor of normal values from rndnn's RNG (stream id @p id).
rndnn::memory normal(const rndnn::memory::desc &md, std::int64_t seed,
        std::int64_t id) {
    rndnn::post_ops po;
    po.append_normal(0.f, 1.f);
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    rndnn::memory m(md);
    rndnn::rng(rndnn::rng::primitive_desc(
                       rndnn::rng::desc(rndnn::rng_alg::philox4x32_10, md),
                       attr))
            .execute(rndnn::stream(),
                    {{RNDNN_ARG_DST, m},
                            {RNDNN_ARG_SEED, rndnn::memory::scalar(seed)},
                            {RNDNN_ARG_STREAM, rndnn::memory::scalar(id)}});
    return m;
}

double median(std::vector<double> x) {
    std::sort(x.begin(), x.end());
    const size_t n = x.size();
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

// Times of one node over the timed steps.
struct node_times_t {
    std::vector<double> fwd, bwd;
    std::vector<std::string> impls;
};

// Runs and reports one plan; returns its total (the sum of the nodes'
// medians), ms.
double run_plan(const rndnn::graph &g, const rndnn::compile_options &options,
        const rndnn::memory::desc &qkv, std::int64_t seed, int steps) {
    std::cout << "\nplan: masks " << rndnn::mask_mode2str(options.masks)
              << (options.recompute_dropout_output
                                 ? ", dropout output recomputed"
                                 : "")
              << (options.fuse_softmax_dropout ? ", softmax and dropout fused"
                                               : ", unfused")
              << "\n";
    rndnn::compiled_graph c = g.compile(options);
    rndnn::memory mq = normal(qkv, seed, 1), mk = normal(qkv, seed, 2),
                  mv = normal(qkv, seed, 3), dout = normal(qkv, seed, 4);
    rndnn::memory mo(qkv), dq(qkv), dk(qkv), dv(qkv);
    rndnn::generator gen(seed);

    std::map<std::string, node_times_t> nodes;
    std::vector<std::string> order;
    for (int step = -1; step < steps; ++step) { // step -1 warms up
        c.execute_forward(
                {{q, mq}, {k, mk}, {v, mv}, {out, mo}}, gen); // new masks
        c.execute_backward({{out, dout}}, {{q, dq}, {k, dk}, {v, dv}});
        if (step < 0) continue;
        std::map<std::string, double> fwd, bwd;
        for (const rndnn::step_time &s : c.get_step_times()) {
            (s.backward ? bwd : fwd)[s.node] += s.ms;
            if (step > 0) continue;
            if (!nodes.count(s.node)) order.push_back(s.node);
            std::vector<std::string> &impls = nodes[s.node].impls;
            if (std::find(impls.begin(), impls.end(), s.impl) == impls.end())
                impls.push_back(s.impl);
        }
        for (const std::string &name : order) {
            nodes[name].fwd.push_back(fwd[name]);
            nodes[name].bwd.push_back(bwd[name]);
        }
    }

    std::cout << "  " << std::left << std::setw(16) << "node" << std::right
              << std::setw(10) << "fwd ms" << std::setw(10) << "bwd ms"
              << std::setw(8) << "share" << "  implementations\n"
              << std::fixed << std::setprecision(2);
    // Each node's median time over the steps; the total is their sum.
    double total = 0;
    for (const std::string &name : order)
        total += median(nodes.at(name).fwd) + median(nodes.at(name).bwd);
    for (const std::string &name : order) {
        const node_times_t &n = nodes.at(name);
        const double f = median(n.fwd), b = median(n.bwd);
        std::ostringstream impls;
        for (size_t i = 0; i < n.impls.size(); ++i)
            impls << (i ? ", " : "") << n.impls[i];
        std::cout << "  " << std::left << std::setw(16) << name << std::right
                  << std::setw(10) << f << std::setw(10) << b << std::setw(7)
                  << std::setprecision(1) << 100 * (f + b) / total << "%"
                  << std::setprecision(2) << "  " << impls.str() << "\n";
    }
    // Fused, the two nodes' steps are one node's, "softmax+dropout".
    double softmax_dropout = 0;
    for (const char *name : {"softmax", "dropout", "softmax+dropout"})
        if (nodes.count(name))
            softmax_dropout
                    += median(nodes.at(name).fwd) + median(nodes.at(name).bwd);
    std::cout << "  " << std::left << std::setw(16) << "total" << std::right
              << std::setw(20) << total << " ms (medians of " << steps
              << " steps)\n"
              << "  softmax + dropout share of forward + backward: "
              << std::setprecision(1) << 100 * softmax_dropout / total
              << "%\n"
              << std::defaultfloat << std::setprecision(6)
              << "memory held between forward and backward:\n"
              << c.get_memory_report().str();
    return total;
}

} // namespace

int main(int argc, char **argv) {
    return rndnn_cli::run_guarded("rndnn-attention", [&] {
        auto desc = rndnn_cli::options_with_help();
        auto opt = desc.add_options();
        opt("batch", rndnn_cli::text("4"), "batch size, >= 1");
        opt("heads", rndnn_cli::text("8"), "heads, >= 1");
        opt("seq", rndnn_cli::text("512"), "sequence length, >= 1");
        opt("head-dim", rndnn_cli::text("64"), "head dimension, >= 1");
        opt("rate", rndnn_cli::text("0.1"), "dropout rate, in [0, 1]");
        opt("method", rndnn_cli::text("auto"),
                "Bernoulli method: auto (bitsliced:32, about a quarter of a "
                "word an element), threshold32 (one word an element; both "
                "keep with probability exact to 2^-32) or bitsliced:B (keep "
                "probability rounded to a multiple of 2^-B)");
        opt("dtype", rndnn_cli::text("f32"), "f32 or bf16");
        opt("causal", "mask future positions in the softmax");
        opt("masks", rndnn_cli::text("bit,u8,recompute"),
                "mask modes to compare: bit, u8, recompute, comma-separated");
        opt("unfused", "also run each plan with softmax and dropout as two "
                       "nodes (oneDNN's softmax, rndnn's dropout), and print "
                       "the ratio");
        opt("recompute-output", "also recompute the dropout output in "
                                "backward instead of keeping it");
        opt("threads", rndnn_cli::text("1"), "threads, >= 1");
        opt("steps", rndnn_cli::text("5"), "timed steps, >= 1");
        opt("seed", rndnn_cli::text("42"), "seed of the inputs and masks");
        rndnn_cli::po::variables_map vm;
        if (!rndnn_cli::parse_options(argc, argv, desc,
                    "rndnn-attention [--batch N] [--heads N] [--seq N] "
                    "[--head-dim N] [--rate R] [--method M] [--dtype f32|bf16] "
                    "[--causal] [--masks LIST] [--unfused] "
                    "[--recompute-output] "
                    "[--threads N] [--steps N]",
                    vm))
            return rndnn_cli::exit_ok;
        const auto positive = [&](const char *name) {
            const std::string flag = std::string("--") + name;
            const int x
                    = rndnn_cli::parse_int(flag, vm[name].as<std::string>());
            if (x < 1)
                throw rndnn_cli::usage_error(
                        flag + " " + std::to_string(x) + " is < 1");
            return x;
        };
        const rndnn::dims qkv_dims = {positive("batch"), positive("heads"),
                positive("seq"), positive("head-dim")};
        const double rate = rndnn_cli::parse_probability(
                "--rate", vm["rate"].as<std::string>());
        rndnn::bernoulli_method method;
        int bits;
        rndnn_cli::parse_method(vm["method"].as<std::string>(), method, bits);
        const rndnn::data_type dt
                = rndnn::str2dt(vm["dtype"].as<std::string>());
        rndnn::compile_options options;
        options.threads = positive("threads");
        options.recompute_dropout_output = vm.count("recompute-output") > 0;
        const int steps = positive("steps");
        const std::int64_t seed = rndnn_cli::parse_s64(
                "--seed", vm["seed"].as<std::string>());
        std::vector<rndnn::mask_mode> modes;
        std::stringstream list(vm["masks"].as<std::string>());
        for (std::string m; std::getline(list, m, ',');) {
            if (m == "bit") modes.push_back(rndnn::mask_mode::bit);
            else if (m == "u8") modes.push_back(rndnn::mask_mode::u8);
            else if (m == "recompute")
                modes.push_back(rndnn::mask_mode::recompute);
            else
                throw rndnn_cli::usage_error("--masks: unknown mode '" + m
                        + "' (expected bit, u8 or recompute)");
        }

        std::cout << "attention: batch " << qkv_dims[0] << ", heads "
                  << qkv_dims[1] << ", seq " << qkv_dims[2] << ", head_dim "
                  << qkv_dims[3] << ", " << rndnn::dt2str(dt) << ", rate "
                  << rate << " (" << vm["method"].as<std::string>() << "), "
                  << options.threads << " thread(s)\n";
        const rndnn::graph g = attention(
                qkv_dims, rate, method, bits, dt, vm.count("causal") > 0);
        const rndnn::memory::desc qkv(qkv_dims, dt);
        for (rndnn::mask_mode m : modes) {
            options.masks = m;
            try {
                options.fuse_softmax_dropout = true;
                const double fused = run_plan(g, options, qkv, seed, steps);
                if (!vm.count("unfused")) continue;
                options.fuse_softmax_dropout = false;
                const double unfused = run_plan(g, options, qkv, seed, steps);
                std::cout << "\nmasks " << rndnn::mask_mode2str(m)
                          << ": the fused step is " << std::fixed
                          << std::setprecision(2) << unfused / fused
                          << "x as fast as the unfused one\n"
                          << std::defaultfloat << std::setprecision(6);
            } catch (const rndnn::error &e) {
                if (e.status() != rndnn::status::unimplemented) throw;
                std::cout << "skipped: " << e.what() << "\n";
                return rndnn_cli::exit_ok;
            }
        }
        return rndnn_cli::exit_ok;
    });
}
