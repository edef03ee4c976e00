// Sharded generation under MPI: each of K ranks generates its block of
// columns of a global 1000 x 333 tensor of normal values, as a window of
// the global tensor, and rank 0 gathers the blocks and checks them against
// the tensor generated whole in one process. No random state is sent: a
// value depends only on (seed, stream, global index).
//   mpirun -np K example_sharded
// docs/distributed.md quotes this program.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <mpi.h>

#include "rndnn/rndnn.hpp"

namespace {

// The block of dims @p block at @p origin of the global tensor of dims
// @p global: normal(0, 1) values of Philox4x32-10 at seed 7.
std::vector<float> normal_block(const rndnn::dims &block,
        const rndnn::dims &global, const rndnn::dims &origin) {
    rndnn::rng::desc d(rndnn::rng_alg::philox4x32_10,
            rndnn::memory::desc(block, rndnn::dt::f32));
    d.global_dims = global; // this block's values are the global tensor's
    d.origin = origin;
    rndnn::post_ops po;
    po.append_normal(0.f, 1.f);
    rndnn::primitive_attr attr;
    attr.set_post_ops(po);
    rndnn::rng prim {rndnn::rng::primitive_desc(d, attr)};
    std::vector<float> values(d.dst.nelems());
    prim.execute(rndnn::stream(),
            {{RNDNN_ARG_DST, rndnn::memory(d.dst, values.data())},
                    {RNDNN_ARG_SEED, rndnn::memory::scalar(int64_t(7))}});
    return values;
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, nranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const rndnn::dim_t rows = 1000, cols = 333;
    // Rank r's columns: [cols r / K, cols (r + 1) / K).
    auto first_col = [&](int r) { return cols * r / nranks; };
    const rndnn::dim_t c0 = first_col(rank), width = first_col(rank + 1) - c0;
    const std::vector<float> block
            = normal_block({rows, width}, {rows, cols}, {0, c0});

    std::vector<int> counts(nranks), displs(nranks);
    for (int r = 0; r < nranks; ++r) {
        counts[r] = static_cast<int>(rows * (first_col(r + 1) - first_col(r)));
        displs[r] = static_cast<int>(rows * first_col(r));
    }
    std::vector<float> blocks(rank == 0 ? rows * cols : 0);
    MPI_Gatherv(block.data(), static_cast<int>(block.size()), MPI_FLOAT,
            blocks.data(), counts.data(), displs.data(), MPI_FLOAT, 0,
            MPI_COMM_WORLD);

    int ok = 1;
    if (rank == 0) {
        // The whole tensor, one process: block r holds its columns.
        const std::vector<float> whole = normal_block({rows, cols}, {}, {});
        for (int r = 0; r < nranks; ++r) {
            const rndnn::dim_t w = first_col(r + 1) - first_col(r);
            for (rndnn::dim_t i = 0; i < rows; ++i)
                ok &= std::memcmp(&blocks[displs[r] + i * w],
                              &whole[i * cols + first_col(r)],
                              w * sizeof(float))
                        == 0;
        }
        std::printf("%d ranks: blocks of columns %s the whole tensor\n",
                nranks, ok ? "==" : "!=");
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 0 : 1;
}
