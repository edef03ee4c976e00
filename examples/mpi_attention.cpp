// Data- and tensor-parallel training of a multi-head attention block under
// MPI, with rndnn's graph executor (docs/distributed.md).
//
//   mpirun -np K rndnn-mpi-attention [--parallel data|tensor] [--steps N]
//       [--batch B] [--heads H] [--out DIR]
//
// The model: y_h = dropout(softmax(q_h k_h^T / sqrt(dh))) v_h Wo_h with
// q_h = x Wq_h (k, v alike) for each head h, the prediction P = sum_h y_h,
// and the loss mean((P - target)^2), trained by SGD.
//
// - data: each rank holds a block of the batch and every head; the weight
//   gradients are summed over the ranks (MPI_Allreduce).
// - tensor: each rank holds every sample and a block of the heads (its
//   slices of Wq, Wk, Wv, Wo); the partial predictions are summed
//   (MPI_Allreduce) and each rank updates its own heads.
//
// A count of ranks that does not divide the batch or the heads gets uneven
// blocks; a rank with none still takes part in the sums. Each rank's
// dropout is the window of the global attention probabilities [B, H, S, S]
// at its block, and every rank's generator starts from rank 0's 16-byte
// state, broadcast once: the masks are the one-process masks, bit for bit.
// The inputs and initial weights are generated the same way (rng windows),
// so no data is sent either.
//
// With --out DIR, rank 0 writes DIR/losses.txt (a loss a line), DIR/masks.bin
// (each step's global keep mask, a byte an element, [B, H, S, S] row-major)
// DIR/weights.bin (the final Wq, Wk, Wv [H, D, dh] and Wo [H, dh, D], f32)
// and DIR/grads.bin (the last step's gradients of the four, summed over
// the ranks, f32), which tests/test_mpi.cpp compares across K.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <mpi.h>

#include "rndnn/rndnn.hpp"

namespace {

using rndnn::dim_t;
using rndnn::dims;

struct config_t {
    dim_t batch = 6, heads = 3, seq = 16, model = 32, head_dim = 8;
    int steps = 4;
    double rate = 0.1;
    float lr = 0.5f;
    std::int64_t seed = 2024;
    bool tensor = false; // --parallel tensor
    std::string out; // --out DIR; empty: nothing written
};

// Part r of K of n: [r n / K, (r + 1) n / K).
dim_t part(dim_t n, int r, int k) { return n * r / k; }

// The block at @p origin (dims @p block) of a global tensor of normal(0,
// stddev) values: rndnn's window, so that every rank's block holds the
// global tensor's values there.
std::vector<float> normal_block(const dims &global, const dims &origin,
        const dims &block, std::int64_t seed, float stddev) {
    rndnn::rng::desc d(rndnn::rng_alg::philox4x32_10,
            rndnn::memory::desc(block, rndnn::data_type::f32));
    std::vector<float> v(static_cast<size_t>(d.dst.nelems()));
    if (v.empty()) return v;
    d.global_dims = global;
    d.origin = origin;
    rndnn::post_ops po;
    po.append_normal(0.f, stddev);
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    rndnn::rng(rndnn::rng::primitive_desc(d, attr))
            .execute(rndnn::stream(1),
                    {{RNDNN_ARG_DST, rndnn::memory(d.dst, v.data())},
                            {RNDNN_ARG_SEED, rndnn::memory::scalar(seed)}});
    return v;
}

void allreduce_sum(std::vector<float> &v, MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()),
            MPI_FLOAT, MPI_SUM, comm);
}

config_t parse(int argc, char **argv) {
    config_t c;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        const std::string v = argv[++i];
        const auto positive = [&](const std::string &flag) {
            char *end = nullptr;
            const long x = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || x < 1 || x > 4096)
                throw std::invalid_argument(flag + " '" + v
                        + "' is not an integer in [1, 4096]");
            return x;
        };
        if (a == "--parallel" && (v == "data" || v == "tensor"))
            c.tensor = v == "tensor";
        else if (a == "--parallel")
            throw std::invalid_argument("--parallel '" + v
                    + "' (expected data or tensor)");
        else if (a == "--steps") c.steps = static_cast<int>(positive(a));
        else if (a == "--batch") c.batch = positive(a);
        else if (a == "--heads") c.heads = positive(a);
        else if (a == "--out") c.out = v;
        else throw std::invalid_argument("unknown option '" + a + "'");
    }
    return c;
}

// The tensors of the graph.
enum : rndnn::tensor_id { x_id, wq_id, wk_id, wv_id, wo_id, q_id, k_id,
    v_id, scores_id, probs_id, dropped_id, ctx_id, y_id };

int train(const config_t &c, int rank, int nranks) {
    const dim_t B = c.batch, H = c.heads, S = c.seq, D = c.model,
                dh = c.head_dim;
    // This rank's block of the batch and of the heads.
    const dim_t b0 = c.tensor ? 0 : part(B, rank, nranks);
    const dim_t bl = c.tensor ? B : part(B, rank + 1, nranks) - b0;
    const dim_t h0 = c.tensor ? part(H, rank, nranks) : 0;
    const dim_t hl = c.tensor ? part(H, rank + 1, nranks) - h0 : H;
    // Ranks that hold the same samples sum their heads' predictions;
    // ranks that hold the same heads sum their weight gradients.
    MPI_Comm same_samples, same_heads;
    MPI_Comm_split(MPI_COMM_WORLD, c.tensor ? 0 : rank, rank, &same_samples);
    MPI_Comm_split(MPI_COMM_WORLD, c.tensor ? rank : 0, rank, &same_heads);

    // Inputs and weights: this rank's blocks of the global tensors.
    const std::vector<float> x = normal_block({B, S, D}, {b0, 0, 0},
            {bl, S, D}, c.seed + 1, 1.f);
    const std::vector<float> target = normal_block({B, S, D}, {b0, 0, 0},
            {bl, S, D}, c.seed + 2, 1.f);
    const float in_scale = 1.f / std::sqrt(static_cast<float>(D));
    std::vector<std::vector<float>> w(4);
    for (int i = 0; i < 3; ++i)
        w[i] = normal_block({H, D, dh}, {h0, 0, 0}, {hl, D, dh},
                c.seed + 3 + i, in_scale);
    w[3] = normal_block({H, dh, D}, {h0, 0, 0}, {hl, dh, D}, c.seed + 6,
            1.f / std::sqrt(static_cast<float>(dh)));
    std::vector<std::vector<float>> dw = w;

    // The generator: rank 0's state, broadcast once.
    rndnn::generator::state st = rndnn::generator(c.seed).save();
    MPI_Bcast(st.data(), static_cast<int>(st.size()), MPI_BYTE, 0,
            MPI_COMM_WORLD);
    rndnn::generator gen = rndnn::generator::load(st);

    const bool busy = bl > 0 && hl > 0; // a rank with no block has no graph
    const auto f32 = [](const dims &d) {
        return rndnn::memory::desc(d, rndnn::data_type::f32);
    };
    const dims w_in = {1, hl, D, dh}, w_out = {1, hl, dh, D},
               qkv = {bl, hl, S, dh}, sc = {bl, hl, S, S}, yd = {bl, hl, S, D};
    rndnn::compiled_graph cg;
    if (busy) {
        rndnn::graph g;
        g.add_input(x_id, f32({bl, 1, S, D}), false);
        for (auto id : {wq_id, wk_id, wv_id})
            g.add_input(id, f32(w_in));
        g.add_input(wo_id, f32(w_out));
        for (auto id : {q_id, k_id, v_id, ctx_id})
            g.add_tensor(id, f32(qkv));
        g.add_tensor(scores_id, f32(sc));
        g.add_tensor(probs_id, f32(sc));
        g.add_output(dropped_id, f32(sc)); // to see the mask
        g.add_output(y_id, f32(yd));
        g.add_matmul("q", x_id, wq_id, q_id);
        g.add_matmul("k", x_id, wk_id, k_id);
        g.add_matmul("v", x_id, wv_id, v_id);
        rndnn::matmul_params mp;
        mp.transpose_b = true;
        mp.scale = 1.f / std::sqrt(static_cast<float>(dh));
        g.add_matmul("scores", q_id, k_id, scores_id, mp);
        g.add_softmax("softmax", scores_id, probs_id, -1);
        rndnn::dropout_params dp;
        dp.rate = c.rate;
        dp.global_dims = {B, H, S, S}; // this block of the global probs
        dp.origin = {b0, h0, 0, 0};
        g.add_dropout("dropout", probs_id, dropped_id, dp);
        g.add_matmul("context", dropped_id, v_id, ctx_id);
        g.add_matmul("out", ctx_id, wo_id, y_id);
        g.finalize();
        rndnn::compile_options o;
        o.threads = 1;
        cg = g.compile(o);
    }

    std::vector<float> dropped(static_cast<size_t>(bl * hl * S * S)),
            ddropped(dropped.size(), 0.f), y(static_cast<size_t>(bl * hl * S * D)),
            dy(y.size()), pred(static_cast<size_t>(bl * S * D));
    std::vector<unsigned char> masks; // rank 0: every step's global mask
    std::vector<double> losses;
    const double n_out = static_cast<double>(B * S * D);
    for (int step = 0; step < c.steps; ++step) {
        std::unordered_map<rndnn::tensor_id, rndnn::memory> t;
        if (busy) {
            t = {{x_id, rndnn::memory(f32({bl, 1, S, D}),
                                const_cast<float *>(x.data()))},
                    {wq_id, rndnn::memory(f32(w_in), w[0].data())},
                    {wk_id, rndnn::memory(f32(w_in), w[1].data())},
                    {wv_id, rndnn::memory(f32(w_in), w[2].data())},
                    {wo_id, rndnn::memory(f32(w_out), w[3].data())},
                    {dropped_id, rndnn::memory(f32(sc), dropped.data())},
                    {y_id, rndnn::memory(f32(yd), y.data())}};
            cg.execute_forward(t, gen);
        }
        // The prediction: this rank's heads, then every rank's.
        std::fill(pred.begin(), pred.end(), 0.f);
        for (dim_t b = 0; b < bl && busy; ++b)
            for (dim_t h = 0; h < hl; ++h)
                for (dim_t i = 0; i < S * D; ++i)
                    pred[b * S * D + i] += y[(b * hl + h) * S * D + i];
        allreduce_sum(pred, same_samples);
        double loss = 0;
        for (size_t i = 0; i < pred.size(); ++i) {
            const float r = pred[i] - target[i];
            loss += double(r) * r;
            pred[i] = static_cast<float>(2.0 * r / n_out); // dL/dP
        }
        MPI_Allreduce(MPI_IN_PLACE, &loss, 1, MPI_DOUBLE, MPI_SUM, same_heads);
        losses.push_back(loss / n_out);

        // dL/dy_h = dL/dP for every head.
        for (auto &g : dw)
            std::fill(g.begin(), g.end(), 0.f);
        if (busy) {
            for (dim_t b = 0; b < bl; ++b)
                for (dim_t h = 0; h < hl; ++h)
                    std::memcpy(&dy[(b * hl + h) * S * D], &pred[b * S * D],
                            sizeof(float) * S * D);
            cg.execute_backward(
                    {{y_id, rndnn::memory(f32(yd), dy.data())},
                            {dropped_id, rndnn::memory(f32(sc), ddropped.data())}},
                    {{wq_id, rndnn::memory(f32(w_in), dw[0].data())},
                            {wk_id, rndnn::memory(f32(w_in), dw[1].data())},
                            {wv_id, rndnn::memory(f32(w_in), dw[2].data())},
                            {wo_id, rndnn::memory(f32(w_out), dw[3].data())}});
        }
        for (int i = 0; i < 4; ++i) {
            allreduce_sum(dw[i], same_heads);
            for (size_t j = 0; j < w[i].size(); ++j)
                w[i][j] -= c.lr * dw[i][j];
        }

        // The mask of this step: each rank's block, placed by rank 0.
        std::vector<unsigned char> mine(dropped.size());
        for (size_t i = 0; i < mine.size(); ++i)
            mine[i] = dropped[i] != 0.f; // softmax is never 0
        const long long box[4] = {b0, bl, h0, hl};
        std::vector<long long> boxes(rank == 0 ? 4 * nranks : 0);
        MPI_Gather(box, 4, MPI_LONG_LONG, boxes.data(), 4, MPI_LONG_LONG, 0,
                MPI_COMM_WORLD);
        std::vector<int> counts(nranks), displs(nranks);
        for (int r = 0; rank == 0 && r < nranks; ++r) {
            counts[r] = static_cast<int>(boxes[4 * r + 1] * boxes[4 * r + 3] * S * S);
            displs[r] = r ? displs[r - 1] + counts[r - 1] : 0;
        }
        std::vector<unsigned char> all(rank == 0
                        ? static_cast<size_t>(displs.back() + counts.back())
                        : 0);
        MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE,
                all.data(), counts.data(), displs.data(), MPI_BYTE, 0,
                MPI_COMM_WORLD);
        if (rank == 0) {
            std::vector<unsigned char> global(static_cast<size_t>(B * H * S * S));
            for (int r = 0; r < nranks; ++r) {
                const long long rb0 = boxes[4 * r], rbl = boxes[4 * r + 1],
                                rh0 = boxes[4 * r + 2], rhl = boxes[4 * r + 3];
                for (long long b = 0; b < rbl; ++b)
                    for (long long h = 0; h < rhl; ++h)
                        std::memcpy(&global[((rb0 + b) * H + rh0 + h) * S * S],
                                &all[displs[r] + (b * rhl + h) * S * S],
                                static_cast<size_t>(S * S));
            }
            masks.insert(masks.end(), global.begin(), global.end());
            std::printf("step %d loss %.9g\n", step, losses.back());
        }
    }

    // The final weights and the last step's gradients (summed over the
    // ranks): rank 0 holds every head where each rank holds all; with
    // heads split, it gathers them.
    const auto gather_heads = [&](const std::vector<std::vector<float>> &t) {
        std::vector<float> out;
        int ranks_here = 0;
        MPI_Comm_size(same_samples, &ranks_here);
        for (const std::vector<float> &mine : t) {
            int n = static_cast<int>(mine.size());
            std::vector<int> counts(ranks_here), displs(ranks_here);
            MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0,
                    same_samples);
            for (int r = 1; r < ranks_here; ++r)
                displs[r] = displs[r - 1] + counts[r - 1];
            std::vector<float> all(static_cast<size_t>(H * D * dh));
            MPI_Gatherv(mine.data(), n, MPI_FLOAT, all.data(), counts.data(),
                    displs.data(), MPI_FLOAT, 0, same_samples);
            out.insert(out.end(), all.begin(), all.end());
        }
        return out;
    };
    const std::vector<float> weights = gather_heads(w), grads = gather_heads(dw);
    if (rank == 0 && !c.out.empty()) {
        std::ofstream l(c.out + "/losses.txt");
        for (double v : losses) {
            char line[64];
            std::snprintf(line, sizeof line, "%.17g\n", v);
            l << line;
        }
        std::ofstream(c.out + "/masks.bin", std::ios::binary)
                .write(reinterpret_cast<const char *>(masks.data()),
                        static_cast<std::streamsize>(masks.size()));
        for (const auto &f : {std::make_pair("/weights.bin", &weights),
                     std::make_pair("/grads.bin", &grads)})
            std::ofstream(c.out + f.first, std::ios::binary)
                    .write(reinterpret_cast<const char *>(f.second->data()),
                            static_cast<std::streamsize>(f.second->size() * 4));
        if (!l) throw std::runtime_error("cannot write to '" + c.out + "'");
    }
    MPI_Comm_free(&same_samples);
    MPI_Comm_free(&same_heads);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, nranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    // Every rank parses the same command line: a bad one fails on all of
    // them before any collective call.
    config_t c;
    try {
        c = parse(argc, argv);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "rndnn-mpi-attention: rank %d of %d: %s\n", rank,
                nranks, e.what());
        MPI_Finalize();
        return 2;
    }
    int status = 0;
    try {
        status = train(c, rank, nranks);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "rndnn-mpi-attention: rank %d of %d: %s\n", rank,
                nranks, e.what());
        // A failure inside the training loop leaves the others in a
        // collective call: stop them all.
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return status;
}
